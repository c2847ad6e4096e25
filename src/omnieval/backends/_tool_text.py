"""Tool calling for local models (hf/, vllm/): tools go to the chat template, calls are read back from
the generated text.

A chat template takes tools when it refers to ``tools`` (Qwen 2.5/3, Llama 3.1+, Hermes, Mistral
templates do); a model whose template does not is refused before the run. The calls are read in the
two formats those templates teach: ``<tool_call>{"name": …, "arguments": …}</tool_call>`` blocks
(Hermes, Qwen) and a reply that is one JSON object ``{"name": …, "parameters"|"arguments": …}``
(Llama 3.1+). Text around the blocks stays the answer's text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from omnieval.types import Message, Request
from omnieval.types.tools import ToolCall

__all__ = ["parse_tool_calls", "template_messages", "template_takes_tools", "template_tools"]

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def template_takes_tools(template: str | None) -> bool:
    """Whether a chat template renders a ``tools`` list (the only way a local model learns its tools)."""
    return template is not None and re.search(r"\btools\b", template) is not None


def template_tools(request: Request) -> list[dict[str, Any]]:
    """The request's tools as transformers chat templates take them (OpenAI's function shape)."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in request.tools
    ]


def template_messages(messages: tuple[Message, ...], rendered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rendered`` (transformers chat dicts of ``messages``) with each assistant turn's ``tool_calls``
    and each tool result's ``tool_call_id`` (and the tool's ``name``, which some templates print)."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    out = []
    for msg, item in zip(messages, rendered, strict=True):
        if msg.tool_calls:
            item = {
                **item,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.input()}}
                    for c in msg.tool_calls
                ],
            }
        if msg.tool_call_id is not None:
            item = {**item, "tool_call_id": msg.tool_call_id, "name": names.get(msg.tool_call_id, "")}
        out.append(item)
    return out


def _call(payload: str, index: int) -> ToolCall | None:
    try:
        value = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    args = value.get("arguments", value.get("parameters", {}))
    arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(id=f"call_{index}", name=value["name"], arguments=arguments)


def parse_tool_calls(text: str) -> tuple[str, tuple[ToolCall, ...]]:
    """(the text without its tool-call blocks, the calls); a block that is not a JSON call is kept as a
    call named ``""`` with its raw text, so the agent loop counts it (an unknown tool), never drops it."""
    blocks = list(_BLOCK.finditer(text))
    if blocks:
        calls = []
        for i, block in enumerate(blocks):
            call = _call(block.group(1), i)
            calls.append(call or ToolCall(id=f"call_{i}", name="", arguments=block.group(1)))
        return _BLOCK.sub("", text).strip(), tuple(calls)
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        call = _call(stripped, 0)
        if call is not None:
            return "", (call,)
    return text, ()
