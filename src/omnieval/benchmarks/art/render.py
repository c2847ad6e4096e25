"""One planned instance → one WAV timeline plus its provenance (segments with timings, voices, assets).

Layout: 0.1 s lead-in, the spoken question, 0.8 s, then each recording of the template's ``audio`` list
separated by 0.8 s of silence, 0.1 s tail. Repeats of one sound (AA) are 0.35 s apart; dialogue turns
0.3 s apart. Every segment's start and duration are recorded in the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from omnieval.benchmarks.art.assets import AssetPool
from omnieval.benchmarks.art.dsp import (
    BACKGROUND_FADE_S,
    BACKGROUND_GAIN_DB,
    BACKGROUND_LEAD_S,
    RATE,
    TRANSFORMS,
    apply_transform,
    edge_fades,
    overlay,
    silence,
    truncate,
)
from omnieval.benchmarks.art.sampler import Planned
from omnieval.benchmarks.art.spec import ArtSpec
from omnieval.benchmarks.art.tts import speak

__all__ = ["GAPS", "Voices", "render"]

GAPS = {"lead": 0.1, "after_question": 0.8, "between": 0.8, "repeat": 0.35, "turn": 0.3, "tail": 0.1}


@dataclass(frozen=True)
class Voices:
    """Which espeak-ng voice speaks what."""

    question: dict[str, Any]
    people: dict[str, dict[str, Any]]
    crli: dict[str, dict[str, Any]]


class _Timeline:
    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []
        self.segments: list[dict[str, Any]] = []
        self.length = 0

    def add(self, audio: np.ndarray, meta: dict[str, Any] | None) -> None:
        if meta is not None:
            self.segments.append(
                {**meta, "start_s": round(self.length / RATE, 4), "dur_s": round(audio.size / RATE, 4)}
            )
        self.parts.append(audio)
        self.length += audio.size

    def gap(self, seconds: float) -> None:
        self.add(silence(seconds), None)


def _voice_meta(voice: dict[str, Any]) -> dict[str, Any]:
    return {"voice": voice["voice"], "speed": voice["speed"], "pitch": voice["pitch"]}


def _say(text: str, voice: dict[str, Any]) -> np.ndarray:
    return speak(text, voice=voice["voice"], speed=voice["speed"], pitch=voice["pitch"])


def _clip(name: str, assets: AssetPool, transform: str | None) -> tuple[np.ndarray, dict[str, Any]]:
    """A short sound or tune: ≤ 5 s (cut with a fade-out), then transformed, then ≤ 5 s again (cached)."""
    key = (name, transform)
    if key not in assets.clips:
        assets.clips[key] = _make_clip(name, assets, transform)
    return assets.clips[key]


def _make_clip(name: str, assets: AssetPool, transform: str | None) -> tuple[np.ndarray, dict[str, Any]]:
    audio, source = assets.sound(name)
    audio, cut = truncate(audio)
    meta: dict[str, Any] = {
        "kind": "tune" if transform is not None else "sound",
        "asset": name,
        "asset_source": source,
        "truncated_to_5s": cut,
    }
    if transform is not None and transform != "none":
        audio, cut_after = truncate(apply_transform(audio, transform))
        meta.update(transform=transform, params=TRANSFORMS[transform], truncated_to_5s=cut or cut_after)
    elif transform == "none":
        meta["transform"] = None
    return edge_fades(audio), meta


def _with_background(speech: np.ndarray, name: str, assets: AssetPool) -> tuple[np.ndarray, dict[str, Any]]:
    background, source = assets.sound(name)
    mixed, _ = overlay(speech, background)
    return mixed, {
        "asset": name,
        "asset_source": source,
        "gain_db": BACKGROUND_GAIN_DB,
        "lead_s": BACKGROUND_LEAD_S,
        "fade_s": BACKGROUND_FADE_S,
    }


def _spoken(
    text: str, speaker: str, voices: Voices, background: str | None, assets: AssetPool
) -> tuple[np.ndarray, dict[str, Any]]:
    """One utterance by one speaker, over its own background when it has one."""
    audio = _say(text, voices.people[speaker])
    meta: dict[str, Any] = {"text": text, "speaker": speaker, **_voice_meta(voices.people[speaker])}
    if background is not None:
        audio, meta["background"] = _with_background(audio, background, assets)
    return audio, meta


def _speech_item(
    item: dict[str, Any], values: dict[str, Any], spec: ArtSpec, voices: Voices, assets: AssetPool
) -> tuple[np.ndarray, dict[str, Any]]:
    uid = values[item["speech"]]
    background = values[item["background"]] if "background" in item else None
    audio, meta = _spoken(
        spec.speech["utterances"][uid]["text"], values[item["speaker"]], voices, background, assets
    )
    return audio, {"kind": "speech", "utterance": uid, **meta}


def _dialogue_item(
    item: dict[str, Any], values: dict[str, Any], spec: ArtSpec, voices: Voices, assets: AssetPool
) -> tuple[np.ndarray, dict[str, Any]]:
    did = values[item["dialogue"]]
    turns = spec.speech["utterances"][did]["text"]
    speakers = [values[s] for s in item["speakers"]]
    per_turn = [values[b] for b in item.get("backgrounds", [])]
    pieces: list[np.ndarray] = []
    turn_meta: list[dict[str, Any]] = []
    offset = 0
    for k, (text, speaker) in enumerate(zip(turns, speakers, strict=True)):
        audio, meta = _spoken(text, speaker, voices, per_turn[k] if per_turn else None, assets)
        if k:
            pieces.append(silence(GAPS["turn"]))
            offset += round(GAPS["turn"] * RATE)
        meta["offset_s"] = round(offset / RATE, 4)
        pieces.append(audio)
        offset += audio.size
        turn_meta.append(meta)
    joined = np.concatenate(pieces)
    out: dict[str, Any] = {"kind": "dialogue", "utterance": did, "turns": turn_meta}
    if "background" in item:
        joined, out["background"] = _with_background(joined, values[item["background"]], assets)
    return joined, out


def _foreign_item(
    item: dict[str, Any], values: dict[str, Any], spec: ArtSpec, voices: Voices, assets: AssetPool
) -> tuple[np.ndarray, dict[str, Any]]:
    speaker = values[item["foreign"]]
    lang = spec.tables["language"][speaker]
    real = assets.recording(speaker)
    if real is not None:
        return real[0], {"kind": "foreign", "speaker": speaker, "language": lang, "asset_source": real[1]}
    text = spec.speech["crli_sentences"][lang][int(speaker.rsplit("_", 1)[1]) - 1]
    voice = voices.crli[speaker]
    return _say(text, voice), {
        "kind": "foreign",
        "speaker": speaker,
        "language": lang,
        "text": text,
        **_voice_meta(voice),
    }


def _item(
    item: dict[str, Any], values: dict[str, Any], spec: ArtSpec, voices: Voices, assets: AssetPool
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """One recording of the template (a list: AA repeats are separate segments)."""
    if "sound" in item:
        count = values[item["repeat"]] if "repeat" in item else 1
        audio, meta = _clip(values[item["sound"]], assets, None)
        return [(audio, {**meta, "repeat_index": i}) for i in range(count)]
    if "tune" in item:
        transform = values[item["transform"]] if "transform" in item else "none"
        return [_clip(values[item["tune"]], assets, transform)]
    if "speech" in item:
        return [_speech_item(item, values, spec, voices, assets)]
    if "dialogue" in item:
        return [_dialogue_item(item, values, spec, voices, assets)]
    return [_foreign_item(item, values, spec, voices, assets)]


def render(
    planned: Planned, question: str, *, spec: ArtSpec, voices: Voices, assets: AssetPool
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The instance's samples and segment list (question first, recordings after)."""
    template = next(t for t in spec.templates[planned.task] if t.id == planned.template)
    variant = next(v for v in template.variants if v.id == planned.variant)
    line = _Timeline()
    line.gap(GAPS["lead"])
    line.add(
        _say(question, voices.question),
        {"kind": "question", "text": question, **_voice_meta(voices.question)},
    )
    line.gap(GAPS["after_question"])
    first = True
    for item in variant.audio:
        pieces = _item(item, planned.values, spec, voices, assets)
        if not pieces:
            continue
        if not first:
            line.gap(GAPS["between"])
        first = False
        for k, (audio, meta) in enumerate(pieces):
            if k:
                line.gap(GAPS["repeat"])
            line.add(audio, meta)
    line.gap(GAPS["tail"])
    return np.concatenate(line.parts), line.segments
