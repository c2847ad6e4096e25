"""Feature files (JSONL, one item per line) written atomically and read back with clear errors."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from omnieval.errors import SourceError
from omnieval.protect.msmia.features import ItemFeatures

__all__ = ["read_features", "write_features"]


def write_features(path: Path, items: Sequence[ItemFeatures]) -> Path:
    tmp = path.with_name(f".{path.name}.partial")
    with tmp.open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(item.model_dump_json() + "\n")
    os.replace(tmp, path)
    return path


def read_features(path: Path) -> list[ItemFeatures]:
    if not path.is_file():
        raise SourceError(f"feature file {path} not found")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(ItemFeatures.model_validate_json(line))
            except ValidationError as exc:
                raise SourceError(f"feature file {path}, line {number}: {exc.errors()[0]['msg']}") from None
    if not out:
        raise SourceError(f"feature file {path} holds no items")
    return out
