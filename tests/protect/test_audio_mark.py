"""The offline audio mark on speech and music-like clips: how far below the signal it lies (SNR), and its
detection and false-positive rates after resampling, lossy re-encoding (PyAV) and added noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from omnieval.protect import detect_audio, embed_audio
from tests.protect.conftest import ATTACKS, audio_clips, speech


def _snr_db(original: np.ndarray, marked: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(original**2) / np.mean((marked - original) ** 2)))


def test_default_mark_is_quiet_and_survives_resampling_reencoding_and_noise(tmp_path: Path) -> None:
    clips = audio_clips(tmp_path)
    marked = [embed_audio(data, rate, key="k") for data, rate in clips]
    assert min(_snr_db(data, m) for (data, _), m in zip(clips, marked, strict=True)) >= 30.0
    for name, attack in ATTACKS.items():
        hits = [
            detect_audio(*attack(m, rate), key="k").detected
            for m, (_, rate) in zip(marked, clips, strict=True)
        ]
        assert np.mean(hits) >= 0.9, name
    false_alarms = [
        detect_audio(*attack(data, rate), key="k").detected
        for data, rate in clips
        for attack in ATTACKS.values()
    ]
    false_alarms += [
        detect_audio(embed_audio(data, rate, key="other"), rate, key="k").detected for data, rate in clips
    ]
    assert np.mean(false_alarms) <= 0.1


def test_mark_level_follows_snr_and_silence_stays_silent(tmp_path: Path) -> None:
    data, rate = speech(tmp_path / "s.wav", "Сколько раз прозвучал звонок в этой записи?")
    silent = np.concatenate([np.zeros((rate, 1), np.float32), data])
    marked = embed_audio(silent, rate, key="k", snr_db=20)
    added = marked - silent
    assert 17 < _snr_db(silent, marked) < 23
    assert np.abs(added[: rate // 2]).max() < 1e-4  # the leading silence carries (almost) no mark
