"""Repeated sampling: pass@k (hand table and brute force), maj@K ties, clustered vs naive bootstrap,
records per repeat, resume, distinct seeds, compare over repeat means, bad input before any request."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omnieval.aggregate.repeats import RepeatAccumulator, clustered_bootstrap_ci, majority_index, pass_at_k
from omnieval.aggregate.results import bootstrap_ci
from omnieval.cli.app import app
from omnieval.errors import ConfigError
from omnieval.runner import RunConfig, run
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import TaskSpec

# n, c, k → 1 - C(n-c, k)/C(n, k), worked by hand
HAND = [
    (5, 0, 1, 0.0),
    (5, 2, 1, 2 / 5),  # 1 - 3/5
    (5, 2, 2, 7 / 10),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
    (5, 2, 3, 9 / 10),  # 1 - C(3,3)/C(5,3) = 1 - 1/10
    (5, 2, 4, 1.0),  # n - c < k
    (4, 1, 2, 1 / 2),  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    (10, 3, 5, 11 / 12),  # 1 - C(7,5)/C(10,5) = 1 - 21/252
    (16, 16, 16, 1.0),
]


@pytest.mark.parametrize(("n", "c", "k", "expected"), HAND)
def test_pass_at_k_matches_the_hand_worked_table(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def _brute_force(outcomes: tuple[bool, ...], k: int) -> Fraction:
    """Share of all k-subsets of the answers that hold at least one correct answer."""
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(any(s) for s in subsets), len(subsets))


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_pass_at_k_equals_enumeration_over_every_subset(n: int) -> None:
    for c in range(n + 1):
        outcomes = (True,) * c + (False,) * (n - c)
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(_brute_force(outcomes, k)), abs=1e-12), (n, c, k)


def test_pass_at_k_rejects_k_above_n() -> None:
    with pytest.raises(ValueError, match="k ≤ n"):
        pass_at_k(3, 1, 4)


def test_majority_ties_go_to_the_answer_given_first() -> None:
    assert majority_index(["B", "A", "A", "B"]) == 0  # 2–2: B came first
    assert majority_index(["A", "B", "B", "A"]) == 0
    assert majority_index(["C", "B", "A", "A"]) == 2  # a strict majority wins wherever it starts
    assert majority_index([None, "B", None, "C"]) == 1  # no answer is no vote; 1–1 tie → first
    assert majority_index([None, None]) is None
    assert (
        majority_index([{"x": 1, "y": 2}, {"y": 2, "x": 1}, "z"]) == 0
    )  # structured answers compare by value


def test_maj_score_is_the_score_of_the_majority_answer() -> None:
    acc = RepeatAccumulator()
    for r, (score, answer) in enumerate([(0.0, "B"), (1.0, "A"), (1.0, "A"), (0.0, "B")]):
        acc.add("s1", r, score, answer)  # tie B/A → B (first) → 0
    for r, (score, answer) in enumerate([(0.0, "B"), (1.0, "A"), (1.0, "A"), (0.0, None)]):
        acc.add("s2", r, score, answer)  # A wins 2–1 → 1
    metrics = acc.metrics(pass_k=(), threshold=1.0)
    assert metrics["maj@4"] == 0.5
    assert metrics["avg@4"] == 0.5
    assert metrics["pass@1"] == 0.5 and metrics["pass@4"] == 1.0
    block = acc.block(pass_k=(), threshold=1.0)
    assert block["per_repeat_scores"] == [0.0, 1.0, 1.0, 0.0]
    assert block["within_sample_variance"] == 0.25


def test_pass_threshold_decides_which_partial_scores_count() -> None:
    acc = RepeatAccumulator()
    for r, score in enumerate([0.5, 0.9, 1.0]):
        acc.add("s", r, score, None)
    assert acc.metrics(pass_k=(1,), threshold=1.0)["pass@1"] == pytest.approx(1 / 3)
    assert acc.metrics(pass_k=(1,), threshold=0.5)["pass@1"] == 1.0


def test_clustered_bootstrap_is_wider_than_naive_on_perfectly_correlated_repeats() -> None:
    """20 samples, each answered identically 16 times: the information is 20 draws, not 320; the naive
    bootstrap over records would report an interval about 4 (√16) times too narrow."""
    clusters = [[1.0] * 16 if i % 2 else [0.0] * 16 for i in range(20)]
    naive = bootstrap_ci(sorted(x for c in clusters for x in c))
    clustered = clustered_bootstrap_ci(clusters)
    assert naive is not None and clustered is not None
    width_naive, width_clustered = naive[1] - naive[0], clustered[1] - clustered[0]
    assert width_clustered > 3 * width_naive
    # the clustered CI equals the ordinary bootstrap of the 20 per-sample means
    assert clustered == bootstrap_ci(sorted(sum(c) / len(c) for c in clusters))


def _task_file(tmp_path: Path, n: int = 6, repeats: str = "") -> Path:
    data = tmp_path / "t.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": str(i), "question": f"q{i}", "answer": "A", "choices": ["A", "B"]}) + "\n"
            for i in range(n)
        )
    )
    return data


def _run_random(data: Path, out: Path, *options: str) -> Any:
    """``omnieval run`` of ``data`` with ``baseline/random`` into ``out``, in process."""
    argv = ["run", "--tasks", f"jsonl:{data}", "--model", "baseline/random", "--output", str(out), *options]
    return CliRunner().invoke(app, argv)


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_cli_repeats_writes_k_records_per_sample_and_the_metrics(tmp_path: Path) -> None:
    data, out = _task_file(tmp_path), tmp_path / "out"
    result = _run_random(data, out, "--repeats", "5", "-q")
    assert result.exit_code == 0, result.output
    records = _records(out)
    assert sorted((r["sample_id"], r["repeat"]) for r in records) == [
        (str(i), r) for i in range(6) for r in range(5)
    ]
    task = json.loads((out / "results.json").read_text())["tasks"]["t"]
    for key in ("pass@1", "pass@5", "maj@5", "avg@5"):
        assert key in task["metrics"], key
    # an independent recomputation from the records
    by_sample: dict[str, list[dict]] = {}
    for r in records:
        by_sample.setdefault(r["sample_id"], []).append(r)
    correct = {i: sum(r["score"] == 1.0 for r in rs) for i, rs in by_sample.items()}
    assert task["metrics"]["pass@5"] == pytest.approx(sum(c > 0 for c in correct.values()) / 6)
    assert task["metrics"]["pass@1"] == pytest.approx(sum(c / 5 for c in correct.values()) / 6)
    assert task["metrics"]["avg@5"] == pytest.approx(task["score"])
    assert task["repeats"]["k"] == 5 and len(task["repeats"]["per_repeat_scores"]) == 5
    assert "t: spread across 5 repeats" in (out / "report.html").read_text(encoding="utf-8")
    # each repeat had its own generation seed: five different requests, five cache entries
    assert len({r["fingerprint"] for r in by_sample["0"]}) == 5


def test_repeats_resume_only_the_missing_repeats(tmp_path: Path) -> None:
    data, out = _task_file(tmp_path, n=3), tmp_path / "out"
    config = RunConfig(tasks=(f"jsonl:{data}",), model="baseline/random", output=out, repeats=4, quiet=True)
    run(config)
    lines = (out / "samples.jsonl").read_text().splitlines()
    kept = [
        line for line in lines if json.loads(line)["repeat"] != 2
    ]  # as if killed before repeat 2 was written
    (out / "samples.jsonl").write_text("\n".join(kept) + "\n")
    outcome = run(config)
    assert sum(outcome.states["t"].values()) == 3  # exactly the three missing records
    again = _records(out)
    assert sorted((r["sample_id"], r["repeat"]) for r in again) == [
        (str(i), r) for i in range(3) for r in range(4)
    ]
    assert {r["fingerprint"] for r in again} == {
        json.loads(line)["fingerprint"] for line in lines
    }  # same requests


def test_repeats_zero_and_a_pass_k_above_the_repeats_fail_before_any_request(tmp_path: Path) -> None:
    data, out = _task_file(tmp_path), tmp_path / "out"
    result = _run_random(data, out, "--repeats", "0")
    assert result.exit_code != 0 and "--repeats" in result.output
    assert not (out / "samples.jsonl").exists()
    with pytest.raises(ValueError, match=r"pass@k needs 1 ≤ k ≤ repeats \(4\); got k = 8"):
        TaskSpec.model_validate({"name": "x", "repeats": {"n": 4, "pass_k": [1, 8]}})
    task_yaml = tmp_path / "task.yaml"
    task_yaml.write_text(
        f"name: rk\nsource: {{type: jsonl, path: {data}}}\nrepeats: {{n: 8, pass_k: [1, 8]}}\n"
    )
    with pytest.raises(ConfigError, match=r"task rk .*--repeats 4.*k = 8"):
        run(RunConfig(tasks=(str(task_yaml),), model="baseline/random", output=out, repeats=4, quiet=True))
    assert not (out / "samples.jsonl").exists()


def test_task_yaml_repeats_and_its_pass_k(tmp_path: Path) -> None:
    data, out = _task_file(tmp_path, n=4), tmp_path / "out"
    task_yaml = tmp_path / "task.yaml"
    task_yaml.write_text(f"name: rk\nsource: {{type: jsonl, path: {data}}}\nrepeats: {{n: 3, pass_k: [2]}}\n")
    _, results = evaluate_config(
        RunConfig(tasks=(str(task_yaml),), model="baseline/random", output=out, quiet=True)
    )
    metrics = results.tasks["rk"].metrics
    assert "pass@2" in metrics and "pass@1" not in metrics and "maj@3" in metrics
    assert len(_records(out)) == 12
    assert TaskSpec.model_validate({"name": "x", "repeats": 5}).repeats.n == 5  # the short form


def test_compare_pairs_samples_by_their_repeat_means(tmp_path: Path) -> None:
    from omnieval.reports.compare import _scores
    from omnieval.reports.loading import load_run

    data, out = _task_file(tmp_path, n=3), tmp_path / "out"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{data}",), model="baseline/random", output=out, repeats=4, quiet=True)
    )
    folded = _scores(load_run(out))["t"]
    assert set(folded) == {"0", "1", "2"}
    for sample_id, record in folded.items():
        scores = [r["score"] for r in _records(out) if r["sample_id"] == sample_id]
        assert record["score"] == pytest.approx(math.fsum(scores) / 4)


def test_a_task_without_repeats_hashes_as_before_the_field_existed() -> None:
    """Run folders made before repeats existed still resume: ``b7120e459ae491ed`` is this spec's
    ``content_hash`` computed by the code of the commit before repeats (33614c6^), stored here."""
    from omnieval.sources.task import Task

    spec = {
        "name": "legacy",
        "source": {"type": "jsonl", "path": "data/legacy.jsonl"},
        "metrics": [{"name": "exact_match"}],
    }

    def hash_of(**extra: Any) -> str:
        return Task(spec=TaskSpec.model_validate(spec | extra), iter_samples=lambda: iter(())).content_hash

    assert hash_of() == "b7120e459ae491ed"
    with_repeats = {hash_of(repeats=1), hash_of(repeats=2), hash_of(repeats={"n": 2, "pass_k": [2]})}
    assert len(with_repeats) == 3 and "b7120e459ae491ed" not in with_repeats  # set repeats still count
