"""One published MERA row (``instruction``, ``inputs``, ``outputs``, ``meta``) → one :class:`Sample`."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from omnieval.benchmarks.mera.catalog import MeraTask
from omnieval.benchmarks.mera.variants import (
    decode_mapping,
    dialogue_position,
    looks_like_media,
    mc_targets,
    media_source,
    normalize_id,
    normalize_inputs,
    option_values,
    resolve_media_path,
    rutie_fallback_id,
    slu_outputs,
)
from omnieval.errors import SourceError
from omnieval.types import MediaKind, MediaRef, Sample

__all__ = ["DIALOGUE_LEN", "RowContext", "row_id", "row_to_sample"]

DIALOGUE_LEN = 500
"""ruTiE: turns per dialogue, used to derive the dialogue from ``meta.id`` when no ``dialog_id`` is given."""


class RowContext:
    """Where rows come from: the task, its dataset folder and the file (for error messages)."""

    def __init__(self, task: MeraTask, dataset_dir: Path, file: Path, *, min_id: int = 0) -> None:
        self.task, self.dataset_dir, self.file, self.min_id = task, dataset_dir, file, min_id

    def error(self, message: str, *, sample_id: str | None, field: str) -> SourceError:
        return SourceError(
            f"{self.task.name}: {message}", path=str(self.file), sample_id=sample_id, field=field
        )


def media_fields(task: MeraTask, inputs: dict[str, Any]) -> dict[str, MediaKind]:
    """The catalogue's media fields plus any other media-like input (kind from its name).

    Media-like: a ``{bytes, path}`` / ``{array, sampling_rate}`` struct, raw bytes, or a string that
    names a media file (``videos/x.mp4``) under a field called ``image*``/``audio*``/``video*``.
    """
    fields: dict[str, MediaKind] = dict(task.media)
    for key, value in inputs.items():
        if key in fields or key in task.text or key.startswith("option_"):
            continue
        prefix = key.split("_")[0]
        if looks_like_media(key, value):
            fields[key] = prefix if prefix in ("image", "audio", "video") else task.modality  # type: ignore[assignment]
    return fields


def _media(
    ctx: RowContext, field: str, kind: MediaKind, value: Any, sample_id: str, instruction: str
) -> MediaRef | None:
    tag = f"<{field}>"
    try:
        source = media_source(value)
    except TypeError as exc:
        raise ctx.error(str(exc), sample_id=sample_id, field=f"inputs.{field}") from None
    if source is None:
        if tag in instruction:
            raise ctx.error(
                f"the instruction places {tag} but the media is absent",
                sample_id=sample_id,
                field=f"inputs.{field}",
            )
        return None
    if isinstance(source, bytes):
        return MediaRef(kind=kind, name=field, data=source)
    path = resolve_media_path(source, dataset_dir=ctx.dataset_dir, data_file=ctx.file)
    if path is None:
        raise ctx.error(
            f"media file {source!r} does not exist (looked under {ctx.dataset_dir})",
            sample_id=sample_id,
            field=f"inputs.{field}",
        )
    return MediaRef(kind=kind, name=field, path=str(path.resolve()))


def _dig(meta: dict[str, Any], dotted: str) -> Any:
    """A dotted ``meta`` key; when absent, the same leaf at the top or under ``categories``.

    The sources disagree on nesting (``meta.categories.category`` next to ``group_id: 316`` in the
    ruHHH-Video example), so ``group_id`` and the domain keys are looked up in both places.
    """
    node: Any = meta
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    if node is not None:
        return node
    leaf = dotted.rsplit(".", 1)[-1]
    categories = meta.get("categories")
    if meta.get(leaf) is not None:
        return meta.get(leaf)
    return categories.get(leaf) if isinstance(categories, dict) else None


def _targets(outputs: Any) -> tuple[str, ...]:
    if outputs is None or outputs == "":
        return ()
    if isinstance(outputs, dict | list):
        return (json.dumps(outputs, ensure_ascii=False),)
    return (str(outputs),)


_PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")


def _format(
    ctx: RowContext, instruction: str, inputs: dict[str, Any], sample_id: str, media: dict[str, MediaKind]
) -> str:
    """``instruction.format(**inputs)`` as MERA's ``doc_to_text``; media become ``<field>`` tags.

    Null inputs (an absent ``option_c`` of a binary ruEnvAQA question) format as empty text. An
    instruction with unescaped literal braces (a JSON example) falls back to replacing only the
    ``{name}`` placeholders; a placeholder naming a missing input is an error either way.
    """
    values = {k: ("" if v is None else v) for k, v in inputs.items() if k not in media}
    values |= {field: f"<{field}>" for field in media}
    if ctx.task.dialogue:
        values.setdefault("context", "")  # ruTiE history travels as chat turns, not inline
    missing = next((m for m in _PLACEHOLDER.findall(instruction) if m not in values), None)
    try:
        if missing is None:
            return instruction.format(**values)
    except (KeyError, ValueError, IndexError):
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), instruction)
    raise ctx.error(
        f"the instruction uses {{{missing}}} which is not in inputs",
        sample_id=sample_id,
        field=f"inputs.{missing}",
    )


def _metadata(
    ctx: RowContext, meta: dict[str, Any], inputs: dict[str, Any], media: list[MediaRef]
) -> dict[str, Any]:
    task = ctx.task
    out: dict[str, Any] = {"meta": meta, "prompt_sha": ""}
    if task.domain_field:
        out["domain"] = _dig(meta, task.domain_field)
    if task.group_field:
        group = _dig(meta, task.group_field)
        if group is None:  # ruHHH-Image: a group is the same image and question
            h = hashlib.sha256(str(inputs.get("question", "")).encode())
            for ref in media:
                h.update(ref.data or (ref.path or "").encode())
            group = h.hexdigest()[:16]
        out["mera_group"] = str(group)
    return out


def row_id(ctx: RowContext, meta: Any) -> str:
    """``meta.id`` as text (ruTiE rows without one take MERA's packer id)."""
    if not isinstance(meta, dict):
        raise ctx.error("every row needs a meta mapping with id", sample_id=None, field="meta")
    sample_id = normalize_id(meta.get("id"))
    if sample_id is None and ctx.task.dialogue:
        sample_id = rutie_fallback_id(meta)  # MERA's packer rule for ruTiE rows without meta.id
    if sample_id is None:
        raise ctx.error(f"every row needs meta.id, got {meta.get('id')!r}", sample_id=None, field="meta.id")
    return sample_id


def _check_row(ctx: RowContext, row: dict[str, Any], sample_id: str) -> tuple[str, dict[str, Any]]:
    instruction, inputs = row.get("instruction"), decode_mapping(row.get("inputs"))
    if not isinstance(instruction, str) or not instruction.strip():
        raise ctx.error("missing or empty instruction", sample_id=sample_id, field="instruction")
    if not isinstance(inputs, dict):
        raise ctx.error("inputs must be a mapping", sample_id=sample_id, field="inputs")
    # Only the placeholders the instruction uses are required (``_format``), as in MERA's own
    # ``doc_to_text``: ``instruction.format(**inputs)`` with whatever inputs the row has.
    return instruction, normalize_inputs(inputs)


def _chain(ctx: RowContext, meta: dict[str, Any], sample_id: str) -> tuple[str | None, int | None]:
    if not ctx.task.dialogue:
        return None, None
    position = dialogue_position(meta)
    if position is None:
        try:
            position = divmod(int(sample_id) - ctx.min_id, DIALOGUE_LEN)
        except ValueError:
            raise ctx.error(
                "ruTiE needs an integer meta.id or meta.dialog_id and meta.question_id",
                sample_id=sample_id,
                field="meta.id",
            ) from None
    return f"dialog_{position[0]}", int(position[1])


def _task_targets(ctx: RowContext, outputs: Any) -> tuple[str, ...]:
    if ctx.task.answer == "JSON":
        outputs = slu_outputs(decode_mapping(outputs) if isinstance(outputs, list) else outputs)
    targets = _targets(outputs)
    if ctx.task.answer == "MC" and len(targets) == 1:
        return mc_targets(targets[0])
    return targets


def row_to_sample(ctx: RowContext, row: dict[str, Any]) -> Sample:
    """Validate one row and build its sample; errors name the task, file, sample id and field.

    A missing ``outputs`` column reads as hidden answers (a private test set), like an empty one.
    """
    meta = decode_mapping(row.get("meta"))
    sample_id = row_id(ctx, meta)
    instruction, inputs = _check_row(ctx, row, sample_id)
    kinds = media_fields(ctx.task, inputs)
    refs = (_media(ctx, f, kind, inputs.get(f), sample_id, instruction) for f, kind in kinds.items())
    media = [m for m in refs if m is not None]
    text = _format(ctx, instruction, inputs, sample_id, kinds)
    options = option_values(inputs) if ctx.task.answer == "MC" else ()
    fields = {k: v for k, v in inputs.items() if k not in kinds}
    metadata = _metadata(ctx, meta, inputs, media)
    metadata["prompt_sha"] = hashlib.sha256(instruction.encode()).hexdigest()[:12]
    chain, chain_index = _chain(ctx, meta, sample_id)
    return Sample(
        id=sample_id,
        input=text,
        fields=fields,
        targets=_task_targets(ctx, row.get("outputs")),
        choices=options or None,
        media=tuple(media),
        metadata=metadata,
        chain=chain,
        chain_index=chain_index,
    )
