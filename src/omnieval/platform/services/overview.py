"""What the pages show beyond the REST API's data: a benchmark's tasks by modality, the top of its boards,
a submission's headline scores and a model's other submissions. Read-only; never hidden answers."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from omnieval.platform.errors import NotFound
from omnieval.platform.services import publication
from omnieval.platform.settings import Settings
from omnieval.platform.storage.models import Benchmark, Submission

__all__ = ["benchmark_overview", "headline", "modality_of_tasks", "model_history"]

TOP = 3
MODALITY_ORDER = ("text", "image", "audio", "video")


def modality_of_tasks(settings: Settings, bench: Benchmark) -> dict[str, list[str]]:
    """Task names by the modality their spec declares (the richest of image, audio, video; else ``text``),
    from the stored task specs (never the samples). Cached per benchmark version: the specs change only
    when the benchmark is (re)added, which bumps ``board_version``."""
    groups = _modalities(str(settings.answers), bench.name, bench.board_version, tuple(bench.tasks))
    return {m: list(names) for m, names in groups}


@functools.lru_cache(maxsize=64)
def _modalities(
    answers: str, name: str, version: int, tasks: tuple[str, ...]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from omnieval.types import TaskSpec

    folder = Path(answers) / name
    groups: dict[str, list[str]] = {}
    for task in tasks:
        spec_file = folder / f"{task}.spec.json"
        kinds: set[str] = set()
        if spec_file.exists():
            spec = TaskSpec.model_validate_json(spec_file.read_text(encoding="utf-8"))
            kinds = {str(m) for m in spec.modalities}
        modality = next((m for m in reversed(MODALITY_ORDER) if m in kinds), "text")
        groups.setdefault(modality, []).append(task)
    return tuple((m, tuple(sorted(groups[m]))) for m in MODALITY_ORDER if m in groups)


def benchmark_overview(session: Session, settings: Settings, bench: Benchmark) -> dict[str, Any]:
    """The home page's card of one benchmark: tasks by modality and the leaders of each board."""
    leaders = {}
    for board in publication.BOARDS:
        try:
            rows = publication.board(session, bench.name, board)["rows"]
        except (NotFound, KeyError):
            continue
        leaders[board] = rows[:TOP]
    return {
        "name": bench.name,
        "format": bench.format,
        "n_tasks": len(bench.tasks),
        "modalities": modality_of_tasks(settings, bench),
        "leaders": leaders,
    }


def headline(session: Session, row: Submission) -> dict[str, float]:
    """Total, Attempted, Coverage and per-modality scores of one scored submission, by its benchmark's
    own leaderboard scheme (the numbers its board row would show)."""
    from omnieval.aggregate import schemes
    from omnieval.registry import load_plugins

    bench = session.get(Benchmark, row.benchmark_id)
    results = publication.stored_results(row)
    if bench is None or results is None or not results.tasks:
        return {}
    load_plugins()
    rows = schemes.get(bench.scheme)([results.model_copy(update={"model": str(row.id)})]).get("rows") or []
    if not rows:
        return {}
    return {k: float(v) for k, v in rows[0].items() if isinstance(v, int | float) and not isinstance(v, bool)}


def model_history(session: Session, row: Submission) -> list[dict[str, Any]]:
    """The published submissions of the same model name by the same account, oldest first."""
    rows = session.scalars(
        select(Submission)
        .where(
            Submission.user_id == row.user_id,
            Submission.model_name == row.model_name,
            Submission.benchmark_id == row.benchmark_id,
            Submission.publication == "approved",
        )
        .order_by(Submission.id)
    ).all()
    return [{"id": r.id, "created_at": r.created_at, "boards": r.boards} for r in rows]
