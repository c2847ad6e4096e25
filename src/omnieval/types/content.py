"""Media references and message content parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from omnieval.types._base import Frozen
from omnieval.types.tools import ToolCall

__all__ = [
    "AudioPart",
    "ContentPart",
    "ImagePart",
    "MediaKind",
    "MediaRef",
    "Message",
    "Role",
    "TextPart",
    "VideoPart",
    "plain_prompt",
]

MediaKind = Literal["image", "audio", "video"]
"""The media modalities a sample can carry."""

Role = Literal["system", "user", "assistant", "tool"]
"""Chat roles (``tool``: a tool's result in an agent episode)."""


class MediaRef(Frozen):
    """A reference to one media input: a file on disk or bytes embedded in a dataset row."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )

    kind: MediaKind
    """Which modality this is."""
    name: str
    """Placeholder name in the prompt text, e.g. ``image`` or ``audio_1`` (written ``<audio_1>``)."""
    path: str | None = None
    """Absolute path to the file, when the media lives on disk."""
    data: bytes | None = None
    """Raw encoded bytes (e.g. from an HF ``Image`` feature), when not on disk."""
    sha256: str | None = None
    """Content hash, filled in by the media stage; part of the cache key."""

    def describe(self) -> str:
        """A short human label: the path, or the placeholder for in-memory media."""
        return self.path or f"<{self.name}:{len(self.data or b'')} bytes>"


class TextPart(Frozen):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class ImagePart(Frozen):
    """An image input."""

    type: Literal["image"] = "image"
    media: MediaRef


class AudioPart(Frozen):
    """An audio input."""

    type: Literal["audio"] = "audio"
    media: MediaRef


class VideoPart(Frozen):
    """A video input."""

    type: Literal["video"] = "video"
    media: MediaRef


ContentPart = Annotated[TextPart | ImagePart | AudioPart | VideoPart, Field(discriminator="type")]
"""One part of a message, tagged by ``type`` so validation errors name the failing variant."""


class Message(Frozen):
    """A chat message whose content is a string or a list of parts."""

    role: Role
    content: str | tuple[ContentPart, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    """The tool calls an assistant turn made (agent episodes)."""
    tool_call_id: str | None = None
    """The call a ``tool`` message answers."""

    @property
    def text(self) -> str:
        """The concatenated text parts, media left out."""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    @property
    def media(self) -> tuple[MediaRef, ...]:
        """The media references of this message in order."""
        if isinstance(self.content, str):
            return ()
        return tuple(p.media for p in self.content if not isinstance(p, TextPart))


def plain_prompt(messages: Sequence[Message]) -> str:
    """The task's own prompt as plain text for a completion model: the turns' text, a blank line between
    (the ``completion`` prompt format, and ``openai/``'s ``endpoint=completions``), never a chat template."""
    return "\n\n".join(m.text for m in messages)
