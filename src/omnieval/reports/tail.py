"""The end of a run made ready while its requests wait on the model.

At a model's latency the process is mostly idle; the end of a run (confidence intervals, the report)
was ~0.1–0.2 s of imports and ~0.05 s of re-reading and re-rendering every prompt for the sample viewer.
:class:`TailWarmUp` imports on a thread and renders the prompts on the run's own loop between responses;
the report takes the rendered prompts from it. It starts once the first sample is recorded: started
with the run, it competed with the imports and set-up before the first request and delayed it as much.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.reports.views import PromptSource

__all__ = ["WARM_UP_THREAD", "TailWarmUp", "load_tail_modules", "load_with", "warming_up"]

WARM_UP_THREAD = "omnieval-warm-up"


class TailWarmUp:
    """Called once, with the run's tasks, on the run's event loop as it records its first sample
    (``on_first_record``): starts the thread that imports the tail's modules, and renders the sample
    viewer's prompts on that loop between responses (a thread rendering them competed with the loop for
    the GIL and cost more than it saved): the samples the run handed over (:meth:`observe`, the run's
    ``on_sample``), else samples it reads itself (:meth:`PromptSource.prerender_steps`). Without
    ``enabled`` a call does nothing (a library call opts in; the CLI does); without ``report_dir`` no
    prompt is rendered ahead."""

    def __init__(
        self,
        *,
        enabled: bool,
        report_dir: Path | None = None,
        samples_of: Callable[[Any], Iterable[Any]] | None = None,
    ) -> None:
        self.enabled = enabled
        self.report_dir = report_dir
        self.samples_of = samples_of
        """The samples the run takes of a task (its ``--limit``, ``--sample-ids``); default all."""
        self._thread: threading.Thread | None = None
        self._prompts: PromptSource | None = None
        self._rendering: asyncio.Task[None] | None = None
        self._observed: asyncio.Event | None = None

    def observe(self, task: Any, sample: Any) -> None:
        """``on_sample``: a sample the run read, held for the sample viewer, so the prompts are rendered
        from the run's own samples and the task data is not read a second (and third) time."""
        if not self.enabled or self.report_dir is None:
            return
        if self._prompts is None:
            from omnieval.reports.views import PromptSource

            self._prompts = PromptSource((), report_dir=self.report_dir)
        self._prompts.observe(task, sample)
        if self._observed is not None:
            self._observed.set()

    def __call__(self, tasks: Sequence[Any] = ()) -> None:
        if not self.enabled or self._thread is not None:
            return
        self._thread = threading.Thread(target=_load_on_thread, name=WARM_UP_THREAD)
        self._thread.start()
        if tasks and self.report_dir is not None:
            if self._prompts is not None:  # the run hands its samples over: nothing is read again
                for task in tasks:
                    self._prompts.tasks.setdefault(task.name, task)
            with contextlib.suppress(RuntimeError):  # no loop running here: the report renders them
                loop = asyncio.get_running_loop()
                from omnieval.reports.views import PromptSource

                if self._prompts is not None:
                    self._observed = asyncio.Event()
                    rendering = _render_observed(self._prompts, self._observed)
                else:
                    self._prompts = PromptSource(tasks, report_dir=self.report_dir)
                    rendering = _render(self._prompts, samples_of=self.samples_of)
                self._rendering = loop.create_task(rendering, name="omnieval-prompts-ahead")

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def prompts(self) -> PromptSource | None:
        """The run's prompts as far as they were rendered before its loop ended (``None`` before the
        run, or when it recorded nothing: its samples seen then may not cover its tasks)."""
        return self._prompts if self._thread is not None else None


async def _render(prompts: PromptSource, *, samples_of: Callable[[Any], Iterable[Any]] | None) -> None:
    """A step of prompts at a time; the run's loop cancels it as it ends (what is done stays usable)."""
    with contextlib.suppress(Exception):  # the report reads and renders what failed here
        for _ in prompts.prerender_steps(samples_of=samples_of):
            await asyncio.sleep(0)


async def _render_observed(prompts: PromptSource, observed: asyncio.Event) -> None:
    """The observed samples' prompts, a step at a time, waiting for more while the run reads on; the run's
    loop cancels it as it ends."""
    with contextlib.suppress(Exception):
        while True:
            for _ in prompts.render_observed_steps():
                await asyncio.sleep(0)
            observed.clear()
            await observed.wait()


def _load_on_thread() -> None:
    with _loading():
        load_tail_modules()


@contextlib.contextmanager
def warming_up(
    enabled: bool,
    *,
    report_dir: Path | None = None,
    samples_of: Callable[[Any], Iterable[Any]] | None = None,
) -> Iterator[TailWarmUp]:
    """The block gets the :class:`TailWarmUp` to hand the run as ``on_first_record``; its thread is joined
    when the block ends normally."""
    warm = TailWarmUp(enabled=enabled, report_dir=report_dir, samples_of=samples_of)
    yield warm
    warm.join()


def load_tail_modules() -> None:
    """What only the end of a run needs: numpy and its quantiles (the CIs), the report's page template,
    rich (the results table) and the plotly bundle; a failure here is left for the tail to report."""
    with contextlib.suppress(Exception):  # the tail redoes what failed here
        from omnieval.aggregate.bootstrap import bootstrap_ci
        from omnieval.reports.embed import plotly_js_bytes
        from omnieval.reports.html import warm_up

        bootstrap_ci([0.0, 1.0], n_resamples=2)  # numpy.random, and numpy.ma that quantiles import
        plotly_js_bytes()
        warm_up()


_loading: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext
"""What the warm-up thread loads inside (:func:`load_with`)."""


def load_with(context: Callable[[], contextlib.AbstractContextManager[object]]) -> None:
    """Have every later warm-up thread load inside ``context()``: the command line's short GIL slices
    (:mod:`omnieval.cli.startup`), which change the whole process and so are never a library call's."""
    global _loading
    _loading = context
