"""MMMU's random guesses equal a run of the authors' own ``main_parse_and_eval.py`` (vendored unchanged,
run in a subprocess as its README says) over the same responses: per sample and task score, for a whole
run and for a ``--limit`` run (the official file then holds only the run's samples)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.api import evaluate
from omnieval.runner.resolve import resolve_tasks
from omnieval.testing.hub_copies import write_hub_copy
from tests.benchmarks_hub.helpers import replay

VENDOR = Path(__file__).parent / "vendor" / "mmmu"
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta")
NO_LETTER = ("", "hmm", "I cannot tell.", "no idea at all, sorry about that friend", "?", "42")
LETTERED = ("(B)", "A", "The answer is (C).", "beta is what I would say here today", "D")


def _varied_options(position: int, row: dict[str, Any]) -> dict[str, Any]:
    """2 to 7 options (``random.choice`` then consumes the stream differently: 3, 5, 6 and 7 reject)."""
    if row["question_type"] != "multiple-choice":
        return row
    k = (2, 3, 4, 5, 6, 7)[position % 6]
    return row | {"options": repr(list(WORDS[:k])), "answer": "ABCDEFG"[position % k]}


def _responses(ids: list[str]) -> dict[str, str]:
    rng = random.Random(36)
    return {i: rng.choice(NO_LETTER if rng.random() < 0.7 else LETTERED) for i in ids}


def _official_run(tmp_path: Path, root: Path, answers: dict[str, str], ids: list[str]) -> dict[str, Any]:
    """The authors' script over one ``output.json`` per subject (rows in file order); their judgements."""
    script = tmp_path / "official"
    (script / "utils").mkdir(parents=True)
    shutil.copy(VENDOR / "main_parse_and_eval.py", script)
    for name in ("eval_utils.py", "data_utils.py"):
        shutil.copy(VENDOR / name, script / "utils" / name)
    (task,) = resolve_tasks([f"mmmu:{root}"])
    outputs: dict[str, list[dict[str, Any]]] = {}
    wanted = set(ids)
    for sample in task.iter_samples():
        if sample.id not in wanted:
            continue
        entry: dict[str, Any] = {
            "id": sample.id,
            "question_type": sample.metadata["question_type"],
            "answer": sample.targets[0],
            "response": answers[sample.id],
        }
        if sample.choices:
            letters = [chr(ord("A") + k) for k in range(len(sample.choices))]
            entry |= {"all_choices": letters, "index2ans": dict(zip(letters, sample.choices, strict=True))}
        outputs.setdefault(str(sample.metadata["subject"]), []).append(entry)
    for subject, entries in outputs.items():
        (tmp_path / "outputs" / subject).mkdir(parents=True)
        (tmp_path / "outputs" / subject / "output.json").write_text(json.dumps(entries), encoding="utf-8")
    subprocess.run(
        [sys.executable, "main_parse_and_eval.py", "--path", str(tmp_path / "outputs"), "--subject", "ALL"],
        cwd=script,
        check=True,
        capture_output=True,
    )
    judged = {}
    for subject in outputs:
        for entry in json.loads((tmp_path / "outputs" / subject / "parsed_output.json").read_text()):
            judged[entry["id"]] = entry
    return judged


def _ours(tmp_path: Path, root: Path, answers: dict[str, str], **options: Any) -> tuple[dict, list[dict]]:
    out = tmp_path / "ours"
    evaluate(
        model=replay(tmp_path, "mmmu", answers), tasks=[f"mmmu:{root}"], output=out, quiet=True, **options
    )
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"]["mmmu"]
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return results, records


@pytest.mark.parametrize("limit", [None, 47])
def test_guesses_per_sample_and_task_score_equal_the_authors_script(
    tmp_path: Path, limit: int | None
) -> None:
    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=5, edit=_varied_options)  # 150 rows, 30 subjects
    (task,) = resolve_tasks([f"mmmu:{root}"])
    ids = [s.id for s in task.iter_samples()]
    answers = _responses(ids)
    taken = ids if limit is None else ids[:limit]  # --limit: the first samples in the authors' order
    results, records = _ours(tmp_path, root, answers, **({"limit": limit} if limit else {}))
    official = _official_run(tmp_path, root, answers, taken)
    assert {r["sample_id"] for r in records} == set(official) == set(taken)
    guessed = [r for r in records if "guessed_from" in r["metadata"]]
    assert len(guessed) > len(taken) // 3  # many draws, so the stream's order decides them
    for record in records:
        entry = official[record["sample_id"]]
        if entry["question_type"] == "multiple-choice":
            assert record["extracted"] == entry["parsed_pred"], record["sample_id"]
        assert record["score"] == float(entry["judge"] == "Correct"), record["sample_id"]
    correct = sum(entry["judge"] == "Correct" for entry in official.values())
    assert results["score"] == pytest.approx(correct / len(official))
    assert results["n"] == len(taken)


def test_stand_in_guesses_would_differ_from_the_authors(tmp_path: Path) -> None:
    """Without the settle step (per-sample seeds), some guessed letters differ from the authors' stream:
    the step is what makes them equal."""
    from omnieval.benchmarks.mmmu.scoring import official_draws

    records = [
        (
            i,
            {
                "state": "ok",
                "metadata": {"guessed_from": "ABCD", "position": i},
                "targets": ["A"],
                "metrics": {"acc": 0.0},
                "extracted": random.Random(f"42:{i}").choice("ABCD"),
            },
        )
        for i in range(40)
    ]
    changes = official_draws(records)
    assert changes  # some stand-ins were wrong
    stream = random.Random(42)
    for index, record in records:
        assert changes.get(index, {}).get("extracted", record["extracted"]) == stream.choice("ABCD")


def test_merged_shards_equal_a_single_run(tmp_path: Path) -> None:
    """Each shard draws over its own samples; ``omnieval merge`` settles the union again."""
    from omnieval.api import merge

    root = write_hub_copy("mmmu", tmp_path / "MMMU", n=1, edit=_varied_options)
    (task,) = resolve_tasks([f"mmmu:{root}"])
    model = replay(tmp_path, "mmmu", _responses([s.id for s in task.iter_samples()]))
    runs = []
    for index in (0, 1):
        runs.append(tmp_path / f"shard{index}")
        evaluate(model=model, tasks=[f"mmmu:{root}"], output=runs[-1], quiet=True, shard=f"{index}/2")
    merge(*runs, output=tmp_path / "merged")
    evaluate(model=model, tasks=[f"mmmu:{root}"], output=tmp_path / "single", quiet=True)

    def scored(out: Path) -> tuple[float, dict[str, tuple[Any, float]]]:
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"]["mmmu"]
        lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
        return results["score"], {r["sample_id"]: (r["extracted"], r["score"]) for r in records}

    shard_draws = {**scored(runs[0])[1], **scored(runs[1])[1]}
    assert scored(tmp_path / "merged") == scored(tmp_path / "single")
    assert shard_draws != scored(tmp_path / "single")[1]  # the shards alone drew otherwise
