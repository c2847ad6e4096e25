"""The sample viewer's prompts read and rendered while a run waits on the model (``PromptSource.prerender``
on the tail's warm-up thread): the report built from them is the one built at the end, and it then reads
the task data no second time."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import omnieval
from omnieval.reports.html import write_report
from omnieval.reports.sidecar import SIDECAR, read_part
from omnieval.reports.tail import TailWarmUp
from omnieval.reports.views import PromptSource
from omnieval.runner import resolve_tasks
from omnieval.sources import Task
from omnieval.types import PromptVariant


def _run(tmp_path: Path, n: int = 30) -> tuple[Path, list[Task]]:
    data = tmp_path / "qa.jsonl"
    rows = [{"id": f"q{i}", "question": f"Сколько будет {i} + 1?", "answer": str(i + 1)} for i in range(n)]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    omnieval.evaluate(model="baseline/oracle", tasks=[f"jsonl:{data}"], output=out, quiet=True)
    return out, resolve_tasks([f"jsonl:{data}"])


def _parts(run: Path) -> list[dict[str, Any]]:
    return [read_part(p) for p in sorted((run / SIDECAR).glob("c*.js"))]


def _unreadable(task: Task) -> Task:
    def boom() -> Iterator[Any]:
        raise AssertionError(f"the data of {task.name} was read again")

    return dataclasses.replace(task, iter_samples=boom)


def test_prompts_rendered_ahead_give_the_same_viewer_and_no_second_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, tasks = _run(tmp_path)
    write_report(out, tasks=tasks)
    expected = _parts(out)
    assert "Сколько будет 7 + 1?" in json.dumps(expected, ensure_ascii=False)

    ahead = PromptSource(tasks, report_dir=out)
    assert ahead.prerender() == 30
    ahead.tasks = {name: _unreadable(task) for name, task in ahead.tasks.items()}
    monkeypatch.setattr(PromptSource, "_prompt", staticmethod(lambda *a: "rendered again"))
    write_report(out, tasks=tasks, prompts=ahead)
    assert _parts(out) == expected


def test_a_run_past_the_cap_is_left_to_the_report(tmp_path: Path) -> None:
    out, tasks = _run(tmp_path)
    write_report(out, tasks=tasks)
    expected = _parts(out)
    ahead = PromptSource(tasks, report_dir=out)
    assert ahead.prerender(max_samples=10) == 0
    assert ahead.samples == {}  # nothing held for a run the report spills to disk
    write_report(out, tasks=tasks, prompts=ahead)
    assert _parts(out) == expected


def test_a_task_with_several_prompt_variants_is_rendered_at_the_end(tmp_path: Path) -> None:
    """Which variant a sample gets is in its record: rendering one ahead would be wasted for the others."""
    out, (task,) = _run(tmp_path, n=4)
    variants = (
        PromptVariant(id="a", template="A {{ input }}"),
        PromptVariant(id="b", template="B {{ input }}"),
    )
    spec = task.spec.model_copy(update={"prompt": task.spec.prompt.model_copy(update={"variants": variants})})
    ahead = PromptSource([dataclasses.replace(task, spec=spec)], report_dir=out)
    assert ahead.prerender() == 0 and ahead.samples == {}


def test_a_prompts_folder_other_than_the_report_s_is_not_used(tmp_path: Path) -> None:
    out, tasks = _run(tmp_path)
    write_report(out, tasks=tasks)
    expected = _parts(out)
    elsewhere = PromptSource([_unreadable(t) for t in tasks], report_dir=tmp_path / "other")
    write_report(out, tasks=tasks, prompts=elsewhere)  # media would land in the wrong folder
    assert _parts(out) == expected


def _on_a_loop(warm: TailWarmUp, tasks: list[Task], *, steps: int) -> None:
    """What a run does: call the warm-up on its loop, then give the loop ``steps`` turns and end."""

    async def run() -> None:
        warm(tasks)
        warm(tasks)  # once per run: a second call starts nothing
        for _ in range(steps):
            await asyncio.sleep(0)

    asyncio.run(run())
    warm.join()


def test_the_warm_up_renders_the_prompts_on_the_run_s_loop(tmp_path: Path) -> None:
    out, tasks = _run(tmp_path, n=5)
    warm = TailWarmUp(enabled=True, report_dir=out)
    assert warm.prompts() is None  # not started
    _on_a_loop(warm, tasks, steps=20)
    prompts = warm.prompts()
    assert prompts is not None and prompts.report_dir == out
    assert {name: len(samples) for name, samples in prompts.samples.items()} == {"qa": 5}
    assert len(prompts._rendered) == 5

    off = TailWarmUp(enabled=False, report_dir=out)
    _on_a_loop(off, tasks, steps=20)
    assert off.prompts() is None
    no_loop = TailWarmUp(enabled=True, report_dir=out)
    no_loop(tasks)  # called off any event loop (a Ray run's driver): nothing is rendered ahead
    no_loop.join()
    assert no_loop.prompts() is None


def test_prompts_cut_short_by_the_run_s_end_still_make_the_same_report(tmp_path: Path) -> None:
    """The run's loop ends whenever its last answer is in: the rendering stops at a step, and the report
    renders the rest."""
    out, tasks = _run(tmp_path, n=200)
    write_report(out, tasks=tasks)
    expected = _parts(out)
    warm = TailWarmUp(enabled=True, report_dir=out)
    _on_a_loop(warm, tasks, steps=9)  # 200 samples read in 7 steps, then 2 steps of 32 prompts
    prompts = warm.prompts()
    assert prompts is not None and 0 < len(prompts._rendered) < 200
    write_report(out, tasks=tasks, prompts=prompts)
    assert _parts(out) == expected


def _prompts_handed_to_the_report(monkeypatch: pytest.MonkeyPatch) -> list[PromptSource | None]:
    """The ``prompts`` each later ``write_report`` call receives (the report still written)."""
    import omnieval.reports.html

    handed: list[PromptSource | None] = []

    def spy(run_dir: Path, results: Any = None, **kwargs: Any) -> Path:
        handed.append(kwargs.get("prompts"))
        return write_report(run_dir, results, **kwargs)

    monkeypatch.setattr(omnieval.reports.html, "write_report", spy)
    return handed


def test_a_run_hands_the_report_the_prompts_it_rendered_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``evaluate``'s own path, warm-up on (as ``omnieval run`` runs it)."""
    handed = _prompts_handed_to_the_report(monkeypatch)
    data = tmp_path / "qa.jsonl"
    rows = [{"id": f"q{i}", "question": f"Столица страны {i}?", "answer": "Париж"} for i in range(300)]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    omnieval.evaluate(model="baseline/oracle", tasks=[f"jsonl:{data}"], output=out, quiet=True, warm_up=True)
    (prompts,) = handed
    assert prompts is not None and prompts.samples  # read while the run went on
    assert "Столица страны 299?" in json.dumps(_parts(out), ensure_ascii=False)


def test_a_limited_run_renders_ahead_only_the_samples_it_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--limit 3`` of a large task: rendering the rest would cost the run's loop for nothing."""
    _run(tmp_path, n=30)  # the data (and a first run, before the spy)
    handed = _prompts_handed_to_the_report(monkeypatch)
    task = f"jsonl:{tmp_path / 'qa.jsonl'}"
    omnieval.evaluate(
        model="baseline/oracle", tasks=[task], output=tmp_path / "limited", limit=3, quiet=True, warm_up=True
    )
    (prompts,) = handed
    assert prompts is not None and set(prompts.samples["qa"]) == {"q0", "q1", "q2"}


def test_samples_the_run_hands_over_make_the_same_report_without_reading_the_data(tmp_path: Path) -> None:
    """``on_sample``: the run's own samples are kept and rendered on its loop; the report reads the data
    no second time (a fast model's run read it three times: the run, the warm-up, the report)."""
    out, tasks = _run(tmp_path, n=70)
    write_report(out, tasks=tasks)
    expected = _parts(out)
    (task,) = tasks
    samples = list(task.iter_samples())
    unreadable = [_unreadable(task)]
    warm = TailWarmUp(enabled=True, report_dir=out)

    async def run() -> None:
        for sample in samples[:40]:  # read before the first record
            warm.observe(unreadable[0], sample)
        warm(unreadable)
        for sample in samples[40:]:
            warm.observe(unreadable[0], sample)
            await asyncio.sleep(0)
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(run())
    warm.join()
    prompts = warm.prompts()
    assert prompts is not None and len(prompts._rendered) == 70  # all rendered on the run's loop
    write_report(out, tasks=unreadable, prompts=prompts)
    assert _parts(out) == expected


def test_held_samples_are_let_go_at_the_cap(tmp_path: Path) -> None:
    out, (task,) = _run(tmp_path, n=12)
    write_report(out, tasks=[task])
    expected = _parts(out)
    source = PromptSource([task], report_dir=out)
    for sample in task.iter_samples():
        source.observe(task, sample, max_samples=5)
    assert source.samples == {}  # the task past the cap is let go whole: the report reads it
    write_report(out, tasks=[task], prompts=source)
    assert _parts(out) == expected
