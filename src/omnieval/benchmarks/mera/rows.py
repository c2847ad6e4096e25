"""One published MERA row (``instruction``, ``inputs``, ``outputs``, ``meta``) → one :class:`Sample`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from omnieval.benchmarks.mera.catalog import MeraTask
from omnieval.errors import SourceError
from omnieval.types import MediaKind, MediaRef, Sample

__all__ = ["DIALOGUE_LEN", "RowContext", "row_to_sample"]

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
    """The catalogue's media fields plus any other ``{bytes, path}`` input (kind from its name)."""
    fields: dict[str, MediaKind] = dict(task.media)
    for key, value in inputs.items():
        if key not in fields and isinstance(value, dict) and {"bytes", "path"} & set(value):
            prefix = key.split("_")[0]
            fields[key] = prefix if prefix in ("image", "audio", "video") else task.modality  # type: ignore[assignment]
    return fields


def _media(
    ctx: RowContext, field: str, kind: MediaKind, value: Any, sample_id: str, instruction: str
) -> MediaRef | None:
    tag = f"<{field}>"
    if value is None or value == {} or value == "":
        if tag in instruction:
            raise ctx.error(
                f"the instruction places {tag} but the media is absent",
                sample_id=sample_id,
                field=f"inputs.{field}",
            )
        return None
    if isinstance(value, dict):
        if value.get("bytes"):
            return MediaRef(kind=kind, name=field, data=bytes(value["bytes"]))
        value = value.get("path")
    if not isinstance(value, str) or not value:
        raise ctx.error(
            f"expected media bytes or a file path, got {type(value).__name__}",
            sample_id=sample_id,
            field=f"inputs.{field}",
        )
    path = Path(value) if Path(value).is_absolute() else ctx.dataset_dir / value
    if not path.is_file():
        raise ctx.error(f"media file {path} does not exist", sample_id=sample_id, field=f"inputs.{field}")
    return MediaRef(kind=kind, name=field, path=str(path.resolve()))


def _dig(meta: dict[str, Any], dotted: str) -> Any:
    node: Any = meta
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _targets(outputs: Any) -> tuple[str, ...]:
    if outputs is None or outputs == "":
        return ()
    if isinstance(outputs, dict | list):
        return (json.dumps(outputs, ensure_ascii=False),)
    return (str(outputs),)


def _format(
    ctx: RowContext, instruction: str, inputs: dict[str, Any], sample_id: str, media: dict[str, MediaKind]
) -> str:
    values = {k: v for k, v in inputs.items() if k not in media}
    values |= {field: f"<{field}>" for field in media}
    if ctx.task.dialogue:
        values.setdefault("context", "")  # ruTiE history travels as chat turns, not inline
    try:
        return instruction.format(**values)
    except KeyError as exc:
        raise ctx.error(
            f"the instruction uses {{{exc.args[0]}}} which is not in inputs",
            sample_id=sample_id,
            field=f"inputs.{exc.args[0]}",
        ) from None
    except (ValueError, IndexError) as exc:
        raise ctx.error(
            f"the instruction is not a valid format string ({exc})", sample_id=sample_id, field="instruction"
        ) from None


def _metadata(
    ctx: RowContext, meta: dict[str, Any], inputs: dict[str, Any], media: list[MediaRef]
) -> dict[str, Any]:
    task = ctx.task
    out: dict[str, Any] = {"meta": meta, "prompt_sha": ""}
    if task.domain_field:
        out["domain"] = _dig(meta, task.domain_field)
    if task.group_field:
        group = meta.get(task.group_field)
        if group is None:  # ruHHH-Image: a group is the same image and question
            h = hashlib.sha256(str(inputs.get("question", "")).encode())
            for ref in media:
                h.update(ref.data or (ref.path or "").encode())
            group = h.hexdigest()[:16]
        out["mera_group"] = str(group)
    return out


def row_to_sample(ctx: RowContext, row: dict[str, Any]) -> Sample:
    """Validate one row and build its sample; errors name the task, file, sample id and field."""
    meta = row.get("meta")
    raw_id = meta.get("id") if isinstance(meta, dict) else None
    if raw_id is None or isinstance(raw_id, bool):
        raise ctx.error("every row needs meta.id", sample_id=None, field="meta.id")
    sample_id = str(raw_id)
    assert isinstance(meta, dict)
    instruction, inputs = row.get("instruction"), row.get("inputs")
    if not isinstance(instruction, str) or not instruction.strip():
        raise ctx.error("missing or empty instruction", sample_id=sample_id, field="instruction")
    if not isinstance(inputs, dict):
        raise ctx.error("inputs must be a mapping", sample_id=sample_id, field="inputs")
    if "outputs" not in row:
        raise ctx.error(
            "missing outputs (use an empty string for hidden answers)", sample_id=sample_id, field="outputs"
        )
    for field in (*ctx.task.text, *ctx.task.option_fields[:2]):
        if field not in inputs:
            raise ctx.error(f"missing input field {field!r}", sample_id=sample_id, field=f"inputs.{field}")
    kinds = media_fields(ctx.task, inputs)
    refs = (_media(ctx, f, kind, inputs.get(f), sample_id, instruction) for f, kind in kinds.items())
    media = [m for m in refs if m is not None]
    text = _format(ctx, instruction, inputs, sample_id, kinds)
    options = tuple(str(inputs[f]) for f in ctx.task.option_fields if inputs.get(f) not in (None, ""))
    fields = {k: v for k, v in inputs.items() if k not in kinds}
    metadata = _metadata(ctx, meta, inputs, media)
    metadata["prompt_sha"] = hashlib.sha256(instruction.encode()).hexdigest()[:12]
    chain = chain_index = None
    if ctx.task.dialogue:
        dialog, turn = meta.get("dialog_id"), meta.get("question_id")
        if dialog is None or turn is None:
            dialog, turn = divmod(int(raw_id) - ctx.min_id, DIALOGUE_LEN)
        chain, chain_index = f"dialog_{dialog}", int(turn)
    return Sample(
        id=sample_id, input=text, fields=fields, targets=_targets(row["outputs"]), choices=options or None,
        media=tuple(media), metadata=metadata, chain=chain, chain_index=chain_index,
    )  # fmt: skip
