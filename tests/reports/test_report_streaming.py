"""A large run's report reads ``samples.jsonl`` again per pass (:class:`RecordStream`) and spills the task's
samples to disk instead of holding them: the report it writes must be the one the in-memory path writes,
byte for byte (issue 24: ``--batch`` over 100,000 requests in ≤ 300 MB)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from omnieval.reports import html as report_html
from omnieval.reports.loading import RecordStream, load_run, read_records_tolerant
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.runs.evaluation import evaluate_config


def _judged(sid: str, state: str, verdicts: dict[str, float | None]) -> dict[str, object]:
    calls = [{"label": label, "verdict": v, "attempts": []} for label, v in verdicts.items()]
    value = None if state == "judge_failed" else sum(v or 0 for v in verdicts.values()) / len(verdicts)
    return {
        "task": "judged",
        "sample_id": sid,
        "state": state,
        "score": value or 0.0,
        "response": "ответ " * int(sid),
        "judge": {"version": "j#1", "value": value, "calls": calls},
        "metadata": {"level": ["easy", "hard"][int(sid) % 2]},
    }


def _lines(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run (3 repeats, prompts rebuilt from its task) plus judged records of a second task."""
    tmp = tmp_path_factory.mktemp("streamed")
    data = tmp / "t.jsonl"
    data.write_text(
        _lines(
            [
                {"id": str(i), "question": f"вопрос {i}", "answer": "A", "choices": ["A", "B"], "g": i % 3}
                for i in range(12)
            ]
        )
    )
    out = tmp / "run"
    evaluate_config(
        RunConfig(tasks=(f"jsonl:{data}",), model="baseline/random", output=out, quiet=True, repeats=3)
    )
    judged = [
        _judged(str(i), "judge_failed" if i == 4 else "ok", {"a": i % 2, "b": (i + 1) % 3 / 2})
        for i in range(9)
    ]
    with (out / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(_lines(judged[:5]) + "{not json\n" + _lines(judged[5:]))
    return out


def _render(run: Path, into: Path, *, stream: bool, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Render a copy of ``run`` at ``into/run`` (same folder name: same run label in the page)."""
    target = into / "run"
    shutil.copytree(run, target)
    monkeypatch.setattr(report_html, "STREAM_BYTES", 0 if stream else 1 << 40)
    config = json.loads((target / "manifest.json").read_text())["config"]
    report_html.write_report(target, tasks=resolve_tasks(tuple(config["tasks"]), strict_metrics=False))
    return target


def _outputs(run: Path) -> dict[str, bytes]:
    files = {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}
    page = files.pop("report.html").decode()
    files["report.html"] = "\n".join(line for line in page.splitlines() if " UTC" not in line).encode()
    return files


def _resumed(run: Path, into: Path) -> Path:
    """``run`` with two samples recorded again at the end (a resume): the later records win, in the
    first ones' places."""
    target = into / "src"
    shutil.copytree(run, target)
    records = [json.loads(line) for line in (target / "samples.jsonl").read_text().splitlines()[:2]]
    again = [r | {"score": 1.0 - float(r["score"]), "state": "parse_failed"} for r in records]
    with (target / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(_lines(again))
    return target


@pytest.mark.parametrize("resumed", [False, True])
def test_streamed_report_is_the_in_memory_report_byte_for_byte(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resumed: bool
) -> None:
    source = _resumed(run_dir, tmp_path) if resumed else run_dir
    held = _outputs(_render(source, tmp_path / "held", stream=False, monkeypatch=monkeypatch))
    streamed = _outputs(_render(source, tmp_path / "streamed", stream=True, monkeypatch=monkeypatch))
    assert held.keys() == streamed.keys() and any(k.startswith("report_samples/c") for k in held)
    assert [k for k in held if held[k] != streamed[k]] == []
    assert streamed["results.json"] == (run_dir / "results.json").read_bytes()  # rendering never rewrites it
    page = streamed["report.html"].decode()
    assert "Judge audit" in page and "1 line(s) of samples.jsonl could not be read" in page
    assert "вопрос 3" in json.dumps(read_parts(tmp_path / "streamed" / "run"), ensure_ascii=False)


def read_parts(run: Path) -> list[dict[str, object]]:
    from omnieval.reports.sidecar import read_part

    return [read_part(p) for p in sorted((run / "report_samples").glob("c*.js"))]


@pytest.mark.parametrize("resumed", [False, True])
def test_record_stream_yields_what_the_tolerant_reader_holds(
    run_dir: Path, tmp_path: Path, resumed: bool
) -> None:
    source = _resumed(run_dir, tmp_path) if resumed else run_dir
    held, bad = read_records_tolerant(source / "samples.jsonl")
    stream = RecordStream(source / "samples.jsonl")
    assert stream.in_order is not resumed and stream.unreadable == bad == 1
    assert len(stream) == len(held) == 12 * 3 + 9
    assert list(stream) == held and list(stream) == held  # iterable again and again
    if resumed:
        assert [r["state"] for r in held[:2]] == ["parse_failed", "parse_failed"]
    assert isinstance(load_run(source, stream_above=0).records, RecordStream)
    assert isinstance(load_run(source, stream_above=1 << 40).records, list)
