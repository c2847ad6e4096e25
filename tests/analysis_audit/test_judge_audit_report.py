"""The report's "Judge audit" section: built from a judged run's records, completed by a saved
``omnieval judge audit`` (flips, agreement) only while it describes the judge the records hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from omnieval.analysis.judge_runs import audit_markdown, audit_runs
from omnieval.cli.app import app
from omnieval.runner import JudgeConfig, RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.runs.stored import rejudge_run

TASK = (
    "name: qa\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
    "judge: {template: binary_equivalence, derived: {fs: [em, js]}}\n"
)


def _replay(path: Path, outputs: list[str]) -> str:
    path.write_text(
        "".join(
            json.dumps({"task": "qa", "sample_id": str(i), "response": o}) + "\n"
            for i, o in enumerate(outputs)
        ),
        encoding="utf-8",
    )
    return f"replay/{path}"


def _section(run: Path) -> str:
    html = (run / "report.html").read_text(encoding="utf-8")
    if 'id="judges"' not in html:
        return ""
    start = html.index('<section id="judges">')
    return re.sub(r"<[^>]+>", " ", html[start : html.index("</section>", start)])


def _run(tmp_path: Path, name: str, judge: str | None) -> Path:
    (tmp_path / "qa.jsonl").write_text(
        "".join(json.dumps({"id": str(i), "question": f"q{i}", "answer": "a"}) + "\n" for i in range(4)),
        encoding="utf-8",
    )
    (tmp_path / "qa.yaml").write_text(TASK, encoding="utf-8")
    config = RunConfig(
        tasks=(str(tmp_path / "qa.yaml"),),
        model="baseline/oracle",
        output=tmp_path / name,
        quiet=True,
        judge=JudgeConfig(model=judge) if judge else None,
    )
    evaluate_config(config)
    return tmp_path / name


def test_a_judged_run_report_has_a_judge_audit_section(tmp_path: Path) -> None:
    assert _section(_run(tmp_path, "plain", None)) == ""  # no judge: no section
    run = _run(tmp_path, "a", _replay(tmp_path / "a.jsonl", ["1", "1", "0", "?"]))
    text = _section(run)
    assert "Judge audit" in text and "replay/" in text
    # 4 samples, 1 judge_failed, 4 + 2 retries = 6 requests; the replay judge reports no tokens: never shown
    # as 0
    assert re.search(r"\ba\s+replay/\S+\s+4\s+1\s+6\s+0\s+– \(not reported\)", text), text


def test_a_saved_audit_adds_agreement_until_a_rejudge_makes_it_stale(tmp_path: Path) -> None:
    first = _run(tmp_path, "a", _replay(tmp_path / "a.jsonl", ["1", "1", "0", "0"]))
    second = _run(tmp_path, "b", _replay(tmp_path / "b.jsonl", ["1", "0", "0", "0"]))
    done = CliRunner().invoke(app, ["judge", "audit", str(first), str(second)])
    assert done.exit_code == 0, done.output
    # agreement 3/4; p_e = 2/4·1/4 + 2/4·3/4 = 1/2 → κ = (3/4 − 1/2) / (1/2) = 0.5
    assert "0.750 over 4 items, Cohen's κ 0.500" in _section(first).replace("&#39;", "'")
    rejudge_run(first, JudgeConfig(model=_replay(tmp_path / "c.jsonl", ["0", "0", "0", "0"])))
    text = _section(first)
    assert "Cohen" not in text and "audited other judge versions" in text


def test_markdown_says_when_no_call_reported_tokens() -> None:
    attempt = {"raw": "1", "verdict": 1.0, "usage": {"prompt_tokens": None, "completion_tokens": None}}
    reported = {**attempt, "usage": {"prompt_tokens": 5, "completion_tokens": 1}}

    def rec(sid: str, a: dict[str, object]) -> dict[str, object]:
        return {
            "task": "t",
            "sample_id": sid,
            "response": "x",
            "judge": {
                "version": "V",
                "value": 1.0,
                "calls": [{"label": "x", "verdict": 1.0, "attempts": [a]}],
            },
        }

    assert "| – (not reported) |" in audit_markdown(audit_runs({"r": [rec("1", attempt), rec("2", attempt)]}))
    assert "| 6 (+1 calls unreported) |" in audit_markdown(
        audit_runs({"r": [rec("1", attempt), rec("2", reported)]})
    )
