"""MERA JudgeScore end to end: a run judged through ``replay/`` scripted judge outputs, and ``rejudge``."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.mera.mini import make_mini
from omnieval.benchmarks.mera.scheme import mera_scheme
from omnieval.runner import JudgeConfig, RunConfig, resolve_tasks
from omnieval.runs.evaluation import evaluate_config
from omnieval.runs.stored import rejudge_run, rescore_run

TASKS = ["ruclevr", "ruhhh_image"]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mini(tmp_path_factory.mktemp("mera_js") / "root", n=6, with_answers=True, tasks=TASKS)


def _ids(root: Path) -> dict[str, list[Any]]:
    return {t.name: list(t.iter_samples()) for t in resolve_tasks([f"mera:{root}"])}


def _write_judge(path: Path, verdicts: dict[tuple[str, str], str | int]) -> str:
    rows = [{"task": t, "sample_id": s, "response": r} for (t, s), r in verdicts.items()]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return f"replay/{path}"


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def _group_all(records: list[dict[str, Any]], key: str) -> float:
    groups: dict[Any, bool] = defaultdict(lambda: True)
    for r in records:
        groups[r["metadata"]["mera_group"]] &= r["metrics"][key] == 1.0
    return sum(groups.values()) / len(groups)


def test_replay_judge_gives_js_fs_group_js_and_counts_judge_failed(root: Path, tmp_path: Path) -> None:
    samples = _ids(root)
    clevr, hhh = [s.id for s in samples["ruclevr"]], [s.id for s in samples["ruhhh_image"]]
    verdicts = {
        ("ruclevr", clevr[0]): "1",
        ("ruclevr", clevr[1]): "0",
        ("ruclevr", clevr[2]): "**Оценка:** 1",
        ("ruclevr", clevr[3]): "не могу оценить",
        ("ruclevr", clevr[4]): "1\n0",
        ("ruclevr", clevr[5]): "7",
    }
    verdicts |= {
        ("ruhhh_image", s): ("0" if i == 0 else 1) for i, s in enumerate(hhh)
    }  # a JSON number is a verdict too
    judge = _write_judge(tmp_path / "judge.jsonl", verdicts)
    out = tmp_path / "run"
    config = RunConfig(
        tasks=(f"mera:{root}",),
        model="baseline/oracle",
        output=out,
        quiet=True,
        judge=JudgeConfig(model=judge),
    )
    _, results = evaluate_config(config)
    clevr_block = results.tasks["ruclevr"]
    # 3 unusable verdicts (wrong language, two verdicts, out of scale): counted, never scored
    assert clevr_block.states["judge_failed"] == 3 and results.states["judge_failed"] == 3
    m = clevr_block.metrics
    assert m["em"] == 1.0  # the oracle: EM over all 6 samples
    assert m["js"] == pytest.approx(2 / 3)  # judged samples only: 1, 0, 1
    assert m["fs"] == pytest.approx((1.0 + 2 / 3) / 2)
    records = _records(out)
    failed = [r for r in records if r["state"] == "judge_failed"]
    assert all(
        "js" not in r["metrics"] and "fs" not in r["metrics"] and r["metrics"]["em"] == 1.0 for r in failed
    )
    by_id = {r["sample_id"]: r for r in records if r["task"] == "ruclevr"}
    assert (
        "outside the scale" in by_id[clevr[5]]["reason"]
        and "2 different verdicts" in by_id[clevr[4]]["reason"]
    )
    raw = by_id[clevr[3]]["judge"]["calls"][0]["attempts"]
    assert [a["raw"] for a in raw] == ["не могу оценить"] * 3  # 1 call + 2 bounded retries, raw outputs kept
    hhh_block = results.tasks["ruhhh_image"].metrics
    hhh_records = [r for r in records if r["task"] == "ruhhh_image"]
    assert (
        hhh_block["group_js"] == pytest.approx(_group_all(hhh_records, "js")) and hhh_block["group_js"] < 1.0
    )
    assert hhh_block["fs"] == pytest.approx((hhh_block["group_em"] + hhh_block["group_js"]) / 2)
    assert {"em", "js", "fs", "group_em", "group_js"} <= set(hhh_block)
    hhh_judge = results.tasks["ruhhh_image"].judge  # every pair judged: both groups counted
    assert (hhh_judge.groups_judged, hhh_judge.groups_left_out) == (2, 0)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["judges"]["ruclevr"]["version"].startswith(judge)
    board = mera_scheme([results.model_copy(update={"run_dir": str(out)})])
    assert board["details"][0]["fs_used"] == {
        "ruclevr": "(EM + JS)/2",
        "ruhhh_image": "(Group EM + Group JS)/2",
    }

    # rejudge with another judge: only judge-derived values change
    before = {(r["task"], r["sample_id"]): r for r in records}
    judge2 = _write_judge(tmp_path / "judge2.jsonl", {k: "0" for k in verdicts})
    results2 = rejudge_run(out, JudgeConfig(model=judge2))
    assert results2.tasks["ruclevr"].metrics["js"] == 0.0 and results2.states["judge_failed"] == 0
    assert results2.tasks["ruclevr"].metrics["fs"] == 0.5
    assert results2.tasks["ruhhh_image"].metrics["group_js"] == 0.0
    judge_keys = {"js", "fs", "group_js"}
    run_facts = {k: v for k, v in results.document().items() if k not in ("tasks", "states")}
    assert {"backend", "retries"} <= set(run_facts)  # the model under test's facts survive the re-judge
    assert {k: results2.document()[k] for k in run_facts} == run_facts
    for name, block in results.tasks.items():
        new = results2.tasks[name]
        assert {k: v for k, v in new.metrics.items() if k not in judge_keys} == {
            k: v for k, v in block.metrics.items() if k not in judge_keys
        }
    for r in _records(out):
        old = before[(r["task"], r["sample_id"])]
        assert {k: v for k, v in r["metrics"].items() if k not in judge_keys} == {
            k: v for k, v in old["metrics"].items() if k not in judge_keys
        }
        for field in ("response", "targets", "fingerprint", "variant", "extracted", "usage"):
            assert r[field] == old[field]
        assert r["judge"]["judge"] == judge2.removeprefix("replay/") or r["judge"]["judge"] == judge2
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["judges"]["ruclevr"]["version"] != before[("ruclevr", clevr[0])]["judge"]["version"]
    rescored = rescore_run(out)  # re-scoring calls no judge: the stored verdicts stand
    assert rescored.tasks["ruclevr"].metrics == results2.tasks["ruclevr"].metrics
    assert rescored.tasks["ruhhh_image"].metrics == results2.tasks["ruhhh_image"].metrics


def test_without_a_judge_fs_is_em_and_says_so(root: Path, tmp_path: Path) -> None:
    _, results = evaluate_config(
        RunConfig(tasks=(f"mera:{root}",), model="baseline/oracle", output=tmp_path / "r", quiet=True)
    )
    block = results.tasks["ruclevr"]
    assert "js" not in block.metrics and block.metrics["fs"] == block.metrics["em"]
    assert block.judge.judged is False
    board = mera_scheme([results.model_copy(update={"run_dir": "r"})])
    assert board["details"][0]["fs_used"]["ruclevr"].startswith("EM (no judge")


def test_resuming_with_another_judge_is_refused(root: Path, tmp_path: Path) -> None:
    from omnieval.errors import ConfigError

    out = tmp_path / "r"
    evaluate_config(
        RunConfig(tasks=(f"mera:{root}",), model="baseline/oracle", output=out, quiet=True, limit=1)
    )
    judge = _write_judge(tmp_path / "j.jsonl", {("ruclevr", "0"): "1"})
    with pytest.raises(ConfigError, match="rejudge"):
        evaluate_config(
            RunConfig(
                tasks=(f"mera:{root}",),
                model="baseline/oracle",
                output=out,
                quiet=True,
                limit=1,
                judge=JudgeConfig(model=judge),
            )
        )


def test_hidden_answer_tasks_list_the_judge_keys_unscored(tmp_path: Path) -> None:
    root = make_mini(tmp_path / "hidden", n=3, tasks=TASKS)  # ruhhh_image is private: answers hidden
    judge = _write_judge(tmp_path / "j.jsonl", {("ruclevr", s.id): "1" for s in _ids(root)["ruclevr"]})
    _, results = evaluate_config(
        RunConfig(
            tasks=(f"mera:{root}",),
            model="baseline/oracle",
            output=tmp_path / "r",
            quiet=True,
            judge=JudgeConfig(model=judge),
        )
    )
    hidden = results.tasks["ruhhh_image"]
    assert hidden.scored is False and hidden.states["judge_failed"] == 0
    assert {"em", "js", "fs", "group_em", "group_js"} <= set(hidden.metrics)
    assert results.tasks["ruclevr"].metrics["js"] == 1.0


def test_a_truncated_mera_answer_is_judged_and_stays_truncated(root: Path, tmp_path: Path) -> None:
    samples = _ids(root)["ruclevr"]
    answers = tmp_path / "answers.jsonl"
    rows = [
        {
            "task": "ruclevr",
            "sample_id": s.id,
            "response": {
                "text": f"Думаю... ОТВЕТ: {s.targets[0]}",
                "finish_reason": "length" if i == 0 else "stop",
            },
        }
        for i, s in enumerate(samples)
    ]
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    judge = _write_judge(
        tmp_path / "j.jsonl", {("ruclevr", s.id): ("0" if i == 0 else "1") for i, s in enumerate(samples)}
    )
    out = tmp_path / "r"
    _, results = evaluate_config(
        RunConfig(
            tasks=(f"mera:{root}",),
            model=f"replay/{answers}",
            output=out,
            quiet=True,
            sample_ids=tuple(s.id for s in samples),
            judge=JudgeConfig(model=judge),
        )
    )
    block = results.tasks["ruclevr"]
    assert block.states["truncated"] == 1 and block.states["judge_failed"] == 0
    first = next(r for r in _records(out) if r["task"] == "ruclevr" and r["sample_id"] == samples[0].id)
    assert first["state"] == "truncated" and first["metrics"]["js"] == 0.0 and first["judge"]["value"] == 0.0
    assert block.metrics["js"] == pytest.approx(5 / 6)


def test_a_group_with_a_judge_failed_pair_is_left_out_of_group_js(root: Path, tmp_path: Path) -> None:
    hhh = [s.id for s in _ids(root)["ruhhh_image"]]  # two groups of three pairs
    outputs = ["1", "не знаю", "1", "1", "0", "1"]  # group 0: a pair judge_failed; group 1: a pair judged 0
    judge = _write_judge(
        tmp_path / "j.jsonl", {("ruhhh_image", s): o for s, o in zip(hhh, outputs, strict=True)}
    )
    _, results = evaluate_config(
        RunConfig(
            tasks=(f"mera:{root}",),
            model="baseline/oracle",
            output=tmp_path / "r",
            quiet=True,
            judge=JudgeConfig(model=judge),
        )
    )
    block = results.tasks["ruhhh_image"]
    assert block.states["judge_failed"] == 1
    assert block.metrics["js"] == pytest.approx(4 / 5)
    # group 0 is undecided (never credited as all-1): Group JS is over group 1 alone
    assert block.metrics["group_js"] == 0.0 and block.metrics["fs"] == pytest.approx((1.0 + 0.0) / 2)
    judge = block.judge  # and the results say so: one group counted, one left out
    assert (judge.groups_key, judge.groups_judged, judge.groups_left_out) == ("group_js", 1, 1)
    assert "groups_left_out" in judge.note
    assert results.tasks["ruclevr"].judge.groups_judged is None  # no group-aggregated judge metric
    report = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "task ruhhh_image: group_js counts 1 of 2 groups; 1 left out" in report


def test_a_task_whose_every_judge_call_failed_has_no_score_not_zero(root: Path, tmp_path: Path) -> None:
    from omnieval.benchmarks.mera.scheme import fs_sources, task_scores_from_results
    from omnieval.reports.html import results_table

    samples = _ids(root)
    judge = _write_judge(
        tmp_path / "j.jsonl",
        {("ruclevr", s.id): "?" for s in samples["ruclevr"]}
        | {("ruhhh_image", s.id): ("1" if i % 3 else "") for i, s in enumerate(samples["ruhhh_image"])},
    )
    _, results = evaluate_config(
        RunConfig(
            tasks=(f"mera:{root}",),
            model="baseline/oracle",
            output=tmp_path / "r",
            quiet=True,
            judge=JudgeConfig(model=judge),
        )
    )
    for name in ("ruclevr", "ruhhh_image"):  # ruclevr: no judged sample; ruhhh_image: no fully judged group
        block = results.tasks[name]
        assert block.scored is False and block.n_scored == 6 and "not computed" in block.judge.note
        assert (
            block.metrics["fs"] == 0.0 and block.score is None
        )  # the interface's keys: placeholders, unscored
    assert results.tasks["ruclevr"].states["judge_failed"] == 6
    assert results.tasks["ruclevr"].metrics == {"em": 1.0, "js": 0.0, "fs": 0.0}
    hhh = results.tasks["ruhhh_image"].metrics
    assert hhh["js"] == 1.0 and hhh["group_js"] == 0.0 and hhh["group_em"] == 1.0  # js: the 4 judged pairs
    groups = results.tasks["ruhhh_image"].judge
    assert (groups.groups_judged, groups.groups_left_out) == (0, 2)  # both groups hold a failed pair
    assert task_scores_from_results(results) == {"ruclevr": None, "ruhhh_image": None}
    assert fs_sources(results)["ruclevr"].startswith("not computed")
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(results_table(results))
    text = console.export_text()
    assert text.count("– (no judge value)") == 2
    assert "task ruhhh_image: group_js counts 0 of 2 groups; 2 left out" in text
