"""MARKER item Simplicity across models, worked by hand on three tiny runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.benchmarks.marker.cli import app
from omnieval.benchmarks.marker.simplicity import load_run, rank_items
from omnieval.errors import StoreError

# model → item → per-rotation values; q2 is a plain (non-circular) item
RUNS = {
    "m1": {"q1": [1, 1], "q2": [1], "q3": [1, 0, 0, 0]},
    "m2": {"q1": [1, 0], "q2": [0], "q3": [0, 0, 0, 0]},
    "m3": {"q1": [0, 0], "q2": [1], "q3": [1, 1, 1, 1]},
}


def _write_run(root: Path, model: str, items: dict[str, list[int]]) -> Path:
    run = root / model
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"config": {"model": f"test/{model}"}}), encoding="utf-8")
    lines = []
    for item, values in items.items():
        for k, value in enumerate(values):
            circular = item != "q2"
            meta = {"circular_group": item, "rotation": k} if circular else {}
            sample_id = f"{item}#rot{k}" if circular else item
            lines.append(
                {
                    "task": "t",
                    "sample_id": sample_id,
                    "state": "ok",
                    "score": float(value),
                    "metrics": {"acc": float(value)},
                    "response": "AB"[value],
                    "metadata": meta,
                }
            )
    lines.append({"task": "other", "sample_id": "x", "state": "ok", "score": 1.0, "metadata": {}})
    (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return run


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    return [_write_run(tmp_path, model, items) for model, items in RUNS.items()]


def test_rank_items_by_hand(runs: list[Path]) -> None:
    # accuracies: m1 = (1 + 1 + 1/4)/3 = 3/4, m2 = (1/2)/3 = 1/6, m3 = 2/3; their sum is 19/12
    stats = rank_items([load_run(r, task="t") for r in runs])
    assert [s.item for s in stats] == ["q1", "q3", "q2"]
    q1, q3, q2 = stats
    assert q1.simplicity == pytest.approx(0.5)
    assert q1.weighted == pytest.approx(10 / 19)  # (3/4·1 + 1/6·1/2) / (19/12)
    assert q1.chance_corrected == pytest.approx(1 / 19)  # K = 2 rotations
    assert q3.simplicity == pytest.approx(5 / 12)
    assert q3.weighted == pytest.approx(41 / 76)
    assert q3.chance_corrected == pytest.approx(22 / 57)  # K = 4
    assert q2.weighted == pytest.approx(17 / 19)
    assert q2.chance_corrected is None and q2.n_options is None
    assert q1.per_model == {"test/m1": 1.0, "test/m2": 0.5, "test/m3": 0.0}
    assert q1.answers["test/m2"] == "B | A"


def test_metric_key_and_errors(runs: list[Path], tmp_path: Path) -> None:
    assert load_run(runs[0], task="t", metric="acc").values["q3"] == 0.25
    with pytest.raises(StoreError, match="no metric 'f1'"):
        load_run(runs[0], task="t", metric="f1")
    with pytest.raises(StoreError, match="no scored samples of task 'nope'"):
        load_run(runs[0], task="nope")
    with pytest.raises(StoreError, match="not a run directory"):
        load_run(tmp_path, task="t")


def test_cli_prints_formula_and_json(runs: list[Path]) -> None:
    result = CliRunner().invoke(app, ["simplicity", *map(str, runs), "--task", "t", "--top", "1"])
    assert result.exit_code == 0, result.output
    assert "formula:" in result.output and "q1" in result.output
    result = CliRunner().invoke(app, ["simplicity", *map(str, runs), "--task", "t", "--json"])
    data = json.loads(result.output)
    assert [i["item"] for i in data["items"]] == ["q1", "q3", "q2"]
    bad = CliRunner().invoke(app, ["simplicity", str(runs[0]), "--task", "nope"])
    assert bad.exit_code == 2


def test_a_run_with_repeats_averages_every_repeat_and_counts_rotations_once(tmp_path: Path) -> None:
    """q1 has 2 rotations answered twice each (values 1,1 | 1,0): c(q1) = 3/4 over all four records,
    and K (from the rotations) stays 2."""
    run = tmp_path / "m"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"config": {"model": "test/m"}}))
    values = {(0, 0): 1.0, (0, 1): 1.0, (1, 0): 1.0, (1, 1): 0.0}  # (rotation, repeat) → score
    lines = [
        {
            "task": "t",
            "sample_id": f"q1#rot{k}",
            "state": "ok",
            "score": v,
            "metadata": {"circular_group": "q1"},
            "repeat": r,
        }
        for (k, r), v in values.items()
    ]
    (run / "samples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    loaded = load_run(run, task="t")
    assert loaded.values == {"q1": 0.75} and loaded.n_options == {"q1": 2}
