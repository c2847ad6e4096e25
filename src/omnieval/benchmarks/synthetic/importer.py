"""``--tasks generated:DIR``: run a set written by ``omnieval generate SUITE --output DIR``.

Rows of ``DIR/manifest.jsonl`` are grouped by their ``task`` field, one task each. How an answer is
checked follows the row's ``answer_type`` (every row of a task must agree; rows without one are
``number`` when the answer is a number, else ``word``):

* ``number``: the ``number`` parser and ``numeric_match`` (counts, sums, chart values, seconds);
* ``word`` / ``text``: the ``answer_marker`` parser and normalised ``exact_match`` (NFKC, case,
  punctuation, ё→е) for colour names, directions, categories and transcriptions;
* ``time``: ``clock_time_match`` (``H:MM``, hours modulo 12).

Every row is checked (fields, answer type, media file present) before any task is returned.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from omnieval.benchmarks.synthetic._core import MANIFEST
from omnieval.errors import SourceError, TaskFileError
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_rows
from omnieval.sources.rows import row_to_sample
from omnieval.sources.task import Task
from omnieval.textkit import parse_number
from omnieval.types import (
    FieldMap,
    GenerationConfig,
    MediaField,
    MediaPolicy,
    MetricRef,
    PluginRef,
    PromptSpec,
    Sample,
    SourceSpec,
    TaskSpec,
)

__all__ = ["ANSWER_TYPES", "import_generated"]

ANSWER_TYPES: dict[str, tuple[PluginRef, MetricRef, int]] = {
    "number": (PluginRef(name="number"), MetricRef(name="numeric_match"), 32),
    "word": (PluginRef(name="answer_marker"), MetricRef(name="exact_match"), 32),
    "text": (PluginRef(name="answer_marker"), MetricRef(name="exact_match"), 96),
    "time": (PluginRef(name="answer_marker"), MetricRef(name="clock_time_match"), 32),
}
"""answer_type → (parser, metric, max_tokens)."""

_MEDIA = ("image", "video", "audio")
_REQUIRED = ("id", "task", "question", "answer")
_METADATA = ("lang", "difficulty", "suite", "answer_type", "seed")


def _answer_type(row: dict[str, Any], where: dict[str, Any]) -> str:
    kind = row.get("answer_type")
    if kind is None:
        return "number" if parse_number(str(row["answer"])) is not None else "word"
    if kind not in ANSWER_TYPES:
        raise SourceError(
            f"unknown answer_type {kind!r} (known: {', '.join(ANSWER_TYPES)})", field="answer_type", **where
        )
    return str(kind)


def _check_row(row: dict[str, Any], index: int, *, manifest: Path, root: Path) -> tuple[str, str, str | None]:
    """(task, answer_type, media kind) of one row, or a SourceError naming the file, sample and field."""
    where: dict[str, Any] = {"path": str(manifest), "sample_id": str(row.get("id", f"#{index}"))}
    for field in _REQUIRED:
        if row.get(field) in (None, ""):
            raise SourceError("required field is missing or empty", field=field, **where)
    media = [kind for kind in _MEDIA if row.get(kind)]
    if len(media) > 1:
        raise SourceError(f"a row may carry one media path, found {media}", field=media[1], **where)
    for kind in media:
        if not (root / str(row[kind])).is_file():
            raise SourceError(f"media file {row[kind]!r} not found next to the manifest", field=kind, **where)
    return str(row["task"]), _answer_type(row, where), media[0] if media else None


def _spec(
    name: str, *, answer_type: str, media: str | None, lang: str, manifest: Path, policy: MediaPolicy
) -> TaskSpec:
    parser, metric, max_tokens = ANSWER_TYPES[answer_type]
    fields = FieldMap(
        input="question",
        targets="answer",
        choices=None,
        media=(MediaField(field=media, kind=media),) if media else (),  # type: ignore[arg-type]
        metadata=_METADATA,
    )
    return TaskSpec(
        name=name,
        description=f"generated set {manifest.parent.name}: {name} ({answer_type} answers)",
        modalities=(media,) if media else ("text",),  # type: ignore[arg-type]
        language=lang,
        tags=("generated", answer_type),
        groups=("generated",),
        source=SourceSpec(type="jsonl", path=str(manifest), fields=fields),
        prompt=PromptSpec(template="{{ input }}"),
        parser=parser,
        metrics=(metric,),
        generation=GenerationConfig(max_tokens=max_tokens),
        media=policy,
        metadata={"answer_type": answer_type, "manifest": str(manifest)},
    )


def _video_policy(rows: list[dict[str, Any]]) -> MediaPolicy:
    """Sample videos at their own frame rate (event seconds need every frame of the second), up to 64
    frames."""
    fps = [float(r["data"]["fps"]) for r in rows if isinstance(r.get("data"), dict) and "fps" in r["data"]]
    seconds = [
        float(r["data"]["seconds"])
        for r in rows
        if isinstance(r.get("data"), dict) and "seconds" in r["data"]
    ]
    if not fps:
        return MediaPolicy()
    rate = min(fps)
    return MediaPolicy(video_fps=rate, video_max_frames=max(1, min(64, int(rate * max(seconds or [16.0])))))


def _stream(
    rows: list[tuple[int, dict[str, Any]]], fields: FieldMap, manifest: Path
) -> Callable[[], Iterator[Sample]]:
    """A fresh sample iterator per pass over one task's rows."""

    def samples() -> Iterator[Sample]:
        for index, row in rows:
            yield row_to_sample(row, index, fields, path=str(manifest), base_dir=manifest.parent)

    return samples


@register_importer("generated")
def import_generated(path: str) -> list[Task]:
    """One task per ``task`` value of ``DIR/manifest.jsonl`` (``path`` may also name the manifest)."""
    given = Path(path).expanduser().resolve()
    manifest = given / MANIFEST if given.is_dir() else given
    if not manifest.is_file():
        raise TaskFileError(
            f"no {MANIFEST} here (write one with `omnieval generate SUITE --output DIR`)", path=str(given)
        )
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    kinds: dict[str, tuple[str, str | None]] = {}
    seen: set[str] = set()
    for index, row in read_rows("jsonl", path=manifest):
        task, answer_type, media = _check_row(row, index, manifest=manifest, root=manifest.parent)
        if str(row["id"]) in seen:
            raise SourceError("duplicate id", path=str(manifest), sample_id=str(row["id"]), field="id")
        seen.add(str(row["id"]))
        if kinds.setdefault(task, (answer_type, media)) != (answer_type, media):
            raise SourceError(
                f"task {task!r} mixes answer types or media ({kinds[task]} vs {(answer_type, media)})",
                path=str(manifest),
                sample_id=str(row["id"]),
                field="answer_type",
            )
        groups[task].append((index, row))
    if not groups:
        raise TaskFileError("the manifest has no rows", path=str(manifest))
    fingerprint = hashlib.sha256(manifest.read_bytes()).hexdigest()[:16]
    tasks = []
    for name, rows in groups.items():
        answer_type, media = kinds[name]
        lang = Counter(str(r.get("lang", "ru")) for _, r in rows).most_common(1)[0][0]
        policy = _video_policy([r for _, r in rows]) if media == "video" else MediaPolicy()
        spec = _spec(name, answer_type=answer_type, media=media, lang=lang, manifest=manifest, policy=policy)
        tasks.append(
            Task(
                spec=spec,
                iter_samples=_stream(rows, spec.source.fields, manifest),
                base_dir=manifest.parent,
                size=len(rows),
                data_fingerprint=fingerprint,
                origin=f"generated:{manifest.parent}",
            )
        )
    return tasks
