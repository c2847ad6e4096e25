"""Synthesized sound events, tunes and backgrounds (numpy recipes; nothing downloaded).

Each recipe is a few lines of additive/subtractive synthesis seeded by (sound name, asset seed), so the
canonical pool (asset seed 0) is the same everywhere and a different asset seed gives fresh variants of
every sound (the paper's contamination argument: re-populate the templates with new samples). These are
stand-ins for the paper's Freesound recordings; an asset folder replaces any of them with a real one.

Recipes (16 kHz):
- bell: inharmonic partials (1, 2, 2.76, 5.4, 8.9 × ~600 Hz), exponential decays, 1.5 s
- cat: "meow", harmonic tone 450→700→380 Hz with vowel formants, 0.8 s
- dog: one bark, 0.25 s, harmonic+noise burst with a falling 520→300 Hz pitch
- elephant: trumpet, bright sawtooth ~400 Hz rising with 6 Hz vibrato, 1.2 s
- horse: neigh, 900→450 Hz with 11 Hz vibrato and tremolo, 1.4 s
- sheep: bleat "baa", 320 Hz with 7 Hz tremolo and /a/ formants, 0.9 s
- bird: song of six 3-4.5 kHz chirps; bird2: cuckoo call (two falling notes, twice)
- airplane: low-passed noise drone + 110 Hz engine hum swelling in and out, 4 s
- motorcycle: pulse-train engine revving 35→70 Hz, 3 s
- opera: sung /a/ melody with vibrato (soprano formants), 3 s
- rain: high band noise + random droplets; thunderstorm: a crack, long low rumble and rain, 4 s
- tunes (3.2 s): circus (fast staccato march), drum (kick/snare/hat pattern, 120 bpm),
  elevator (soft electric-piano jazz chords), piano (plucked additive piano melody)
- backgrounds (6 s): kids (high-pitched babble and laughter), coffee_shop (low babble, cup clinks),
  train_station (rumble, babble, three-note chime), concert (band chords and crowd), football_game
  (crowd roar and whistle), traffic (passing cars, horns), sea (slow wave swells), christmas (sleigh
  bells and a bell melody)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache

import numpy as np

from omnieval.benchmarks.art.dsp import RATE, edge_fades, normalize

__all__ = ["RECIPES", "RECIPE_VERSION", "TUNES", "synthesize", "tame"]

RECIPE_VERSION = "synth-1"
Rng = np.random.Generator


def _t(seconds: float) -> np.ndarray:
    return np.arange(round(seconds * RATE)) / RATE


def _osc(freq: np.ndarray, amps: tuple[float, ...] = (1.0, 0.5, 0.3, 0.2)) -> np.ndarray:
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    return sum((a * np.sin((k + 1) * phase) for k, a in enumerate(amps)), np.zeros(freq.size))


def _env(n: int, attack: float, release: float) -> np.ndarray:
    env = np.ones(n)
    a, r = min(round(attack * RATE), n), min(round(release * RATE), n)
    if a:
        env[:a] = np.linspace(0, 1, a)
    if r:
        env[-r:] *= np.linspace(1, 0, r)
    return env


def _band(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    spec = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(x.size, 1 / RATE)
    spec[(freqs < lo) | (freqs > hi)] = 0
    return np.fft.irfft(spec, n=x.size)


def _formants(x: np.ndarray, centres: tuple[float, ...], width: float = 150.0) -> np.ndarray:
    spec = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(x.size, 1 / RATE)
    gain = sum((np.exp(-0.5 * ((freqs - c) / width) ** 2) for c in centres), np.zeros(freqs.size))
    return np.fft.irfft(spec * (0.05 + gain), n=x.size)


def _noise(rng: Rng, seconds: float, lo: float, hi: float) -> np.ndarray:
    return _band(rng.standard_normal(round(seconds * RATE)), lo, hi)


def _place(out: np.ndarray, event: np.ndarray, at_s: float, gain: float = 1.0) -> None:
    i = round(at_s * RATE)
    n = min(event.size, out.size - i)
    if n > 0:
        out[i : i + n] += gain * event[:n]


def _contour(points: list[float], seconds: float) -> np.ndarray:
    return np.interp(np.linspace(0, 1, round(seconds * RATE)), np.linspace(0, 1, len(points)), points)


def _bell_hit(f0: float, seconds: float = 1.5) -> np.ndarray:
    t = _t(seconds)
    parts = ((1, 1.0, 1.2), (2.0, 0.6, 1.0), (2.76, 0.4, 0.7), (5.4, 0.25, 0.5), (8.9, 0.15, 0.3))
    return sum((a * np.sin(2 * np.pi * f0 * r * t) * np.exp(-t / d) for r, a, d in parts), np.zeros(t.size))


def _note(
    f0: float, seconds: float, *, decay: float = 0.4, amps: tuple[float, ...] = (1, 0.5, 0.25, 0.12)
) -> np.ndarray:
    t = _t(seconds)
    return _osc(np.full(t.size, f0), amps) * np.exp(-t / decay) * _env(t.size, 0.005, 0.02)


def bell(rng: Rng) -> np.ndarray:
    return _bell_hit(600 * rng.uniform(0.95, 1.05))


def cat(rng: Rng) -> np.ndarray:
    k = rng.uniform(0.92, 1.08)
    f = _contour([450 * k, 700 * k, 620 * k, 380 * k], 0.8)
    return _formants(_osc(f, (1, 0.7, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1)), (900, 1700, 3000)) * _env(
        f.size, 0.06, 0.25
    )


def dog(rng: Rng) -> np.ndarray:
    k = rng.uniform(0.9, 1.1)
    f = _contour([520 * k, 420 * k, 300 * k], 0.25)
    body = _formants(_osc(f, (1, 0.8, 0.6, 0.5, 0.4, 0.3)), (700, 1400), 250)
    return (body + 0.3 * _noise(rng, 0.25, 300, 3000)) * _env(f.size, 0.01, 0.12)


def elephant(rng: Rng) -> np.ndarray:
    t = _t(1.2)
    f = _contour([380, 470, 440], 1.2) * rng.uniform(0.95, 1.05) + 15 * np.sin(2 * np.pi * 6 * t)
    saw = _osc(f, tuple(1 / k for k in range(1, 16)))
    return (saw + 0.1 * _noise(rng, 1.2, 500, 4000)) * _env(t.size, 0.08, 0.3)


def horse(rng: Rng) -> np.ndarray:
    t = _t(1.4)
    f = _contour([900, 1000, 700, 450], 1.4) * rng.uniform(0.95, 1.05) + 60 * np.sin(2 * np.pi * 11 * t)
    trem = 0.6 + 0.4 * np.sin(2 * np.pi * 11 * t)
    return _formants(_osc(f, (1, 0.6, 0.4, 0.3, 0.2)), (1000, 2200), 300) * trem * _env(t.size, 0.05, 0.5)


def sheep(rng: Rng) -> np.ndarray:
    t = _t(0.9)
    f = np.full(t.size, 320 * rng.uniform(0.92, 1.08))
    trem = 0.55 + 0.45 * np.sin(2 * np.pi * 7 * t)
    return (
        _formants(_osc(f, (1, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2)), (700, 1200, 2600))
        * trem
        * _env(t.size, 0.05, 0.2)
    )


def bird(rng: Rng) -> np.ndarray:
    out = np.zeros(round(1.5 * RATE))
    for i in range(6):
        lo = rng.uniform(2800, 3300)
        chirp = np.sin(2 * np.pi * np.cumsum(_contour([lo, lo + 1400], 0.08)) / RATE)
        _place(out, chirp * np.hanning(chirp.size), 0.1 + i * 0.22)
    return out


def bird2(rng: Rng) -> np.ndarray:
    out = np.zeros(round(1.6 * RATE))
    k = rng.uniform(0.95, 1.05)
    for start in (0.1, 0.9):
        for j, f0 in enumerate((700 * k, 560 * k)):
            note = _osc(np.full(round(0.25 * RATE), f0), (1, 0.1)) * np.hanning(round(0.25 * RATE))
            _place(out, note, start + j * 0.32)
    return out


def airplane(rng: Rng) -> np.ndarray:
    t = _t(4.0)
    hum = _osc(np.full(t.size, 110 * rng.uniform(0.95, 1.05)), (1, 0.6, 0.4, 0.3, 0.2))
    return (_noise(rng, 4.0, 50, 900) * 3 + 0.3 * hum) * np.sin(np.pi * t / 4.0) ** 2


def motorcycle(rng: Rng) -> np.ndarray:
    t = _t(3.0)
    f = _contour([35, 45, 70, 55], 3.0) * rng.uniform(0.9, 1.1)
    engine = _osc(f, tuple(1 / k for k in range(1, 25)))
    return (engine + 0.2 * _noise(rng, 3.0, 100, 2000)) * _env(t.size, 0.2, 0.4)


def opera(rng: Rng) -> np.ndarray:
    notes = (523.3, 587.3, 659.3, 784.0)
    order = rng.permutation(len(notes))
    f = np.concatenate([np.full(round(0.75 * RATE), notes[i]) for i in order])
    t = np.arange(f.size) / RATE
    voice = _osc(f * (1 + 0.02 * np.sin(2 * np.pi * 5.5 * t)), (1, 0.6, 0.4, 0.3, 0.25, 0.2, 0.15))
    return _formants(voice, (800, 1150, 2900), 200) * _env(f.size, 0.1, 0.3)


def rain(rng: Rng) -> np.ndarray:
    out = 0.4 * _noise(rng, 4.0, 1000, 6000)
    for at in rng.uniform(0, 3.95, size=320):
        drop = _band(rng.standard_normal(80), 2000, 7000) * np.hanning(80)
        _place(out, drop, float(at), 0.8)
    return out


def thunderstorm(rng: Rng) -> np.ndarray:
    t = _t(4.0)
    crack = np.zeros(t.size)
    _place(crack, _noise(rng, 0.3, 200, 5000) * np.exp(-_t(0.3) / 0.08), 0.3)
    rumble = _noise(rng, 4.0, 20, 200) * 6 * np.exp(-np.maximum(t - 0.35, 0) / 1.5) * (t > 0.3)
    return crack * 3 + rumble + 0.5 * rain(rng)


def _melody(
    freqs: list[float], step_s: float, note: Callable[[float, float], np.ndarray], seconds: float = 3.2
) -> np.ndarray:
    out = np.zeros(round(seconds * RATE))
    for i, f0 in enumerate(freqs):
        _place(out, note(f0, step_s * 1.5), i * step_s)
    return out


def circus(rng: Rng) -> np.ndarray:
    run = [
        659,
        622,
        659,
        587,
        554,
        587,
        523,
        494,
        523,
        587,
        659,
        698,
        784,
        880,
        784,
        659,
        523,
        587,
        659,
        523,
        440,
        494,
        523,
        392,
        440,
        523,
    ]
    k = rng.uniform(0.97, 1.03)
    return _melody(
        [f * k for f in run], 0.12, lambda f, d: _note(f, d, decay=0.08, amps=(1, 0, 0.33, 0, 0.2))
    )


def drum(rng: Rng) -> np.ndarray:
    out = np.zeros(round(3.2 * RATE))
    kick_t = _t(0.35)
    kick = np.sin(2 * np.pi * np.cumsum(_contour([90, 45], 0.35)) / RATE) * np.exp(-kick_t / 0.15)
    snare = (_noise(rng, 0.2, 800, 6000) * 0.6 + np.sin(2 * np.pi * 190 * _t(0.2))) * np.exp(-_t(0.2) / 0.07)
    hat = _noise(rng, 0.06, 6000, 7900) * np.exp(-_t(0.06) / 0.02)
    for beat in range(13):
        at = beat * 0.25
        _place(out, hat, at, 0.5)
        if beat % 4 == 0:
            _place(out, kick, at, 1.2)
        if beat % 4 == 2:
            _place(out, snare, at, 0.8)
    return out


def elevator(rng: Rng) -> np.ndarray:
    chords = (
        (261.6, 329.6, 392.0, 493.9),
        (220.0, 261.6, 329.6, 392.0),
        (293.7, 349.2, 440.0, 523.3),
        (196.0, 246.9, 293.7, 349.2),
    )
    out = np.zeros(round(3.2 * RATE))
    t = _t(0.9)
    for i, chord in enumerate(chords):
        tone = sum(
            (np.sin(2 * np.pi * f * t) + 0.2 * np.sin(4 * np.pi * f * t) for f in chord), np.zeros(t.size)
        )
        _place(out, tone * (0.8 + 0.2 * np.sin(2 * np.pi * 5 * t)) * _env(t.size, 0.05, 0.3), i * 0.8)
    return out * rng.uniform(0.9, 1.1)


def piano(rng: Rng) -> np.ndarray:
    tune = [329.6, 329.6, 349.2, 392.0, 392.0, 349.2, 329.6, 293.7, 261.6, 261.6, 293.7, 329.6, 329.6]
    k = rng.uniform(0.98, 1.02)
    return _melody(
        [f * k for f in tune], 0.24, lambda f, d: _note(f, d, decay=0.5, amps=(1, 0.4, 0.3, 0.15, 0.1, 0.05))
    )


def _babble(rng: Rng, seconds: float, voices: int, f_lo: float, f_hi: float) -> np.ndarray:
    t = _t(seconds)
    out = np.zeros(t.size)
    for _ in range(voices):
        f = np.interp(t, np.linspace(0, seconds, 12), rng.uniform(f_lo, f_hi, 12))
        syllables = np.clip(np.sin(2 * np.pi * rng.uniform(3, 5) * t + rng.uniform(0, 6)), 0, None)
        out += _formants(_osc(f, (1, 0.7, 0.5, 0.3, 0.2)), tuple(rng.uniform(500, 2500, 2))) * syllables
    return out


def kids(rng: Rng) -> np.ndarray:
    out = _babble(rng, 6.0, 5, 260, 420)
    for at in rng.uniform(0.2, 5.2, size=4):
        laugh = np.concatenate(
            [_osc(np.full(1600, rng.uniform(350, 450)), (1, 0.6, 0.3)) * np.hanning(1600) for _ in range(4)]
        )
        _place(out, laugh, float(at), 1.5)
    return out


def coffee_shop(rng: Rng) -> np.ndarray:
    out = _babble(rng, 6.0, 8, 100, 220)
    for at in rng.uniform(0.2, 5.8, size=6):
        _place(out, _bell_hit(rng.uniform(2500, 3500), 0.3), float(at), 0.8)
    return out


def train_station(rng: Rng) -> np.ndarray:
    out = _noise(rng, 6.0, 30, 160) * 4 + 0.5 * _babble(rng, 6.0, 6, 100, 250)
    for j, f0 in enumerate((659.3, 523.3, 392.0)):
        _place(out, _bell_hit(f0, 1.2), 0.8 + j * 0.5, 1.5)
    return out


def concert(rng: Rng) -> np.ndarray:
    out = 0.6 * _noise(rng, 6.0, 300, 3000)
    for i in range(12):
        root = (196.0, 261.6, 220.0, 174.6)[(i // 3) % 4]
        for ratio in (1, 1.26, 1.5):
            _place(out, _note(root * ratio, 0.5, decay=0.3, amps=(1, 0.8, 0.6, 0.4, 0.3)), i * 0.5, 0.8)
    return out


def football_game(rng: Rng) -> np.ndarray:
    t = _t(6.0)
    out = _noise(rng, 6.0, 300, 3000) * (1 + 0.5 * np.sin(2 * np.pi * 0.3 * t)) * 2
    whistle = _osc(np.full(round(0.5 * RATE), 3000.0) + 80 * np.sin(2 * np.pi * 30 * _t(0.5)), (1,))
    _place(out, whistle * _env(whistle.size, 0.02, 0.05), 2.0, 0.8)
    return out


def traffic(rng: Rng) -> np.ndarray:
    t = _t(6.0)
    out = np.zeros(t.size)
    for centre in rng.uniform(0.5, 5.5, size=4):
        out += _noise(rng, 6.0, 60, 1200) * 3 * np.exp(-(((t - centre) / 0.8) ** 2))
    horn = _osc(np.full(round(0.5 * RATE), 410.0), (1, 0.5, 0.3)) + _osc(
        np.full(round(0.5 * RATE), 517.0), (1, 0.5, 0.3)
    )
    _place(out, horn * _env(horn.size, 0.02, 0.05), float(rng.uniform(1, 4)), 0.5)
    return out + 0.5 * _noise(rng, 6.0, 40, 400)


def sea(rng: Rng) -> np.ndarray:
    t = _t(6.0)
    swell = 0.2 + np.sin(np.pi * (t / 3.0 + rng.uniform(0, 1))) ** 4
    return _noise(rng, 6.0, 100, 3000) * swell


def christmas(rng: Rng) -> np.ndarray:
    out = np.zeros(round(6.0 * RATE))
    for at in np.arange(0, 5.9, 0.125):
        _place(out, _bell_hit(rng.uniform(2000, 2600), 0.15), float(at), 0.3)
    jingle = [659.3, 659.3, 659.3, 659.3, 659.3, 659.3, 659.3, 784.0, 523.3, 587.3, 659.3]
    for i, f0 in enumerate(jingle):
        _place(out, _bell_hit(f0 / 2, 0.6), 0.3 + i * 0.45, 0.7)
    return out


RECIPES: dict[str, Callable[[Rng], np.ndarray]] = {
    f.__name__: f
    for f in (
        bell,
        cat,
        dog,
        elephant,
        horse,
        sheep,
        bird,
        bird2,
        airplane,
        motorcycle,
        opera,
        rain,
        thunderstorm,
        circus,
        drum,
        elevator,
        piano,
        kids,
        coffee_shop,
        train_station,
        concert,
        football_game,
        traffic,
        sea,
        christmas,
    )
}


TUNES = ("circus", "drum", "elevator", "piano")
_PEAK_LIMIT = {"tune": 0.4, "other": 0.7}
"""Peak ceilings at -20 dBFS RMS: tunes leave 6 dB headroom for "louder" (-8 dBFS), others -3 dBFS."""


def tame(x: np.ndarray, ceiling: float) -> np.ndarray:
    """Normalise to -20 dBFS, soft-limiting peaks (tanh) until they sit under ``ceiling``."""
    y = normalize(x)
    for _ in range(6):
        peak = float(np.max(np.abs(y))) if y.size else 0.0
        if peak <= ceiling:
            break
        y = normalize(np.tanh(y / ceiling * 0.9) * ceiling)
    return y


@cache
def synthesize(name: str, *, asset_seed: int = 0) -> np.ndarray:
    """The sound ``name`` normalised to -20 dBFS, edge-faded; the same (name, seed) gives the same samples."""
    digest = hashlib.sha256(f"{RECIPE_VERSION}:{name}:{asset_seed}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    ceiling = _PEAK_LIMIT["tune" if name in TUNES else "other"]
    out = edge_fades(tame(RECIPES[name](rng), ceiling))
    out.setflags(write=False)
    return out
