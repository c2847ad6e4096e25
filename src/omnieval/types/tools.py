"""A tool as the model is shown it, and a tool call as the model wrote it (chat tool calling)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from omnieval.types._base import Frozen

__all__ = ["ToolCall", "ToolSpec"]


class ToolSpec(Frozen):
    """A tool as the model is shown it: name, description and a JSON Schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def function(self) -> dict[str, Any]:
        """OpenAI's function-tool shape (also what transformers chat templates take)."""
        spec = {"name": self.name, "description": self.description, "parameters": self.parameters}
        return {"type": "function", "function": spec}


class ToolCall(Frozen):
    """One tool call as the model wrote it; ``arguments`` is the raw JSON text (kept even when malformed)."""

    id: str
    name: str
    arguments: str = "{}"

    def input(self) -> dict[str, Any]:
        """The arguments as the object native tool formats want (Anthropic's ``input``, Gemini's
        ``args``); a malformed text, already answered with ``bad_arguments``, goes back as ``{"raw": …}``."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {"raw": self.arguments}
        return value if isinstance(value, dict) else {"raw": self.arguments}
