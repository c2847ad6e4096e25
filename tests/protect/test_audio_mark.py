"""The offline audio mark on generated speech: detection and false-positive rates after resampling and noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from omnieval.media.audio import resample
from omnieval.protect import detect_audio, embed_audio
from tests.protect.conftest import speech

SENTENCES = (
    "Сколько раз прозвучал звонок в этой записи?",
    "Назовите язык, на котором говорит второй диктор.",
    "Was the second sound louder than the first one?",
    "Повторите последнее слово, которое вы услышали.",
)


def _attack(data: np.ndarray, rate: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Resample to 44.1 kHz and back down to 16 kHz, then add white noise at 15 dB SNR."""
    up = resample(data[:, 0], rate_in=rate, rate_out=44_100)
    down = resample(up, rate_in=44_100, rate_out=16_000)
    noise = rng.normal(0, float(np.sqrt(np.mean(down**2))) * 10 ** (-15 / 20), down.shape)
    return (down + noise).astype(np.float32)[:, None], 16_000


def test_detection_and_false_positive_rates(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    hits = false_alarms = 0
    for i, text in enumerate(SENTENCES):
        data, rate = speech(tmp_path / f"{i}.wav", text, voice="en" if text.isascii() else "ru")
        hits += detect_audio(*_attack(embed_audio(data, rate, key="k"), rate, rng), key="k").detected
        false_alarms += detect_audio(*_attack(data, rate, rng), key="k").detected
        false_alarms += detect_audio(embed_audio(data, rate, key="other"), rate, key="k").detected
    assert hits == len(SENTENCES)
    assert false_alarms == 0


def test_mark_level_follows_snr_and_silence_stays_silent(tmp_path: Path) -> None:
    data, rate = speech(tmp_path / "s.wav", SENTENCES[0])
    silent = np.concatenate([np.zeros((rate, 1), np.float32), data])
    marked = embed_audio(silent, rate, key="k", snr_db=20)
    added = marked - silent
    measured = 10 * np.log10(np.mean(silent**2) / np.mean(added**2))
    assert 17 < measured < 23
    assert np.abs(added[: rate // 2]).max() < 1e-4  # the leading silence carries (almost) no mark
