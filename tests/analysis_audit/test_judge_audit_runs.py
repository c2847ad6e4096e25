"""Audits over stored judge records: repeats of one judge (flip rate), two judges (Cohen's κ), position
swap from ``ab``/``ba`` calls, cost and length bias; the ``omnieval judge audit`` command on a real run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omnieval.analysis.judge_runs import audit_markdown, audit_runs


def _record(
    sid: str,
    value: float | None,
    *,
    version: str,
    response: str = "x",
    calls: list[dict[str, Any]] | None = None,
    tokens: tuple[int, int] = (10, 2),
) -> dict[str, Any]:
    attempt = {
        "raw": "1",
        "verdict": value,
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        "latency_s": 0.5,
    }
    return {
        "task": "t",
        "sample_id": sid,
        "state": "ok" if value is not None else "judge_failed",
        "response": response,
        "judge": {
            "judge": f"openai/{version}",
            "version": version,
            "key": "js",
            "value": value,
            "calls": calls or [{"label": "answer", "verdict": value, "attempts": [attempt]}],
        },
    }


def test_repeats_agreement_cost_by_hand() -> None:
    run1 = [
        _record("1", 1, version="A"),
        _record("2", 0, version="A"),
        _record("3", 1, version="A"),
        _record("4", 1, version="A"),
    ]
    run2 = [
        _record("1", 1, version="A"),
        _record("2", 1, version="A"),
        _record("3", 1, version="A"),
        _record("4", None, version="A"),
    ]
    other = [
        _record("1", 1, version="B"),
        _record("2", 0, version="B"),
        _record("3", 0, version="B"),
        _record("4", 1, version="B"),
    ]
    audit = audit_runs(
        {"run1": run1, "run2": run2, "other": other, "plain": [{"task": "t", "sample_id": "1"}]}
    )
    # repeats of A: items 1-3 have two verdicts (4 failed once); only item 2 flips → 1/3
    rep = audit["repeats"]["A"]
    assert (rep["items"], rep["flipped"], rep["items_skipped"]) == (3, 1, 1)
    assert rep["flip_rate"] == pytest.approx(1 / 3)
    # A (run1) vs B: agree on 1, 2, 4; disagree on 3 → 3/4; p_e = 3/4·2/4 + 1/4·2/4 = 1/2 → κ = 1/2
    (pair,) = audit["agreement"]
    assert (
        pair["kind"] == "binary"
        and pair["agreement"] == pytest.approx(0.75)
        and pair["kappa"] == pytest.approx(0.5)
    )
    cost = audit["runs"]["run2"]["cost"]
    assert (cost["requests"], cost["prompt_tokens"], cost["completion_tokens"]) == (4, 40, 8)
    assert audit["runs"]["run2"]["judge_failed"] == 1
    assert audit["runs_without_judge"] == ["plain"]
    text = audit_markdown(audit)
    assert (
        text.startswith("## Judge audit")
        and "flip rate 0.333 (1 of 3 items)" in text
        and "Cohen's κ 0.500" in text
    )


def test_position_swap_and_length_bias_from_records() -> None:
    def pair(sid: str, ab: float, ba: float, response: str) -> dict[str, Any]:
        calls = [
            {"label": "ab", "verdict": ab, "attempts": []},
            {"label": "ba", "verdict": ba, "attempts": []},
        ]
        return _record(sid, ab, version="P", response=response, calls=calls)

    # ab=1 / ba=0: the same answer won both orders (consistent); ab=1 / ba=1: the first slot won twice
    records = [
        pair("1", 1, 0, "a" * 10),
        pair("2", 1, 1, "a" * 20),
        pair("3", 0, 1, "a" * 30),
        pair("4", 0.5, 0.5, "a" * 40),
    ]
    run = audit_runs({"r": records})["runs"]["r"]
    swap = run["position_swap"]
    assert (swap["items"], swap["consistent"], swap["first_slot"]) == (4, 3, 1)
    assert swap["consistency"] == pytest.approx(0.75)
    # values [1, 1, 0, 0.5] vs lengths [10, 20, 30, 40]: ranks [3.5, 3.5, 1, 2] vs [1, 2, 3, 4];
    # deviations [1, 1, −1.5, −0.5] and [−1.5, −0.5, 0.5, 1.5]: cov −3.5, var 4.5 and 5 → −3.5/√22.5
    assert run["length_bias"]["spearman"] == pytest.approx(-3.5 / math.sqrt(22.5))


def test_scored_judges_are_compared_by_difference() -> None:
    a = [_record("1", 0.7, version="A"), _record("2", 0.4, version="A")]
    b = [_record("1", 0.7, version="B"), _record("2", 0.9, version="B")]
    (pair,) = audit_runs({"a": a, "b": b})["agreement"]
    assert (
        pair["kind"] == "scored"
        and pair["exact_agreement"] == 0.5
        and pair["mean_abs_difference"] == pytest.approx(0.25)
    )


TASK = """\
name: {name}
source: {{type: jsonl, path: qa.jsonl}}
prompt: {{template: "{{{{ input }}}}"}}
metrics: [{{name: exact_match, alias: em}}]
judge: {judge}
"""
BINARY = "{key: js, protocol: direct, template: binary_equivalence, parser: judge_binary, scale: [0, 1]}"
PAIRWISE = (
    "{key: win, protocol: pairwise, template: pairwise_preference, parser: pairwise_preference, "
    "scale: [0, 1]}"
)


def omnieval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, timeout=300, check=False
    )


def _judged_run(
    tmp_path: Path, name: str, judge: str, answers: dict[str, str], verdicts: dict[str, str]
) -> Path:
    """A one-task run: replayed answers, judged by a replay judge with the given raw outputs."""
    (tmp_path / "qa.jsonl").write_text(
        "".join(json.dumps({"id": i, "question": f"q{i}", "answer": "a"}) + "\n" for i in answers),
        encoding="utf-8",
    )
    (tmp_path / "task.yaml").write_text(TASK.format(name=name, judge=judge), encoding="utf-8")
    for file, table in (("answers.jsonl", answers), ("judge.jsonl", verdicts)):
        lines = [{"task": name, "sample_id": i, "response": text} for i, text in table.items()]
        (tmp_path / file).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "run"
    done = omnieval(
        "run",
        "--tasks",
        str(tmp_path / "task.yaml"),
        "--model",
        f"replay/{tmp_path / 'answers.jsonl'}",
        "--judge",
        f"replay/{tmp_path / 'judge.jsonl'}",
        "--output",
        str(out),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.mark.slow
def test_audit_command_on_a_judged_run(tmp_path: Path) -> None:
    out = _judged_run(
        tmp_path,
        "qa_judged",
        BINARY,
        {"1": "a", "2": "b long answer", "3": "a"},
        {"1": "1", "2": "0", "3": "1"},
    )
    audit = omnieval("judge", "audit", str(out), "--repeats", "2", "--json")
    assert audit.returncode == 0, audit.stderr[-2000:]
    data = json.loads(audit.stdout)
    (rep,) = data["repeats"].values()
    assert (rep["items"], rep["flip_rate"]) == (
        3,
        0.0,
    )  # a replay judge never flips: original + 2 repeats agree
    assert data["runs"][str(out)]["cost"]["requests"] == 3
    assert (out / "judge_audit.md").read_text(encoding="utf-8").startswith("## Judge audit")
    missing = omnieval("judge", "audit", str(tmp_path / "nope"))
    assert missing.returncode == 2 and f"run folder {tmp_path / 'nope'} does not exist" in missing.stderr


@pytest.mark.slow
def test_position_swap_audit_catches_a_first_slot_judge(tmp_path: Path) -> None:
    # a replay judge answers the same for both orders: "A" means "the first answer shown", whichever it is
    out = _judged_run(tmp_path, "qa_pairwise", PAIRWISE, {"1": "b", "2": "b"}, {"1": "**A**", "2": "**A**"})
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [[c["label"] for c in r["judge"]["calls"]] for r in records] == [["ab", "ba"], ["ab", "ba"]]
    swap = audit_runs({"run": records})["runs"]["run"]["position_swap"]
    assert (swap["items"], swap["consistent"], swap["first_slot"], swap["consistency"]) == (2, 0, 2, 0.0)


def test_several_tasks_are_also_audited_one_by_one() -> None:
    def rec(task: str, sid: str, value: float, version: str) -> dict[str, Any]:
        return {**_record(sid, value, version=version), "task": task}

    run_a = [rec("bin", "1", 1, "A"), rec("bin", "2", 0, "A"), rec("score", "1", 0.7, "A2")]
    run_b = [rec("bin", "1", 1, "B"), rec("bin", "2", 1, "B"), rec("score", "1", 0.7, "B2")]
    audit = audit_runs({"a": run_a, "b": run_b})
    assert sorted(audit["runs"]["a"]["tasks"]) == ["bin", "score"]
    assert audit["runs"]["a"]["tasks"]["bin"]["samples"] == 2
    (pair,) = audit["agreement"]
    assert pair["kind"] == "scored"  # the run mixes scales; per task the binary judge gets its κ
    assert pair["tasks"]["bin"]["kind"] == "binary" and pair["tasks"]["bin"]["agreement"] == 0.5
    assert pair["tasks"]["score"]["exact_agreement"] == 1.0
    assert "| a · bin |" in audit_markdown(audit)


def test_repeat_judging_refuses_bad_requests(tmp_path: Path) -> None:
    from omnieval.analysis.judge_repeat import repeat_judging
    from omnieval.errors import ConfigError, StoreError

    with pytest.raises(ConfigError, match="at least 1 repeat"):
        repeat_judging(tmp_path, None, repeats=0)
    with pytest.raises(StoreError, match=r"no manifest\.json"):
        repeat_judging(tmp_path, None, repeats=2)


def test_each_repeat_of_a_sample_is_an_item_of_its_own() -> None:
    """A run with repeats: every repeat's verdict is audited (none collapses into the sample's last), and
    two judges are compared repeat by repeat."""

    def rec(sid: str, repeat: int, value: float | None, version: str) -> dict[str, Any]:
        return _record(sid, value, version=version) | {"repeat": repeat}

    a = [rec("1", 0, 1, "A"), rec("1", 1, None, "A"), rec("2", 0, 0, "A"), rec("2", 1, 1, "A")]
    b = [rec("1", 0, 1, "B"), rec("1", 1, 0, "B"), rec("2", 0, 1, "B"), rec("2", 1, 1, "B")]
    audit = audit_runs({"a": a, "b": b})
    run = audit["runs"]["a"]
    assert (run["samples"], run["judge_failed"], run["cost"]["requests"]) == (4, 1, 4)
    (pair,) = audit["agreement"]  # 1#0 agree, 1#1 A failed, 2#0 disagree, 2#1 agree → 2 of 3
    assert pair["items"] == 3 and pair["agreement"] == pytest.approx(2 / 3)
