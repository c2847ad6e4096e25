"""``--dry-run``: the requests a run would send, and what they add up to, without calling a model.

Samples are selected (``--limit``, ``--sample-ids``), grouped into chains and rendered through the
runner's own functions (:func:`prepare_request`), so demonstrations, prompt variants, media policy
overrides and the media budget are exactly as sent. A chain's later steps carry the model's earlier
answers in the real run; here those answers are placeholders. Totals let a user see the cost first.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from omnieval.backends import Backend, accepted_modalities, split_model_spec
from omnieval.backends.prices import ModelPrice
from omnieval.errors import MediaError, OmnievalError
from omnieval.runner.config import RunConfig
from omnieval.runner.context import TaskContext
from omnieval.runner.prepare import Skip, prepare_request
from omnieval.runner.resolve import resolve_tasks
from omnieval.runner.resume import DoneIndex
from omnieval.runner.run import _contexts, _selected
from omnieval.sources import Task, check_unique_ids
from omnieval.types import AudioPart, ImagePart, MediaPolicy, MediaRef, Request, Sample, TextPart, VideoPart

__all__ = ["Planned", "Totals", "estimate_tokens", "plan_requests"]


@dataclass(frozen=True)
class Planned:
    """One sample's outcome in a dry run: the request, or why it would be skipped or fail."""

    task: str
    sample: Sample
    request: Request | None
    skipped: str | None = None
    error: str | None = None


def estimate_tokens(text: str) -> int:
    """Rough count for cost planning: ~4 characters per token for ASCII, ~2.5 for other scripts
    (Cyrillic text costs BPE tokenizers noticeably more tokens per character)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4 + (len(text) - ascii_chars) / 2.5)


def _request_text(request: Request) -> str:
    if request.prompt is not None:
        if request.continuations:  # one scored prompt per continuation
            return "".join(request.prompt + c for c in request.continuations)
        return request.prompt
    out = []
    for message in request.messages:
        if isinstance(message.content, str):
            out.append(message.content)
        else:
            out.extend(p.text for p in message.content if isinstance(p, TextPart))
    return "".join(out)


@dataclass
class Totals:
    """What the selected requests add up to."""

    requests: int = 0
    skipped: int = 0
    failed: int = 0
    prompt_chars: int = 0
    est_prompt_tokens: int = 0
    max_output_tokens: int = 0
    images: int = 0
    audio_s: float = 0.0
    video_frames: int = 0
    videos_as_files: int = 0
    est_cost_usd: float = 0.0
    """Estimated prompt tokens and every ``max_tokens`` at the price table's rates (output assumed in
    full)."""
    max_cost_usd: float = 0.0
    """The sum of the worst cases ``--cost-limit`` reserves before each request (prompt bounded by its
    bytes)."""
    price: ModelPrice | None = field(default=None, repr=False)
    unreadable_media: list[str] = field(default_factory=list)
    _probed: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)

    def add(self, planned: Planned) -> None:
        if planned.error is not None:
            self.failed += 1
            return
        if planned.request is None:
            self.skipped += 1
            return
        request = planned.request
        text = _request_text(request)
        self.requests += 1
        self.prompt_chars += len(text)
        self.est_prompt_tokens += estimate_tokens(text)
        self.max_output_tokens += request.generation.max_tokens if request.kind == "generate" else 1
        if self.price is not None:
            inp, out = self.price.rates(batch=False)
            self.est_cost_usd += (
                estimate_tokens(text) * inp + request.generation.max_tokens * out
            ) / 1_000_000
            self.max_cost_usd += self.price.bound(request)
        for message in request.messages:
            for part in message.content if not isinstance(message.content, str) else ():
                self._media(part, request.media_policy)

    def _media(self, part: Any, policy: MediaPolicy) -> None:
        if isinstance(part, ImagePart):
            self.images += 1
        elif isinstance(part, AudioPart):
            self.audio_s += self._probe("audio", part.media, policy)
        elif isinstance(part, VideoPart):
            if policy.video_mode == "file":
                self.videos_as_files += 1
            else:
                self.video_frames += int(self._probe("video", part.media, policy))

    def _probe(self, kind: str, ref: MediaRef, policy: MediaPolicy) -> float:
        key = (kind, ref.path or f"{ref.name}:{hash(ref.data)}:{policy.video_fps}:{policy.video_max_frames}")
        if key not in self._probed:
            try:
                self._probed[key] = _audio_seconds(ref) if kind == "audio" else _video_frames(ref, policy)
            except MediaError as exc:
                self.unreadable_media.append(str(exc))
                self._probed[key] = 0.0
        return self._probed[key]

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_") and k != "price"}


def _audio_seconds(ref: MediaRef) -> float:
    import soundfile

    from omnieval.media import open_media

    with open_media(ref) as stream:
        try:
            info = soundfile.info(stream)
        except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError) as exc:
            raise MediaError(f"unreadable audio: {exc}", path=ref.path or ref.name) from None
    return float(info.duration)


def _video_frames(ref: MediaRef, policy: MediaPolicy) -> float:
    """Frames the media stage will keep under this policy (the same sampling rule)."""
    from omnieval.media import open_media, plan_frame_indices
    from omnieval.media.video import probe_video

    with open_media(ref) as stream:
        info = probe_video(stream, where=ref.path or ref.name)
    return float(
        len(
            plan_frame_indices(
                info.n_frames,
                source_fps=info.fps,
                target_fps=policy.video_fps,
                max_frames=policy.video_max_frames,
            )
        )
    )


@dataclass(frozen=True)
class _OptionsOnly:
    """What the runner's context builder reads from a backend (its options), without starting one."""

    options: Any

    def recorded_repeats(self, task: str) -> int | None:
        """A preview plays nothing back: repeats come from the options and the task only."""
        return None


def _steps(ctx: TaskContext, config: RunConfig) -> Iterator[tuple[int, Sample]]:
    """Independent samples in data order, then each chain in step order (as the runner queues them)."""
    chains: dict[str, list[tuple[int, Sample]]] = {}
    for position, sample in _selected(ctx.task, config):
        if sample.chain is None:
            yield position, sample
        else:
            chains.setdefault(sample.chain, []).append((position, sample))
    for steps in chains.values():
        yield from sorted(steps, key=lambda s: (s[1].chain_index or 0, s[0]))


def plan_requests(config: RunConfig, *, tasks: list[Task] | None = None) -> Iterator[Planned]:
    """Every request the run would send (in the runner's order), rendered by the runner's code."""
    tasks = tasks if tasks is not None else resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    check_unique_ids(tasks)  # the run refuses duplicate ids before its first request; so does its preview
    provider, _ = split_model_spec(config.model)
    modalities = accepted_modalities(config.model, options=config.backend)
    stand_in = cast(Backend, _OptionsOnly(config.backend))
    for ctx, repeat in (
        (c, r) for c in _contexts(tasks, config, stand_in, DoneIndex()) for r in c.repeat_indices
    ):
        history: dict[str, list[tuple[Sample, str]]] = {}
        for position, sample in _steps(ctx, config):
            earlier = history.setdefault(sample.chain, []) if sample.chain is not None else []
            try:
                got = prepare_request(
                    ctx,
                    sample,
                    position=position,
                    history=list(earlier),
                    seed=config.seed,
                    blind=config.blind,
                    provider=provider,
                    modalities=modalities,
                    repeat=repeat,
                )
            except OmnievalError as exc:
                yield Planned(ctx.name, sample, None, error=f"could not build the request: {exc}")
                continue
            if sample.chain is not None:
                earlier.append((sample, f"<the model's answer to {sample.id}>"))
            if isinstance(got, Skip):
                yield Planned(ctx.name, sample, None, skipped=got.reason)
            else:
                yield Planned(ctx.name, sample, got)
