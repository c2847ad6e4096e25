"""``--tasks art:DIR``: a generated ART set (``DIR/manifest.jsonl``) as one task per ART task.

Tasks are named ``art.AA`` ... ``art.TTLR`` (group ``art``). The model gets the WAV (question spoken
first, then the recordings) and the paper's Yes/No prompt in the set's edition language; the question
text stays in the sample metadata (for judges and reports), never in the prompt. ``art:DIR?tasks=AA,SR``
loads some tasks; ``art:DIR?subset=art-h`` only the ART-H subset marked in the manifest (24 per task,
12 Yes / 12 No, spread over templates).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from omnieval.benchmarks.art.judge import judge_spec
from omnieval.benchmarks.art.spec import TASKS, load_spec
from omnieval.errors import SourceError, TaskFileError
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_rows
from omnieval.sources.rows import row_to_sample
from omnieval.sources.task import Task
from omnieval.types import (
    FieldMap,
    GenerationConfig,
    MediaField,
    MediaPolicy,
    MetricRef,
    PromptSpec,
    Sample,
    TaskSpec,
)

__all__ = ["art_task_spec", "import_art", "read_manifest"]

REQUIRED = ("id", "task", "template", "question", "answer", "audio")
FIELDS = FieldMap(
    id="id",
    input=None,
    targets="answer",
    choices=None,
    media=(MediaField(field="audio", kind="audio"),),
    metadata=(
        "task",
        "template",
        "variant",
        "question",
        "answer_text",
        "language",
        "slots",
        "repeat",
        "duration_s",
    ),
)


def read_manifest(folder: Path) -> list[dict[str, Any]]:
    """Every row, checked: required fields, Yes/No answers, known tasks, audio files present."""
    path = folder / "manifest.jsonl"
    if not path.is_file():
        raise SourceError(
            "no manifest.jsonl: is this a folder written by `omnieval generate art`?", path=str(folder)
        )
    rows: list[dict[str, Any]] = []
    for index, row in read_rows("jsonl", path=path):
        line_no = index + 1
        where = {"path": str(path), "sample_id": str(row.get("id", f"line {line_no}"))}
        for key in REQUIRED:
            if key not in row:
                raise SourceError(f"instance {line_no}: missing field", field=key, **where)
        if row["answer"] not in ("Yes", "No"):
            raise SourceError(
                f"instance {line_no}: answer must be 'Yes' or 'No', got {row['answer']!r}",
                field="answer",
                **where,
            )
        if row["task"] not in TASKS:
            raise SourceError(f"instance {line_no}: unknown ART task {row['task']!r}", field="task", **where)
        if not (folder / row["audio"]).is_file():
            raise SourceError(
                f"instance {line_no}: audio file {row['audio']} not found", field="audio", **where
            )
        rows.append(row)
    if not rows:
        raise SourceError("manifest.jsonl has no instances", path=str(path))
    return rows


def art_task_spec(task: str, *, language: str, manifest: Path, protocol: str = "yesno") -> TaskSpec:
    """The Yes/No protocol (default), or the descriptive one: a free-form answer read by an LLM judge."""
    spec = _yes_no_spec(task, language=language, manifest=manifest)
    if protocol == "yesno":
        return spec
    edition = load_spec(language=language).edition
    # Without --judge the literal Yes/No rules still score the free-form answer (and say so); with a judge
    # its verdict (relevant and correct) replaces art.absolute_accuracy, the task score.
    judge = judge_spec().model_copy(
        update={
            "metrics": (
                MetricRef(name="judge_value", alias="art.absolute_accuracy", options={"key": "art_correct"}),
            )
        }
    )
    return spec.model_copy(
        update={
            "name": f"art.{task}.descriptive",
            "description": f"ART {task} (generated set {manifest.parent.name}): descriptive answers, "
            "LLM-judged",
            "prompt": PromptSpec(template="<audio>\n" + edition["descriptive_prompt"]),
            "generation": GenerationConfig(max_tokens=256),
            "judge": judge,
            "metadata": {**spec.metadata, "protocol": "descriptive"},
        }
    )


def _yes_no_spec(task: str, *, language: str, manifest: Path) -> TaskSpec:
    edition = load_spec(language=language).edition
    return TaskSpec(
        name=f"art.{task}",
        description=f"ART {task} (generated set {manifest.parent.name}): Yes/No audio reasoning",
        modalities=("audio",),
        tags=("audio", "generated", "art"),
        groups=("art",),
        language=language,
        prompt=PromptSpec(template="<audio>\n" + edition["prompt"]),
        parser="strip",  # type: ignore[arg-type]  # PluginRef accepts a bare name
        metrics=(
            MetricRef(name="art.absolute_accuracy"),
            MetricRef(name="art.relevant"),
            MetricRef(name="art.relative_accuracy", aggregate="art.over_relevant"),
        ),
        generation=GenerationConfig(max_tokens=32),
        media=MediaPolicy(audio_sample_rate=16000),
        metadata={
            "benchmark": "ART (001_5456aa0f01f8bdee)",
            "protocol": "yes/no",
            "human_baseline": "0.929 on ART-H (paper Table 6)",
            "manifest": str(manifest),
        },
    )


def _parse(spec: str) -> tuple[Path, tuple[str, ...] | None, bool, str]:
    path, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query).items()}
    unknown = sorted(set(options) - {"tasks", "subset", "protocol"})
    if unknown:
        raise TaskFileError(f"art: unknown option(s) {unknown}; known: tasks, subset, protocol", path=path)
    protocol = options.get("protocol", "yesno")
    if protocol not in ("yesno", "descriptive"):
        raise TaskFileError(f"art: protocol must be 'yesno' or 'descriptive', got {protocol!r}", path=path)
    if options.get("subset", "art-h") != "art-h":
        raise TaskFileError(f"art: subset must be 'art-h', got {options['subset']!r}", path=path)
    tasks = tuple(t.strip() for t in options["tasks"].split(",")) if "tasks" in options else None
    return Path(path).expanduser().resolve(), tasks, "subset" in options, protocol


@register_importer("art")
def import_art(spec: str) -> list[Task]:
    folder, only, art_h, protocol = _parse(spec)
    rows = read_manifest(folder)
    if art_h:
        rows = [r for r in rows if r.get("art_h")]
    languages = {r.get("language", "en") for r in rows}
    if len(languages) != 1:
        raise SourceError(
            f"manifest mixes edition languages {sorted(languages)}", path=str(folder / "manifest.jsonl")
        )
    language = languages.pop()
    manifest = folder / "manifest.jsonl"
    fingerprint = hashlib.sha256(manifest.read_bytes()).hexdigest()[:16]
    present = [t for t in TASKS if any(r["task"] == t for r in rows)]
    if only is not None:
        missing = sorted(set(only) - set(present))
        if missing:
            raise TaskFileError(
                f"art: task(s) {missing} are not in this set (it has {present})", path=str(folder)
            )
        present = [t for t in present if t in only]
    tasks = []
    for task in present:
        mine = [r for r in rows if r["task"] == task]

        def stream(mine: list[dict[str, Any]] = mine) -> Iterator[Sample]:
            for index, row in enumerate(mine):
                yield row_to_sample(row, index, FIELDS, path=str(manifest), base_dir=folder)

        tasks.append(
            Task(
                spec=art_task_spec(task, language=language, manifest=manifest, protocol=protocol),
                iter_samples=stream,
                base_dir=folder,
                size=len(mine),
                data_fingerprint=fingerprint,
                origin=f"art:{folder}",
            )
        )
    return tasks
