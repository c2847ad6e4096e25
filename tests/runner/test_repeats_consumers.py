"""Every consumer of a run's records keys them by (task, sample id, repeat): a sample's repeats never
collapse into one record (diff, score, rejudge, pack, exports, analyses)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.runner.test_repeats import _task_file

K = 3


def _run(tmp_path: Path, name: str = "out", **options: Any) -> Path:
    out = tmp_path / name
    config = {"model": "baseline/random", "output": out, "repeats": K, "quiet": True} | options
    evaluate_config(RunConfig(tasks=(f"jsonl:{_task_file(tmp_path, n=4)}",), **config))
    return out


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def _write(out: Path, records: list[dict[str, Any]]) -> None:
    (out / "samples.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def _ids(records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted((r["sample_id"], r["repeat"]) for r in records)


def test_diff_pairs_records_by_sample_and_repeat(tmp_path: Path) -> None:
    from omnieval.reports.diff import diff_runs

    run_a = _run(tmp_path, "a")
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b)
    records = _records(run_b)
    target = next(r for r in records if r["sample_id"] == "1" and r["repeat"] == 1)
    target["score"] = 1.0 - target["score"]  # one repeat of one sample flips; the other repeats do not
    _write(run_b, records)
    diff = diff_runs(run_a, run_b)
    assert diff["only_in_a"] == diff["only_in_b"] == 0
    assert [(f["sample_id"], f["repeat"]) for f in diff["flips"]] == [("1", 1)]
    assert diff["flips"][0]["b"]["score"] == target["score"]


def test_score_rescores_every_repeat_as_its_own_record(tmp_path: Path) -> None:
    from omnieval.runs.stored import rescore_run

    out = _run(tmp_path)
    before = json.loads((out / "results.json").read_text())["tasks"]["t"]
    results = rescore_run(out)
    records = _records(out)
    assert _ids(records) == [(str(i), r) for i in range(4) for r in range(K)]
    task = results.tasks["t"]
    assert task.repeats.k == K
    for key in ("pass@1", f"pass@{K}", f"maj@{K}", f"avg@{K}"):
        assert task.metrics[key] == pytest.approx(before["metrics"][key]), key


def test_pack_cli_needs_repeat_for_a_run_with_repeats_and_packs_each_sample_once(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    data = _task_file(tmp_path, n=4).rename(tmp_path / "art.AA.jsonl")  # an ART task name: the art packer
    out = tmp_path / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{data}",), model="baseline/random", output=out, repeats=K, quiet=True)
    )
    archive = tmp_path / "sub.zip"
    refused = CliRunner().invoke(app, ["pack", str(out), "--format", "art", "-o", str(archive)])
    assert refused.exit_code != 0 and "--repeat N" in refused.output and not archive.exists()
    packed = CliRunner().invoke(
        app, ["pack", str(out), "--format", "art", "--repeat", "2", "-o", str(archive)]
    )
    assert packed.exit_code == 0, packed.output
    with zipfile.ZipFile(archive) as zf:
        lines = [json.loads(line) for line in zf.read("art.AA.jsonl").decode().splitlines()]
    wanted = {r["sample_id"]: r["response"] for r in _records(out) if r["repeat"] == 2}
    assert {line["sample_id"]: line["response"] for line in lines} == wanted and len(lines) == 4


def _chain_task(tmp_path: Path) -> Path:
    """A two-turn dialogue (chain d, turns 0 and 1) judged by a generative judge."""
    rows = [
        {"id": str(i), "question": f"turn {i}", "answer": "x", "dialog": "d", "turn": i} for i in range(2)
    ]
    (tmp_path / "chain.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: ch\nsource: {type: jsonl, path: chain.jsonl, fields: {chain: dialog, chain_index: turn}}\n"
        "metrics: [{name: exact_match}]\n"
        "judge: {protocol: {name: direct}, template: binary_equivalence}\n"
    )
    return task


def test_rejudge_judges_each_repeat_with_its_own_chain_history(tmp_path: Path) -> None:
    """Each repeat's record is re-judged and written back to its own record; a chain step's question
    (re-rendered for records judged without a stored one) holds the earlier turns of the *same* repeat."""
    from omnieval.runner.config import BackendOptions, JudgeConfig
    from omnieval.runs.stored import rejudge_run
    from omnieval.testing.fake_openai import FakeOpenAI

    task, out = _chain_task(tmp_path), tmp_path / "run"
    with FakeOpenAI(default_answer="Оценка: 1").in_thread() as server:
        judge = JudgeConfig(model="openai/judge", backend=BackendOptions(base_url=server.url, api_key="x"))
        config = RunConfig(
            tasks=(str(task),), model="baseline/random", output=out, repeats=K, quiet=True, judge=judge
        )
        evaluate_config(config)
        records = _records(out)
        for r in records:  # distinct answers per repeat; verdicts stored without their question (older runs)
            r["response"] = f"answer {r['sample_id']}.{r['repeat']}"
            r["judge"]["question"] = None
        _write(out, records)
        results = rejudge_run(out, judge)
    again = _records(out)
    assert _ids(again) == [(str(i), r) for i in range(2) for r in range(K)]
    assert results.tasks["ch"].repeats.k == K
    for record in again:
        assert record["judge"] is not None and record["state"] == "ok"
        if record["sample_id"] == "1":
            question = record["judge"]["question"]
            assert f"answer 0.{record['repeat']}" in question, (record["repeat"], question)
            assert all(f"answer 0.{r}" not in question for r in range(K) if r != record["repeat"])


def test_report_breakdowns_count_samples_not_repeats(tmp_path: Path) -> None:
    """A per-sample field (the question) is no capability dimension, and a real one (domain, two values
    over four samples) has groups of two samples: K repeats must not pass for K samples."""
    data = tmp_path / "d.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}", "answer": "A", "choices": ["A", "B"], "domain": "ab"[i % 2]}
        for i in range(4)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{data}",), model="baseline/random", output=out, repeats=K, quiet=True)
    )
    table = json.loads((out / "report_tables" / "capabilities.json").read_text())
    assert not [row for row in table if row["dimension"] in ("question", "id")]
    domain = [(row["group"], row["n"]) for row in table if row["dimension"] == "domain"]
    assert domain == [("a", 2), ("b", 2)]
    by_group = {row["group"]: row["score"] for row in table if row["dimension"] == "domain"}
    for group in "ab":
        scores = [r["score"] for r in _records(out) if r["metadata"]["domain"] == group]
        assert by_group[group] == pytest.approx(sum(scores) / len(scores))


def test_subset_and_stability_analyses_resample_samples_not_repeats(tmp_path: Path) -> None:
    from omnieval.analysis.stability import bootstrap_by_task_size
    from omnieval.reports.analyses import stability_analysis, subset_analysis

    out = _run(tmp_path)  # 4 samples × K repeats
    by_sample: dict[str, list[float]] = {}
    for r in _records(out):
        by_sample.setdefault(r["sample_id"], []).append(r["score"])
    sample_means = [sum(v) / K for v in by_sample.values()]
    _, summary = subset_analysis([out], size=4, draws=20)
    (row,) = summary["runs"]
    assert row["std"] == pytest.approx(0.0, abs=1e-12)  # every subset of 4 samples is the whole set
    assert row["full_mean"] == pytest.approx(sum(sample_means) / 4)
    with pytest.raises(ValueError, match=r"number of items \(4\)"):
        subset_analysis([out], size=5, draws=2)
    _, stability = stability_analysis([out], sizes=[2, 4], n_resamples=200)
    (curve,) = stability["curves"].values()
    assert curve == bootstrap_by_task_size({"t": sample_means}, sizes=[2, 4], n_resamples=200)


def test_tracker_sample_tables_have_a_row_per_repeat_that_names_it(tmp_path: Path) -> None:
    from omnieval.hooks.tables import SampleRows

    out = _run(tmp_path)
    rows = [dict(zip(SampleRows.COLUMNS, cells, strict=True)) for cells, _ in SampleRows().rows(out)]
    assert sorted((r["sample_id"], r["repeat"]) for r in rows) == [
        (str(i), r) for i in range(4) for r in range(K)
    ]


def test_replaying_a_run_with_repeats_gives_each_repeat_its_own_answer(tmp_path: Path) -> None:
    """A run's samples.jsonl replays repeat by repeat (it was refused: one sample answered K times); a
    line without a repeat index answers every repeat."""
    first = _run(tmp_path, "first")
    again = _run(tmp_path, "again", model=f"replay/{first / 'samples.jsonl'}")
    assert {(r["sample_id"], r["repeat"], r["response"]) for r in _records(again)} == {
        (r["sample_id"], r["repeat"], r["response"]) for r in _records(first)
    }
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"task": "t", "sample_id": "0", "response": "B"}) + "\n")
    data = _task_file(tmp_path, n=1)
    out = tmp_path / "one"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{data}",), model=f"replay/{plain}", output=out, repeats=K, quiet=True)
    )
    assert [(r["repeat"], r["response"]) for r in sorted(_records(out), key=lambda r: r["repeat"])] == [
        (r, "B") for r in range(K)
    ]
