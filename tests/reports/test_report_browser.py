"""Reports in a real headless Chromium (Debian's, driven by Playwright): charts render as plotly SVG, no
console error, no network request, the sample viewer's filters work, and a screenshot is taken."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from omnieval.reports.compare import compare_runs
from omnieval.reports.compare_page import write_comparison
from omnieval.reports.html import write_report
from omnieval.testing.browser import open_page
from omnieval.testing.runs import write_synthetic_run

from .conftest import needs_chromium

REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?https?:""", re.IGNORECASE)
EVERY_CHART_DRAWN = "[...document.querySelectorAll('div.chart')].every(d => d.querySelector('svg.main-svg'))"


def _records(run: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        if line.endswith("}")
    ]


def _shown(page: Any, expected: int) -> None:
    """Wait until the viewer has finished updating and shows ``expected`` matching samples."""
    page.wait_for_function(
        "document.body.dataset.viewer === 'ready' && "
        f"document.getElementById('v-count').textContent.replace(/,/g, '').startsWith('{expected} of')"
    )


def _cards(page: Any) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "article.sample",
        "els => els.map(e => ({state: e.dataset.state, task: e.dataset.task, text: e.innerText}))",
    )


@needs_chromium
def test_report_renders_and_filters_in_chromium(synthetic_run: Path, tmp_path: Path) -> None:
    with (synthetic_run / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"task": "task_0", "sample_id": "killed", "state": "o')  # a run killed mid-write
    records = _records(synthetic_run)
    html = write_report(synthetic_run).read_text(encoding="utf-8")
    assert not REMOTE.search(html)
    assert "1 unreadable line in samples.jsonl" in html
    with open_page(synthetic_run / "report.html", wait_for="body[data-viewer=ready]") as probe:
        page = probe.page
        assert probe.console_errors == [] and probe.remote_requests == []
        assert page.locator("div.chart").count() >= 8 and page.evaluate(EVERY_CHART_DRAWN)
        assert page.locator("#chart-scores .main-svg .bars .point").count() == 4  # one bar per task
        assert (
            page.locator("#chart-scores .main-svg .scatterlayer .point").count() == 2
        )  # ◆ human baseline of tasks 0 and 2
        _shown(page, len(records))

        judge_failed = [r for r in records if r["state"] == "judge_failed"]
        page.select_option("#f-state", label="judge_failed")
        _shown(page, len(judge_failed))
        cards = _cards(page)
        assert len(cards) == min(20, len(judge_failed)) and {c["state"] for c in cards} == {"judge_failed"}

        page.select_option("#f-state", label="ok")
        page.select_option("#f-task", label="task_1")
        _shown(page, sum(r["state"] == "ok" and r["task"] == "task_1" for r in records))
        first = _cards(page)[0]["text"]  # judge fields are read generically from the record
        assert "JUDGE_VERDICT" in first.upper() and "Ответ совпадает с эталоном" in first

        page.select_option("#f-state", label="all states")
        page.select_option("#f-task", label="task_0")
        page.fill("#f-min", "1")
        perfect = [r for r in records if r["task"] == "task_0" and r["score"] == 1.0]
        _shown(page, len(perfect))
        assert all(c["task"] == "task_0" and "1.000" in c["text"] for c in _cards(page))

        page.fill("#f-min", "")
        page.select_option("#f-task", label="all tasks")
        page.select_option("#f-variant", label="p1")
        _shown(page, sum(r["variant"] == "p1" for r in records))
        assert all("variant p1" in c["text"] for c in _cards(page))

        page.select_option("#f-variant", label="all variants")
        page.fill("#f-search", "примере 77.")
        _shown(page, 4)  # sample 77 of each of the four tasks
        assert sorted(c["task"] for c in _cards(page)) == ["task_0", "task_1", "task_2", "task_3"]

        page.fill("#f-search", "")
        _shown(page, len(records))
        page.click("#v-next")
        page.wait_for_function(
            "document.body.dataset.viewer === 'ready' && "
            "document.getElementById('v-page').textContent.startsWith('page 2')"
        )
        assert _cards(page)[0]["text"].count("task_0-000020") == 1
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 20_000


@needs_chromium
def test_compare_page_renders_in_chromium(tmp_path: Path) -> None:
    a = write_synthetic_run(tmp_path / "run-a", n_samples=200, skill=0.4, seed=1)
    b = write_synthetic_run(tmp_path / "run-b", n_samples=200, skill=0.7, seed=2)
    paths = write_comparison(compare_runs([a, b]), tmp_path / "cmp")
    assert not REMOTE.search(paths["html"].read_text(encoding="utf-8"))
    with open_page(paths["html"], wait_for=".main-svg") as probe:
        assert probe.console_errors == [] and probe.remote_requests == []
        page = probe.page
        page.wait_for_function(EVERY_CHART_DRAWN)
        assert page.locator("div.chart").count() == 2  # scores + one forest plot for the single pair
        page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
    assert (tmp_path / "compare.png").stat().st_size > 20_000


@contextmanager
def _report_page(run: Path, records: list[dict[str, Any]]) -> Iterator[Any]:
    """The report of a run made of ``records``, opened once its sample viewer is ready."""
    (run / "samples.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    write_report(run)
    with open_page(run / "report.html", wait_for="body[data-viewer=ready]") as probe:
        yield probe


@needs_chromium
def test_judge_record_shows_each_call_verdict_and_the_judges_words(tmp_path: Path) -> None:
    run = tmp_path / "judged"
    run.mkdir()
    attempt = {"raw": "[FEEDBACK] Ошибок нет. [RESULT] 2 [END]", "verdict": 2.0, "error": None}
    failed = {"raw": "не знаю", "verdict": None, "error": "unparseable verdict"}
    judge = {
        "judge": "replay/judge.jsonl",
        "version": "v1",
        "key": "js",
        "value": 0.5,
        "reason": None,
        "calls": [
            {"label": "literacy@universal", "attempts": [attempt], "verdict": 2.0},
            {"label": "initiative@universal", "attempts": [failed, attempt], "verdict": 2.0},
        ],
    }
    records = [
        {
            "task": "pollux",
            "sample_id": f"i{i}",
            "state": "ok",
            "score": 1.0,
            "response": f"Ответ {i}",
            "judge": judge,
        }
        for i in range(2)
    ]
    with _report_page(run, records) as probe:
        shown = probe.page.inner_text("article.sample .field.judge")
        assert probe.console_errors == []
    assert shown.splitlines()[1:] == [
        "replay/judge.jsonl: js = 0.5",
        "• literacy@universal: verdict 2",
        "    output: [FEEDBACK] Ошибок нет. [RESULT] 2 [END]",
        "• initiative@universal: verdict 2",
        "    attempt 1 output: не знаю",
        "    attempt 1 error: unparseable verdict",
        "    attempt 2 output: [FEEDBACK] Ошибок нет. [RESULT] 2 [END]",
    ]


@needs_chromium
def test_each_repeat_is_a_card_of_its_own_with_its_repeat_index(tmp_path: Path) -> None:
    run = tmp_path / "repeats"
    run.mkdir()
    records = [
        {
            "task": "t",
            "sample_id": "s1",
            "state": "ok",
            "score": float(r),
            "response": f"ответ {r}",
            "repeat": r,
        }
        for r in range(2)
    ]
    with _report_page(run, records) as probe:
        _shown(probe.page, 2)
        cards = sorted(c["text"] for c in _cards(probe.page))
        assert probe.console_errors == []
    assert ["repeat 0" in cards[0], "repeat 1" in cards[1]] == [True, True]
    assert "ответ 0" in cards[0] and "ответ 1" in cards[1]


@needs_chromium
def test_an_agent_episode_shows_step_by_step_with_the_images_its_tools_showed(tmp_path: Path) -> None:
    from PIL import Image

    run = tmp_path / "agent"
    (run / "episodes").mkdir(parents=True)
    Image.new("RGB", (12, 8), "red").save(run / "episodes" / "t-s-step0.png")
    zoom = {"id": "a", "name": "zoom", "arguments": '{"x0": 0}'}
    fly = {"id": "b", "name": "fly", "arguments": "{}"}
    outcomes = [
        {
            "call_id": "a",
            "name": "zoom",
            "state": "ok",
            "output": "zoom ×3",
            "images": ["episodes/t-s-step0.png"],
        },
        {
            "call_id": "b",
            "name": "fly",
            "state": "unknown_tool",
            "output": "",
            "cause": "step 0: unknown tool 'fly'",
        },
    ]
    episode = {
        "environment": "workbench",
        "steps": [
            {"index": 0, "text": "Посмотрю ближе.", "tool_calls": [zoom, fly], "outcomes": outcomes},
            {
                "index": 1,
                "text": "",
                "tool_calls": [{"id": "c", "name": "submit", "arguments": '{"answer": "7"}'}],
            },
        ],
        "end": "submitted",
        "end_reason": "step 1: submitted",
        "tokens": 40,
    }
    record = {"task": "t", "sample_id": "s", "state": "ok", "score": 1.0, "response": "7", "episode": episode}
    with _report_page(run, [record]) as probe:
        _shown(probe.page, 1)
        text = probe.page.inner_text("article.sample")
        loaded = probe.page.eval_on_selector_all(
            "article.sample ol img", "els => els.map(e => [e.getAttribute('src'), e.naturalWidth])"
        )
        assert probe.console_errors == []
    assert "episode: submitted — step 1: submitted (2 steps, 40 tokens)" in text
    assert "Посмотрю ближе." in text and 'zoom({"x0": 0})' in text
    assert "step 0: unknown tool 'fly'" in text
    assert loaded == [["episodes/t-s-step0.png", 12]]
