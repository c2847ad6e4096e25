"""Before the first request: what each task will do with this model's input modalities.

A task runs when the model takes every modality it declares; with some of them it runs, and samples
carrying the others are ``skipped`` with the reason; with none of its media modalities it is refused
(the run stops before any request) unless ``--blind`` asks for the text-only control.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from omnieval.errors import ConfigError
from omnieval.sources import Task

__all__ = ["TaskPlan", "check_capabilities", "plan_capabilities"]

Action = Literal["run", "skip_some", "refuse", "blind"]


@dataclass(frozen=True)
class TaskPlan:
    """One task's fate: ``action`` and a sentence saying why."""

    task: str
    action: Action
    reason: str

    def line(self) -> str:
        return f"{self.task}: {self.reason}"


def plan_capabilities(
    tasks: Iterable[Task],
    *,
    model: str,
    accepts: frozenset[str],
    blind: bool,
    declined: Mapping[str, str] | None = None,
) -> list[TaskPlan]:
    """Per task: run, run with some samples skipped, refused, or run blind. ``declined``: modalities the
    model's server itself said it cannot take, in its own words (quoted in the refusal)."""
    plans = []
    taken = ", ".join(sorted(accepts))
    declined = declined or {}
    for task in tasks:
        media = {m for m in task.spec.modalities if m != "text"}
        missing = sorted(media - accepts)
        if blind and media:
            plans.append(
                TaskPlan(
                    task.name, "blind", f"runs blind ({', '.join(sorted(media))} removed: text-only control)"
                )
            )
        elif not missing:
            plans.append(
                TaskPlan(task.name, "run", f"runs ({model} takes {', '.join(sorted(media)) or 'text'})")
            )
        elif len(missing) < len(media):
            plans.append(
                TaskPlan(
                    task.name,
                    "skip_some",
                    f"runs; samples with {', '.join(missing)} are skipped ({model} takes {taken}"
                    f"{_server_words(missing, declined)})",
                )
            )
        else:
            plans.append(
                TaskPlan(
                    task.name,
                    "refuse",
                    f"refused: {model} does not take {', '.join(missing)} (the samples carry "
                    f"{_nouns(missing)}; it takes {taken}{_server_words(missing, declined)}); use --blind "
                    "for a text-only control",
                )
            )
    return plans


def _nouns(missing: Sequence[str]) -> str:
    """``image`` → ``images``: the media the samples carry, as a user names them."""
    return ", ".join(m if m == "audio" else f"{m}s" for m in missing)


def _server_words(missing: Sequence[str], declined: Mapping[str, str]) -> str:
    said = sorted({declined[m] for m in missing if m in declined})
    return "; the server says so: " + "; ".join(said) if said else ""


def check_capabilities(plans: list[TaskPlan]) -> None:
    """Stop before any request when a task is refused, naming every task's plan."""
    if any(p.action == "refuse" for p in plans):
        raise ConfigError(
            "the model cannot take some tasks' inputs:\n" + "\n".join(f"  {p.line()}" for p in plans)
        )
