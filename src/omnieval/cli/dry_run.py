"""``omnieval run --dry-run``: the requests a run would send (media as placeholders) and their totals."""

from __future__ import annotations

from typing import Any

from omnieval.backends import accepted_modalities
from omnieval.cli._common import fail
from omnieval.runner import RunConfig
from omnieval.runner.capability import plan_capabilities
from omnieval.runner.preview import Planned, Totals, plan_requests
from omnieval.runner.resolve import resolve_tasks
from omnieval.runs.notices import warn_unknown_sample_ids
from omnieval.types import Message, TextPart

__all__ = ["print_dry_run"]

SHOWN_PER_TASK = 3
"""Requests printed in full per task unless --limit or --sample-ids ask for others; totals cover all."""


def _content(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(
        p.text if isinstance(p, TextPart) else f"[{p.type}: {p.media.describe()}]" for p in message.content
    )


def _panel(planned: Planned) -> Any:
    from rich.markup import escape
    from rich.panel import Panel

    title = f"{planned.task} · {planned.sample.id}"
    if planned.request is None:
        return Panel(
            escape(planned.error or planned.skipped or ""), title=escape(f"{title} · not sent"), expand=False
        )
    req = planned.request
    if req.prompt is not None:
        body = escape(req.prompt) + (
            f"\n[dim]continuations: {escape(repr(req.continuations))}[/dim]" if req.continuations else ""
        )
    else:
        body = "\n".join(f"[bold]{m.role}[/bold]: {escape(_content(m))}" for m in req.messages)
    title += f" · variant {req.variant} · gold {list(req.targets)}"
    return Panel(body, title=escape(title), expand=False)


_COLUMNS = (
    "requests",
    "skipped",
    "failed",
    "prompt_chars",
    "est_prompt_tokens",
    "max_output_tokens",
    "images",
    "audio_s",
    "video_frames",
    "videos_as_files",
    "est_cost_usd",
    "max_cost_usd",
)


def _totals_table(per_task: dict[str, Totals]) -> Any:
    """One row per measure, one column per task (and ``all``), so it fits a terminal."""
    from rich.table import Table

    overall = Totals()
    for totals in per_task.values():
        for c in _COLUMNS:
            setattr(overall, c, getattr(overall, c) + getattr(totals, c))
    shown = {**per_task, "all": overall} if len(per_task) > 1 else dict(per_task)
    table = Table(title="dry run totals (tokens estimated: ~4 chars/token ASCII, ~2.5 other scripts)")
    table.add_column("")
    for name in shown:
        table.add_column(name, justify="right")
    for c in _COLUMNS:
        table.add_row(c.replace("_", " "), *(_cell(getattr(t, c)) for t in shown.values()))
    return table


def _cell(value: float) -> str:
    if isinstance(value, float) and 0 < value < 10:
        return f"{value:.4f}"
    return f"{value:.1f}" if isinstance(value, float) else f"{value:,}"


def print_dry_run(config: RunConfig) -> None:
    from rich.console import Console

    console = Console()
    show = None if config.sample_ids else (config.limit or SHOWN_PER_TASK)
    from omnieval.backends.prices import load_prices

    per_task: dict[str, Totals] = {}
    found: set[str] = set()
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    accepts = accepted_modalities(config.model, options=config.backend)
    for plan in plan_capabilities(tasks, model=config.model, accepts=accepts, blind=config.blind):
        style = {"refuse": "red", "skip_some": "yellow", "blind": "yellow"}.get(plan.action, "green")
        console.print(f"[{style}]{plan.line()}[/{style}]")
    table = load_prices(config.prices)
    price = table.find(config.model)
    if price is None and config.cost_limit is not None:
        table.require(config.model, why="--cost-limit needs the model's price")
    for planned in plan_requests(config, tasks=tasks):
        totals = per_task.setdefault(planned.task, Totals(price=price))
        totals.add(planned)
        if show is None or totals.requests + totals.skipped + totals.failed <= show:
            console.print(_panel(planned))
            if planned.request is not None and totals.requests == 1:
                req = planned.request
                console.print(
                    f"[dim]{planned.task}: generation {req.generation.model_dump()}; "
                    f"media {req.media_policy.model_dump(exclude_defaults=True)}[/dim]"
                )
        found.add(planned.sample.id)
    console.print(_totals_table(per_task))
    if price is None:
        console.print(
            f"[yellow]no price for {config.model} in the price table: cost not estimated (--prices FILE adds "
            "one)[/yellow]"
        )
    else:
        console.print(
            "[dim]est cost usd: estimated prompt tokens and every max_tokens at the table's prices (judges "
            "not "
            "included); max cost usd: the worst cases --cost-limit reserves before each request[/dim]"
        )
    for totals in per_task.values():
        for problem in totals.unreadable_media[:5]:
            console.print(f"[yellow]unreadable media (the run would record an error): {problem}[/yellow]")
    warn_unknown_sample_ids([i for i in config.sample_ids or () if i not in found])
    if not found:
        fail("no samples were selected (check --limit / --sample-ids)", code=1)  # as the run itself says
