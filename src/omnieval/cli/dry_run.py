"""``omnieval run --dry-run``: rendered requests with media as placeholders; no model is called."""

from __future__ import annotations

from typing import Any

from omnieval.prompts import build_request
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.types import Message, TextPart

__all__ = ["print_dry_run"]


def _content(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(p.text if isinstance(p, TextPart) else f"[{p.type}: {p.media.describe()}]" for p in message.content)


def print_dry_run(config: RunConfig) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.panel import Panel

    console = Console()
    limit = config.limit or 3
    for task in resolve_tasks(config.tasks):
        overrides: dict[str, Any] = {k: v for k, v in config.generation.items() if v is not None}
        generation = task.spec.generation.model_copy(update=overrides)
        for position, sample in enumerate(task.iter_samples()):
            if position >= limit:
                break
            request = build_request(sample, task.spec, position=position, seed=config.seed, generation=generation,
                                    media_policy=task.spec.media, blind=config.blind)  # fmt: skip
            body = "\n".join(f"[bold]{m.role}[/bold]: {escape(_content(m))}" for m in request.messages)
            title = escape(f"{task.name} · {sample.id} · variant {request.variant} · gold {list(request.targets)}")
            console.print(Panel(body, title=title, expand=False))
        console.print(f"[dim]{task.name}: generation {generation.model_dump()}[/dim]")
