"""Loading a transformers model, its processor and tokenizer from a folder, a hub id or a GGUF file.

GGUF files are de-quantised by transformers on every load (about a minute for Gemma 3 270M on two
cores), so the converted model and tokenizer are saved once under ``~/.cache/omnieval/gguf/<key>``
and later loads read those safetensors instead.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from omnieval.backends.base import BackendOptions
from omnieval.errors import BackendError, ConfigError

__all__ = [
    "HUB_PREFIX",
    "Loaded",
    "ModelSource",
    "gguf_cache_dir",
    "load_model",
    "resolve_source",
    "wrap_loaded",
]

HUB_PREFIX = "hub:"
"""``hf/hub:ORG/NAME`` fetches from the Hugging Face Hub; any other ``hf/PATH`` must exist locally, so a
mistyped path is an error instead of a silent download attempt."""
_TRUE = {"1", "ON", "YES", "TRUE"}

_DTYPES = {
    "float32": "float32",
    "fp32": "float32",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
}


@dataclass(frozen=True)
class ModelSource:
    """Where the weights are: a folder or hub id, and a GGUF file inside it when quantised."""

    path: str
    gguf_file: str | None = None
    hub: bool = False
    """True for an explicit ``hub:ORG/NAME``."""


@dataclass
class Loaded:
    """A ready model with what is needed to feed it."""

    model: Any
    tokenizer: Any
    processor: Any
    """The multimodal processor, or None for text-only models."""
    device: str
    modalities: frozenset[str] = field(default_factory=lambda: frozenset({"text"}))
    source: str = ""


def _hub_source(repo: str, gguf: str | None, provider: str) -> ModelSource:
    if os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in _TRUE:
        raise ConfigError(
            f"{provider}/{HUB_PREFIX}{repo}: fetching from the Hugging Face Hub is refused because "
            "HF_HUB_OFFLINE "
            f"is set; download the model first and give its local folder as {provider}/PATH"
        )
    if not repo or repo.count("/") > 1 or repo.startswith(("/", ".")):
        raise ConfigError(
            f"{provider}/{HUB_PREFIX}{repo}: a hub model is written {provider}/{HUB_PREFIX}ORG/NAME"
        )
    return ModelSource(path=repo, gguf_file=gguf, hub=True)


def resolve_source(model: str, *, options: BackendOptions, provider: str = "hf") -> ModelSource:
    """``hub:ORG/NAME`` is a hub model; ``PATH.gguf`` or ``extra['gguf_file']`` select GGUF loading;
    anything else is a local folder that must exist. ``provider`` only names the spelling in errors."""
    gguf = options.extra.get("gguf_file")
    if model.startswith(HUB_PREFIX):
        return _hub_source(model[len(HUB_PREFIX) :], str(gguf) if gguf else None, provider)
    p = Path(model).expanduser()
    exists = p.is_file() if model.endswith(".gguf") else p.exists()
    if not exists:
        raise ConfigError(
            f"{provider}/{model}: no such local model folder or file: {p.absolute()} "
            f"(to fetch a model from the Hugging Face Hub write {provider}/{HUB_PREFIX}ORG/NAME)"
        )
    if model.endswith(".gguf"):
        return ModelSource(path=str(p.parent), gguf_file=p.name)
    return ModelSource(path=str(p), gguf_file=str(gguf) if gguf else None)


def gguf_cache_dir(src: ModelSource, *, options: BackendOptions) -> Path | None:
    """Folder for the converted GGUF model, keyed by file name, size and a hash of its ends."""
    if src.gguf_file is None or options.extra.get("gguf_cache", True) is False:
        return None
    file = Path(src.path) / src.gguf_file
    if not file.is_file():
        return None
    h = hashlib.sha256(f"{file.name}:{file.stat().st_size}".encode())
    with file.open("rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, file.stat().st_size - (1 << 20)))
        h.update(fh.read())
    root = options.extra.get("gguf_cache_dir") or os.environ.get("OMNIEVAL_CACHE") or "~/.cache/omnieval"
    return Path(str(root)).expanduser() / "gguf" / f"{file.stem}-{h.hexdigest()[:16]}"


def _torch_dtype(options: BackendOptions, device: str) -> Any:
    import torch

    name = (options.dtype or ("bfloat16" if device.startswith("cuda") else "float32")).lower()
    if name == "auto":
        return "auto"
    if name not in _DTYPES:
        raise ConfigError(f"unknown dtype {options.dtype!r}; use one of {sorted(set(_DTYPES))} or auto")
    return getattr(torch, _DTYPES[name])


def _device(options: BackendOptions) -> str:
    import torch

    if options.device:
        return options.device
    return "cuda" if torch.cuda.is_available() else "cpu"


def _load_processor(path: str, gguf_file: str | None) -> tuple[Any, Any]:
    """(processor or None, tokenizer)."""
    from transformers import AutoProcessor, AutoTokenizer

    if gguf_file is not None:
        return None, AutoTokenizer.from_pretrained(path, gguf_file=gguf_file)
    try:
        proc = AutoProcessor.from_pretrained(path)
    except (OSError, ValueError, KeyError, TypeError):
        proc = None
    if proc is not None and hasattr(proc, "tokenizer"):
        return proc, proc.tokenizer
    return None, proc if proc is not None else AutoTokenizer.from_pretrained(path)


def processor_modalities(src: ModelSource) -> frozenset[str] | None:
    """What a local model takes, from its processor alone (no weights); None for a hub model."""
    if src.gguf_file is not None:
        return frozenset({"text"})
    folder = Path(src.path)
    if not folder.is_dir():
        return None
    return _folder_modalities(folder.resolve(), folder.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _folder_modalities(folder: Path, mtime_ns: int) -> frozenset[str]:
    """Loaded once per folder (and per change of it): planning asks for every task and option check,
    and a large tokenizer (Gemma's 33 MB ``tokenizer.json``) takes seconds to parse each time."""
    del mtime_ns  # part of the cache key only
    return _modalities(_load_processor(str(folder), None)[0])


def _modalities(processor: Any) -> frozenset[str]:
    kinds = {"text"}
    if processor is None:
        return frozenset(kinds)
    if getattr(processor, "image_processor", None) is not None:
        kinds.add("image")
    if getattr(processor, "feature_extractor", None) is not None or getattr(
        processor, "audio_processor", None
    ):
        kinds.add("audio")
    if getattr(processor, "video_processor", None) is not None:
        kinds.add("video")
    return frozenset(kinds)


def _model_classes(processor: Any, options: BackendOptions) -> list[Any]:
    import transformers

    name = options.extra.get("model_class")
    if name:
        if not hasattr(transformers, str(name)):
            raise ConfigError(f"transformers has no class {name!r} (options.extra['model_class'])")
        return [getattr(transformers, str(name))]
    names = ["AutoModelForMultimodalLM", "AutoModelForImageTextToText"] if processor is not None else []
    names.append("AutoModelForCausalLM")
    return [getattr(transformers, n) for n in names if hasattr(transformers, n)]


def _load_weights(src: ModelSource, processor: Any, *, options: BackendOptions, device: str) -> Any:
    kwargs: dict[str, Any] = {"dtype": _torch_dtype(options, device)}
    if src.gguf_file is not None:
        kwargs["gguf_file"] = src.gguf_file
    errors = []
    for cls in _model_classes(processor, options):
        try:
            return cls.from_pretrained(src.path, **kwargs)
        except ValueError as exc:  # "Unrecognized configuration class" → try the next auto class
            errors.append(f"{cls.__name__}: {str(exc)[:200]}")
    raise BackendError(f"cannot load model {src.path}: " + "; ".join(errors), retryable=False)


def _from_gguf_cache(src: ModelSource, *, options: BackendOptions) -> ModelSource:
    """Convert a GGUF file once and return the folder holding the converted model."""
    cache = gguf_cache_dir(src, options=options)
    if cache is None:
        return src
    if (cache / "config.json").is_file():
        return ModelSource(path=str(cache))
    _, tok = _load_processor(src.path, src.gguf_file)
    model = _load_weights(src, None, options=options.model_copy(update={"dtype": "float32"}), device="cpu")
    # transformers de-quantised the weights; detach the GGUF quantizer so they save as plain safetensors
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = cache.with_name(cache.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if not (cache / "config.json").is_file():
        shutil.rmtree(cache, ignore_errors=True)  # a half-written folder from an interrupted run
    try:
        tmp.replace(cache)
    except OSError:  # another process finished the same conversion first
        if not (cache / "config.json").is_file():
            raise
    shutil.rmtree(tmp, ignore_errors=True)
    return ModelSource(path=str(cache))


def wrap_loaded(model: Any, processor: Any) -> Loaded:
    """A transformers model and its processor (or plain tokenizer) already in memory, prepared as
    :func:`load_model` prepares what it loads (left padding, a pad token)."""
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is None:
        tokenizer, processor = processor, None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    device = str(getattr(model, "device", "cpu"))
    modalities = _modalities(processor)
    return Loaded(model, tokenizer, processor, device=device, modalities=modalities, source="in-memory")


def load_model(model: str, *, options: BackendOptions) -> Loaded:
    """Load everything for ``hf/<model>``; errors name the model and are not retryable."""
    src = resolve_source(model, options=options)
    try:
        src = _from_gguf_cache(src, options=options)
        device = _device(options)
        processor, tokenizer = _load_processor(src.path, src.gguf_file)
        weights = _load_weights(src, processor, options=options, device=device)
    except (OSError, ValueError, ImportError) as exc:
        raise BackendError(f"cannot load hf model {model!r}: {exc}", retryable=False) from exc
    weights.to(device)
    weights.eval()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return Loaded(
        model=weights,
        tokenizer=tokenizer,
        processor=processor,
        device=device,
        modalities=_modalities(processor),
        source=src.path,
    )
