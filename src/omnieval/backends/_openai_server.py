"""Asking an OpenAI-compatible server what it serves and can take, once per run, before any request.

``/v1/models`` names the models served (and, from vLLM, ``max_model_len``); llama.cpp's ``/props`` says
which media its loaded model takes and whether the GGUF brought a chat template; Ollama's ``/api/show``
lists the model's capabilities. Every answer is optional: a server without one of these endpoints, or
one that answers oddly (a 404, an HTML page, a body that is not what it should be), only leaves that
fact unknown — the run then goes on as before and the requests themselves say what is wrong.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ServerInfo", "probe_server", "served_match"]

_MEDIA_NEEDS = {"image": "vision", "video": "vision", "audio": "audio"}
"""The llama.cpp ``modalities`` key (and Ollama capability) each input modality needs (video goes as
frames, i.e. images)."""


@dataclass
class ServerInfo:
    """What the server said about itself; ``None``/empty where it did not say."""

    kind: str | None = None
    """``llama.cpp``, ``vllm``, ``ollama`` or None (any other OpenAI-compatible server)."""
    models: tuple[str, ...] | None = None
    """Model ids of ``/v1/models``; None when it has no such endpoint (or an unreadable answer)."""
    max_model_len: int | None = None
    chat_template: bool | None = None
    """llama.cpp: whether the loaded model has its own chat template (else llama.cpp falls back to ChatML,
    seen as ChatML served for a model whose end token is another)."""
    declined: dict[str, str] = field(default_factory=dict)
    """Input modality → the server's own words on why it cannot take it."""
    notes: list[str] = field(default_factory=list)
    """What could not be asked, in a word each (``/props: HTTP 404``)."""

    def describe(self) -> dict[str, Any]:
        """The manifest's ``backend.server`` block."""
        out: dict[str, Any] = {"kind": self.kind, "models": list(self.models or ())}
        if self.max_model_len is not None:
            out["max_model_len"] = self.max_model_len
        if self.chat_template is not None:
            out["chat_template"] = self.chat_template
        if self.declined:
            out["declined"] = dict(self.declined)
        return out


def served_match(name: str, served: tuple[str, ...]) -> bool:
    """``name`` is served: the same id, the file name of an id that is a path (llama.cpp serves its
    ``-m`` path), with or without ``.gguf``, or Ollama's ``:latest`` tag left out."""
    for model in served:
        base = model.replace("\\", "/").rsplit("/", 1)[-1]
        stems = {model, base, base.removesuffix(".gguf"), model.removesuffix(":latest")}
        if name in stems:
            return True
    return False


def _root(base_url: str) -> str:
    """``http://host:8080/v1`` → ``http://host:8080`` (llama.cpp and Ollama answer at the root)."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    path = path.removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


async def _json(client: Any, method: str, url: str, **kwargs: Any) -> tuple[Any, str | None]:
    """The parsed JSON answer, or None and a word on why not (never raises)."""
    try:
        resp = await client.request(method, url, **kwargs)
    except Exception as exc:  # any failure only leaves this fact unknown
        return None, type(exc).__name__
    if resp.status_code != 200:
        return None, f"HTTP {resp.status_code}"
    try:
        return json.loads(resp.content), None
    except ValueError:
        return None, "not JSON"


def _read_models(info: ServerInfo, body: Any) -> None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        info.notes.append("/v1/models: no data list")
        return
    ids = [str(m["id"]) for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]
    info.models = tuple(ids)
    for card in data:
        if not isinstance(card, dict):
            continue
        if isinstance(card.get("max_model_len"), int):
            info.kind, info.max_model_len = "vllm", card["max_model_len"]
        owner = str(card.get("owned_by") or "")
        if owner == "llamacpp":
            info.kind = "llama.cpp"
        elif owner in ("library", "ollama") and info.kind is None:
            info.kind = "ollama"


def _own_template(template: str, eos: Any) -> bool:
    """False for no template, or for ChatML served for a model whose end token is not ChatML's: what
    llama.cpp falls back to when the GGUF brought no template of its own."""
    if not template.strip():
        return False
    if "<|im_start|>" in template and isinstance(eos, str) and eos:
        return eos in ("<|im_end|>", "<|endoftext|>")
    return True


def _read_props(info: ServerInfo, body: Any) -> None:
    """llama.cpp's ``/props``: ``modalities`` ({"vision": false, "video": false, "audio": false}) and the
    ``chat_template`` it applies (with the model's ``eos_token``)."""
    if not isinstance(body, dict):
        return
    modalities = body.get("modalities")
    if isinstance(modalities, dict):
        info.kind = "llama.cpp"
        for medium, key in _MEDIA_NEEDS.items():
            key = medium if medium in modalities else key  # newer builds name video on its own
            if modalities.get(key) is False:
                info.declined[medium] = f'its /props says "modalities": {{"{key}": false}}'
    template = body.get("chat_template")
    if isinstance(template, str):
        info.kind = "llama.cpp"
        info.chat_template = _own_template(template, body.get("eos_token"))


def _read_show(info: ServerInfo, body: Any) -> None:
    """Ollama's ``/api/show``: ``capabilities`` (``completion``, ``vision``, ``audio``...)."""
    capabilities = body.get("capabilities") if isinstance(body, dict) else None
    if not isinstance(capabilities, list):
        return
    info.kind = "ollama"
    listed = ", ".join(map(str, capabilities))
    for medium, key in _MEDIA_NEEDS.items():
        if key not in capabilities:
            info.declined[medium] = f"its /api/show capabilities are [{listed}] (no {key!r})"


async def _nothing() -> tuple[Any, str | None]:
    return None, "not asked"


async def probe_server(
    base_url: str,
    model: str,
    *,
    headers: dict[str, str],
    timeout_s: float,
    transport: Any = None,
    ask_root: bool = True,
) -> ServerInfo:
    """Ask ``/v1/models``, and with ``ask_root`` llama.cpp's ``/props`` and Ollama's ``/api/show``, at
    once; whatever does not answer stays unknown."""
    import httpx

    info = ServerInfo()
    root = _root(base_url)
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(min(timeout_s, 10.0)), headers=headers, transport=transport
    ) as client:
        (models, why_models), (props, why_props), (show, _) = await asyncio.gather(
            _json(client, "GET", f"{base_url}/models"),
            _json(client, "GET", f"{root}/props") if ask_root else _nothing(),
            _json(client, "POST", f"{root}/api/show", json={"model": model}) if ask_root else _nothing(),
        )
    if models is not None:
        _read_models(info, models)
    else:
        info.notes.append(f"/v1/models: {why_models}")
    if props is not None:
        _read_props(info, props)
    else:
        info.notes.append(f"/props: {why_props}")
    if show is not None:
        _read_show(info, show)
    return info
