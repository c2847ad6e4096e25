"""Which backend serves a judge spec: ``hf/PATH`` of a sequence-classification model is an encoder
classifier judge; every other spec is the ordinary backend of that provider."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.backends import Backend, BackendOptions, create_backend, split_model_spec

__all__ = ["create_judge_backend", "effective_judge_spec", "is_classifier_folder"]


def is_classifier_folder(path: str) -> bool:
    """True when ``path`` is a local transformers folder whose architecture is
    ``*ForSequenceClassification``."""
    config = Path(path).expanduser() / "config.json"
    if not config.is_file():
        return False
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any(str(a).endswith("ForSequenceClassification") for a in data.get("architectures") or [])


def effective_judge_spec(spec: str) -> str:
    """The backend spec a judge spec loads: ``hf/PATH`` of a classifier folder is ``hf_classifier/PATH``."""
    provider, name = split_model_spec(spec)
    return f"hf_classifier/{name}" if provider == "hf" and is_classifier_folder(name) else spec


def create_judge_backend(spec: str, *, options: BackendOptions | None = None) -> Backend:
    """The judge's backend; ``hf/PATH`` becomes ``hf_classifier/PATH`` for a classifier folder, and a
    ``replay/`` judge also accepts verdicts written as JSON numbers (``"response": 1``)."""
    provider, name = split_model_spec(spec)
    if provider == "hf" and is_classifier_folder(name):
        return create_backend(f"hf_classifier/{name}", options=options)
    if provider == "replay":
        from omnieval.backends.replay import ReplayBackend

        return ReplayBackend(name, options=options or BackendOptions(), numbers=True)
    return create_backend(spec, options=options)
