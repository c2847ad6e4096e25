"""``--shard I/N`` and ``omnieval merge``: shards of one run, started independently, merge into what one
unsharded run writes (against the project's fake OpenAI server)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

import omnieval
from omnieval.cli.app import app
from omnieval.runner.sharding import shares
from omnieval.testing.fake_openai import FakeOpenAI
from omnieval.types import Sample
from tests.scaleout.conftest import QUIZ_SIZE as N


def _run(quiz: Path, server: FakeOpenAI, out: Path, **options: Any) -> omnieval.EvalResults:
    return omnieval.evaluate(
        model="openai/fake", tasks=f"jsonl:{quiz}", base_url=server.url, output=out, quiet=True, **options
    )


def _records(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Every record by (task, sample id), without what differs between two calls (timing, cache hits)."""
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    keyed = {
        (r["task"], r["sample_id"]): {k: v for k, v in r.items() if k not in ("latency_s", "cached")}
        for r in rows
    }
    assert len(keyed) == len(rows), f"{out}: a sample recorded twice"
    return keyed


def _merge(*args: str) -> Any:
    return CliRunner().invoke(app, ["merge", *args])


@pytest.fixture(scope="module")
def shards(quiz: Path, server: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A single run and the three shards of the same run, each its own folder."""
    root = tmp_path_factory.mktemp("runs")
    _run(quiz, server, root / "single")
    for i in range(3):
        _run(quiz, server, root / f"d{i}", shard=f"{i}/3")
    return {"single": root / "single", **{f"d{i}": root / f"d{i}" for i in range(3)}}


def test_three_shards_are_near_equal_and_hold_every_sample_once(shards: dict[str, Path]) -> None:
    parts = [set(_records(shards[f"d{i}"])) for i in range(3)]
    sizes = sorted(len(p) for p in parts)
    assert sizes[-1] - sizes[0] <= 1
    assert sum(sizes) == N and set().union(*parts) == set(_records(shards["single"]))
    manifests = [json.loads((shards[f"d{i}"] / "manifest.json").read_text()) for i in range(3)]
    assert [m["config"]["shard"] for m in manifests] == [{"index": i, "count": 3} for i in range(3)]


def test_merged_shards_equal_a_single_run(shards: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "merged"
    result = _merge(*(str(shards[f"d{i}"]) for i in range(3)), "--output", str(out))
    assert result.exit_code == 0, result.output
    assert _records(out) == _records(shards["single"])
    single, merged = omnieval.load_results(shards["single"]), omnieval.load_results(out)
    assert merged.results.tasks == single.results.tasks
    assert merged.results.states == single.results.states
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["config"]["shard"] is None
    assert (out / "report.html").is_file()


def test_a_missing_shard_is_named_and_allow_partial_leaves_it_resumable(
    shards: dict[str, Path], quiz: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    refused = _merge(str(shards["d0"]), str(shards["d2"]), "--output", str(tmp_path / "out"))
    assert refused.exit_code == 2
    assert "shard 1/3 is missing" in refused.output
    assert not (tmp_path / "out").exists()

    partial = tmp_path / "partial"
    merged = _merge(str(shards["d0"]), str(shards["d2"]), "--output", str(partial), "--allow-partial")
    assert merged.exit_code == 0, merged.output
    assert json.loads((partial / "manifest.json").read_text())["status"] == "running"
    assert len(_records(partial)) == N - len(_records(shards["d1"]))
    _run(quiz, server, partial)  # an unfinished merge resumes as the unsharded run
    assert _records(partial) == _records(shards["single"])


def test_a_shard_resumed_under_another_count_still_merges(
    shards: dict[str, Path], quiz: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    d1 = tmp_path / "d1"
    _run(quiz, server, d1, shard="1/2")  # first started as one of two shares, then resumed as 1/3
    _run(quiz, server, d1, shard="1/3")
    out = tmp_path / "merged"
    result = _merge(str(shards["d0"]), str(d1), str(shards["d2"]), "--output", str(out))
    assert result.exit_code == 0, result.output
    assert _records(out) == _records(shards["single"])


def test_runs_of_another_model_or_setting_are_refused(
    shards: dict[str, Path], quiz: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    _run(quiz, server, other, shard="1/3", temperature=0.5)
    result = _merge(str(shards["d0"]), str(other), str(shards["d2"]), "--output", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "not a shard of the same run" in result.output and "generation" in result.output


def test_a_sample_held_twice_with_different_content_is_refused(
    shards: dict[str, Path], tmp_path: Path
) -> None:
    changed = tmp_path / "changed"
    shutil.copytree(shards["d1"], changed)
    lines = (changed / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["response"] = "something else"
    (changed / "samples.jsonl").write_text(
        "\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8"
    )
    result = _merge(
        str(shards["d0"]), str(shards["d1"]), str(changed), str(shards["d2"]), "--output", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert f"sample {first['sample_id']!r}" in result.output and "response" in result.output


def test_a_shard_that_does_not_exist_is_refused(quiz: Path, server: FakeOpenAI, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="shard 3/3 does not exist"):
        _run(quiz, server, tmp_path / "d3", shard="3/3")
    result = CliRunner().invoke(
        app,
        ["run", "--tasks", f"jsonl:{quiz}", "--model", "openai/fake", "--shard", "3/3", "-o", str(tmp_path)],
    )
    assert result.exit_code == 2 and "shard 3/3 does not exist" in result.output
    with pytest.raises(ValidationError, match="INDEX/COUNT"):
        _run(quiz, server, tmp_path / "dx", shard="1-3")


def _samples(n: int, *, chains: int = 0) -> list[Sample]:
    rows = [Sample(id=f"s{i}", input=str(i)) for i in range(n)]
    return rows + [
        Sample(id=f"c{c}-{step}", input="x", chain=f"c{c}", chain_index=step)
        for c in range(chains)
        for step in range(3)
    ]


def test_shares_are_stable_across_processes_and_keep_a_dialogue_together() -> None:
    samples = _samples(50, chains=4)
    here = shares("quiz", samples, count=4)
    code = (
        "import json; from omnieval.runner.sharding import shares; from omnieval.types import Sample; "
        "s=[Sample(id=f's{i}', input=str(i)) for i in range(50)]"
        "+[Sample(id=f'c{c}-{t}', input='x', chain=f'c{c}', chain_index=t) "
        "for c in range(4) for t in range(3)]; "
        "print(json.dumps(shares('quiz', s, count=4)))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout
    )
    assert there == here
    for c in range(4):
        assert len({here[f"c{c}-{t}"] for t in range(3)}) == 1
    units = [here[f"s{i}"] for i in range(50)] + [here[f"c{c}-0"] for c in range(4)]
    counts = [units.count(i) for i in range(4)]
    assert max(counts) - min(counts) <= 1
    assert shares("other", samples, count=4) != here  # another task deals its samples differently


def test_an_empty_share_is_a_finished_run_and_merges(server: FakeOpenAI, tmp_path: Path) -> None:
    """More shards than samples: a shard with nothing to run succeeds (exit 0) and merges."""
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"id": "a", "question": "x [1]", "answer": "1"}) + "\n", encoding="utf-8")
    common = ["run", "--tasks", f"jsonl:{one}", "--model", "openai/fake", "--base-url", server.url, "-q"]
    for i in range(2):
        result = CliRunner().invoke(app, [*common, "--shard", f"{i}/2", "-o", str(tmp_path / f"s{i}")])
        assert result.exit_code == 0, result.output
    assert sorted(len(_records(tmp_path / f"s{i}")) for i in range(2)) == [0, 1]
    merged = _merge(str(tmp_path / "s0"), str(tmp_path / "s1"), "--output", str(tmp_path / "m"))
    assert merged.exit_code == 0, merged.output
    assert list(_records(tmp_path / "m")) == [("one", "a")]
