from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.benchmarks.mera.cli import app
from omnieval.benchmarks.mera.subscores import domain_scores
from omnieval.registry import cli_apps


def _write_run(run_dir: Path, records: list[dict[str, object]]) -> Path:
    run_dir.mkdir(parents=True)
    (run_dir / "samples.jsonl").write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    return run_dir


def test_domain_subscores_hand_worked(tmp_path: Path) -> None:
    def rec(
        task: str, sid: int, score: float, domain: str, group: int | None = None, scored: bool = True
    ) -> dict[str, object]:
        meta: dict[str, object] = {"domain": domain}
        if group is not None:
            meta["mera_group"] = str(group)
        return {
            "task": task,
            "sample_id": str(sid),
            "state": "ok",
            "score": score,
            "scored": scored,
            "metadata": meta,
        }

    run = _write_run(
        tmp_path / "run",
        [
            rec("unisciencevqa", 0, 1.0, "business"),
            rec("unisciencevqa", 1, 0.0, "business"),
            rec("unisciencevqa", 2, 1.0, "health_and_medicine"),
            rec("unisciencevqa", 3, 0.0, "health_and_medicine", scored=False),
            # ruHHH helpful: group 0 all right, group 1 one wrong -> 1/2; honest: one group all right -> 1
            rec("ruhhh_image", 0, 1.0, "helpful", 0),
            rec("ruhhh_image", 1, 1.0, "helpful", 0),
            rec("ruhhh_image", 2, 1.0, "helpful", 1),
            rec("ruhhh_image", 3, 0.0, "helpful", 1),
            rec("ruhhh_image", 4, 1.0, "honest", 2),
            rec("weird", 0, 1.0, "none"),  # no domain field: not reported
        ],
    )
    scores = domain_scores(run)
    assert set(scores) == {"unisciencevqa", "ruhhh_image"}
    assert scores["unisciencevqa"]["business"] == {"score": 0.5, "n": 2.0}
    assert scores["unisciencevqa"]["health_and_medicine"] == {"score": 1.0, "n": 1.0}
    assert scores["ruhhh_image"]["helpful"]["score"] == pytest.approx(0.5)
    assert scores["ruhhh_image"]["honest"]["score"] == 1.0


def test_cli_group_is_registered_and_commands_work(tmp_path: Path) -> None:
    assert cli_apps.get("mera") is app
    runner = CliRunner()
    result = runner.invoke(app, ["make-mini", str(tmp_path / "root"), "--n", "3"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "root" / "ruHHH-Video" / "data" / "test-00000-of-00001.parquet").exists()
    result = runner.invoke(app, ["prompts", str(tmp_path / "root" / "RuSLUn"), "--lang", "en"])
    assert result.exit_code == 0 and result.output.count("=====  ") == 0
    assert result.output.count("===== prompt_") == 10 and "ANSWER" in result.output
    result = runner.invoke(app, ["prompts", str(tmp_path / "root" / "RuSLUn"), "--lang", "de"])
    assert result.exit_code != 0
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 0 and len(result.output.strip().splitlines()) == 18


def test_domain_subscores_count_every_repeat_and_groups_within_a_repeat(tmp_path: Path) -> None:
    """Two repeats: the domain score is the mean over all records (as the task score), a ruHHH group
    counts within one repeat, and n counts samples."""

    def rec(sid: int, repeat: int, score: float, group: int) -> dict[str, object]:
        meta = {"domain": "helpful", "mera_group": str(group)}
        return {
            "task": "ruhhh_image",
            "sample_id": str(sid),
            "state": "ok",
            "repeat": repeat,
            "score": score,
            "metadata": meta,
        }

    run = _write_run(
        tmp_path / "run",
        [
            # repeat 0: group 0 right, group 1 wrong; repeat 1: both groups right → (1 + 0 + 1 + 1) / 4
            *(rec(s, 0, 1.0, 0) for s in (0, 1)),
            rec(2, 0, 1.0, 1),
            rec(3, 0, 0.0, 1),
            *(rec(s, 1, 1.0, s // 2) for s in range(4)),
        ],
    )
    assert domain_scores(run)["ruhhh_image"]["helpful"] == {"score": 0.75, "n": 4.0}
