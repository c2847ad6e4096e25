"""``--tasks megabench:PATH``: MEGA-Bench rows (HF schema) from JSONL, Parquet or a saved HF dataset.

Each ``task_name`` becomes a task whose samples keep the row ``id`` (as a string). Options may
follow the path as a query string: ``megabench:rows.jsonl?cot=1&media_root=/data/mega``

- ``cot``: ``1``/``0`` rewrites the 1-shot demo block into the CoT / non-CoT template; absent, the
  dataset's own ``example_text`` is used as is (its mode is detected and recorded);
- ``media_root``: folder media paths are relative to (default: the rows file's folder, or
  ``$MEGABENCH_MEDIA_ROOT``);
- ``check_media``: ``0`` skips the media-file existence check;
- ``judge_media``: ``task`` (default: each Open task's own "with image" setting), ``always`` or
  ``never`` send the query media to the judge.

Keyword metadata (application, input/output format, skills, number of visual inputs) comes from an
``all_task_meta.json`` beside the rows (or ``$MEGABENCH_TASK_META``) when present; the Core/Open
split and the visual-input count are derived from the rows otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from omnieval.benchmarks.megabench.judge import judge_config_error
from omnieval.benchmarks.megabench.judge_protocol import judge_spec
from omnieval.benchmarks.megabench.metrics._table import JUDGE
from omnieval.benchmarks.megabench.prompt import detect_cot
from omnieval.benchmarks.megabench.rows import TASK_FIELDS, RowContext, row_to_sample
from omnieval.errors import SourceError, TaskFileError
from omnieval.sources.ids import IdLedger
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_located_rows, row_unit
from omnieval.sources.task import Task
from omnieval.types import GenerationConfig, MediaPolicy, MetricRef, PluginRef, PromptSpec, Sample, TaskSpec

__all__ = ["import_megabench", "split_options"]

ORACLE_TEMPLATE = "{{ sample.metadata['megabench_oracle'] }}"


def split_options(spec: str) -> tuple[Path, dict[str, str]]:
    """``PATH?k=v&...`` → (path, options); unknown options are an error."""
    path, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - {"cot", "media_root", "check_media", "judge_media"})
    if unknown:
        raise TaskFileError(
            f"megabench: unknown option(s) {unknown}; known: cot, media_root, check_media, judge_media",
            path=path,
        )
    if options.get("judge_media", "task") not in ("task", "always", "never"):
        raise TaskFileError(
            f"megabench: judge_media must be task, always or never, got {options['judge_media']!r}", path=path
        )
    return Path(path).expanduser().resolve(), options


def _kind(path: Path) -> str:
    """The reader for a rows file or folder."""
    if path.is_dir():
        if (
            (path / "dataset_info.json").exists()
            or (path / "dataset_dict.json").exists()
            or (path / "state.json").exists()
        ):
            return "hf_disk"
        if any(path.glob("*.parquet")):
            return "parquet"
        raise SourceError("folder holds neither Parquet files nor a saved HF dataset", path=str(path))
    return {".jsonl": "jsonl", ".json": "json", ".parquet": "parquet"}.get(path.suffix.lower(), "jsonl")


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, row)``: the JSONL line or 1-based row number, for messages."""
    for _, line, row in read_located_rows(_kind(path), path=path):
        yield line, row


def _task_meta(path: Path) -> dict[str, Any]:
    candidates = [
        os.environ.get("MEGABENCH_TASK_META", ""),
        str((path if path.is_dir() else path.parent) / "all_task_meta.json"),
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            try:
                data = json.loads(Path(candidate).read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise SourceError(f"not valid JSON ({exc.msg})", path=candidate) from None
            return data if isinstance(data, dict) else {}
    return {}


def _num_input(samples: list[Sample]) -> str | None:
    if any(m.kind == "video" for s in samples for m in s.media):
        return "video"
    counts = [s.metadata["megabench_media_counts"] for s in samples]
    most = max((c[0] + c[2] for c in counts), default=0)
    if most == 0:
        return None
    for limit, label in ((1, "1-image"), (3, "2-3 images"), (5, "4-5 images"), (8, "6-8 images")):
        if most <= limit:
            return label
    return "9-image or more"


def _metadata(
    name: str, samples: list[Sample], first: dict[str, Any], meta: dict[str, Any], cot: bool | None
) -> dict[str, Any]:
    info = samples[0].metadata["metric_info"]
    judged = any(str(m).lower() in JUDGE for m in (info.get("field_score_function") or {}).values())
    entry = meta.get(name) or {}
    return {
        "megabench": {
            "set": "open" if judged else "core",
            "eval_type": "llm" if judged else "rule",
            "cot": cot,
            "app": entry.get("app"),
            "taxonomy_tree_path": entry.get("taxonomy_tree_path"),
            "input_format": entry.get("input_format"),
            "output_format": entry.get("output_format"),
            "skills": list(entry.get("skills") or []),
            "num_input": entry.get("num_input") or _num_input(samples),
            "num_demo": 1 if (first.get("example_text") or "").strip() else 0,
            "num_query": len(samples),
        }
    }


def _spec(
    name: str,
    samples: list[Sample],
    first: dict[str, Any],
    meta: dict[str, Any],
    cot_option: str | None,
    judge_media: str = "task",
) -> TaskSpec:
    cot = {"1": True, "0": False}.get(cot_option or "")
    renderer_options: dict[str, Any] = {} if cot is None else {"cot": cot}
    recorded = cot if cot is not None else detect_cot(str(first.get("example_text") or ""))
    kinds = {m.kind for s in samples for m in s.media}
    metadata = _metadata(name, samples, first, meta, recorded)
    return TaskSpec(
        name=name,
        description=str(first.get("task_description") or "")[:300],
        modalities=("text", *sorted(kinds)),  # type: ignore[arg-type]
        tags=("megabench",),
        groups=("megabench", f"megabench_{metadata['megabench']['set']}"),
        language="en",
        prompt=PromptSpec(
            renderer=PluginRef(name="megabench", options=renderer_options), target_template=ORACLE_TEMPLATE
        ),
        parser=PluginRef(name="megabench"),
        metrics=(MetricRef(name="megabench.query_score", alias="megabench_score"),),
        score="megabench_score",
        truncated="score_text",  # the original evaluator scores the text returned, cut off or not
        generation=GenerationConfig(max_tokens=8192),
        media=MediaPolicy(image_max_side=1000),
        metadata=metadata,
        judge=judge_spec(samples[0].metadata["metric_info"], media=judge_media),
    )


def _check_same_task_fields(first: dict[str, Any], row: dict[str, Any], path: str) -> None:
    for field in TASK_FIELDS:
        if (first.get(field) or "") != (row.get(field) or ""):
            raise SourceError(
                f"task {row.get('task_name')!r}: {field} differs from the task's first row (id "
                f"{first.get('id')})",
                path=path,
                sample_id=str(row.get("id")),
                field=field,
            )


def _check_judge_configs(grouped: dict[str, list[Sample]], path: str) -> None:
    """An Open task's judge prompt must build for every query, so a broken config fails at import."""
    for samples in grouped.values():
        for sample in samples:
            problem = judge_config_error(sample)
            if problem:
                raise SourceError(problem, path=path, sample_id=sample.id, field="metric_info")


@register_importer("megabench")
def import_megabench(spec: str) -> list[Task]:
    """Tasks from MEGA-Bench rows, one per ``task_name``, in first-seen order."""
    path, options = split_options(spec)
    if not path.exists():
        raise SourceError("file not found", path=str(path))
    root = (
        options.get("media_root")
        or os.environ.get("MEGABENCH_MEDIA_ROOT")
        or str(path if path.is_dir() else path.parent)
    )
    ctx = RowContext(
        path=str(path), media_root=Path(root), check_media=options.get("check_media", "1") != "0"
    )
    firsts: dict[str, dict[str, Any]] = {}
    grouped: dict[str, list[Sample]] = {}
    ledgers: dict[str, IdLedger] = {}
    unit = row_unit(_kind(path))
    digest = hashlib.sha256()
    for line, row in _rows(path):
        name = str(row.get("task_name") or "")
        if not name:
            raise SourceError(
                "empty task_name", path=str(path), sample_id=str(row.get("id")), field="task_name"
            )
        sample = row_to_sample(row, ctx)
        ledger = ledgers.setdefault(name, IdLedger(path=f"{path} (task {name})", field="id", unit=unit))
        ledger.add(sample.id, line)  # ids are unique within a task; tasks may reuse each other's
        if name in firsts:
            _check_same_task_fields(firsts[name], row, str(path))
        else:
            firsts[name] = row
        grouped.setdefault(name, []).append(sample)
        digest.update(json.dumps(row, sort_keys=True, default=str).encode())
    if not grouped:
        raise SourceError("no rows", path=str(path))
    _check_judge_configs(grouped, str(path))
    meta = _task_meta(path)
    fingerprint = digest.hexdigest()[:16]
    return [
        Task.from_samples(
            _spec(n, s, firsts[n], meta, options.get("cot"), options.get("judge_media", "task")),
            s,
            origin=f"megabench:{path}",
            data_fingerprint=fingerprint,
        )
        for n, s in grouped.items()
    ]
