"""Hand-built MERA dataset folders for the schema-variant tests, written WITHOUT ``mini.py``.

The rows follow the published schema as the paper and the engineering note state it
(``instruction``, ``inputs``, ``outputs``, ``meta.id``), so the importer is checked against
an independent reading, not against its own generator.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import soundfile as sf
from PIL import Image

from omnieval.sources.importers import importers
from omnieval.types import Sample

importer = importers.get("mera")


def png(color: str = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buffer, "PNG")
    return buffer.getvalue()


def wav(n: int = 1600, rate: int = 16000) -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, np.linspace(-0.5, 0.5, n, dtype=np.float32), rate, format="WAV")
    return buffer.getvalue()


def write_split(
    dataset_dir: Path, rows: list[dict[str, Any]], *, split: str = "test", rel: str | None = None
) -> Path:
    """Write rows as parquet at ``data/<split>-00000-of-00001.parquet`` (or ``rel``)."""
    path = dataset_dir / (rel or f"data/{split}-00000-of-00001.parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def mc_row(sample_id: Any, *, media: dict[str, Any], outputs: str = "A", **inputs: Any) -> dict[str, Any]:
    """A 4-option MC row whose instruction places every media tag, the question and the options."""
    tags = " ".join(f"<{name}>" for name in media)
    options = {f"option_{c}": f"вариант {c}" for c in "abcd"}
    return {
        "instruction": tags
        + "\nВопрос: {question}\nA. {option_a}\nB. {option_b}\nC. {option_c}\nD. {option_d}",
        "inputs": {**media, "question": f"вопрос {sample_id}", **options, **inputs},
        "outputs": outputs,
        "meta": {"id": sample_id},
    }


def samples(dataset_dir: Path) -> list[Sample]:
    [task] = importer(str(dataset_dir))
    return list(task.iter_samples())
