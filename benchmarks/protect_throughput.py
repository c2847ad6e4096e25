"""Protection throughput: images (1024 px) and audio seconds per second for mark and detect, MSMIA
items per second for each feature stage (perturbation, media-conditioned losses, embeddings), and the
audio mark's measured SNR against its detection rate after each attack, for three strengths.

Run: python benchmarks/protect_throughput.py [--images 8] [--audio-seconds 60] [--msmia-items 8]
[--torch-threads 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "hf"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _rate(n: float, fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return n / (time.perf_counter() - start)


def images(n: int) -> None:
    from omnieval.protect import detect_image, embed_image

    rng = np.random.default_rng(0)
    pics = [Image.fromarray(rng.integers(0, 255, (1024, 1024, 3), dtype=np.uint8)) for _ in range(n)]
    marked: list[Image.Image] = []
    mark = _rate(n, lambda: marked.extend(embed_image(p, key="k") for p in pics))
    detect = _rate(n, lambda: [detect_image(p, key="k") for p in marked])
    print(f"image-invisible 1024 px: mark {mark:.1f} img/s, detect {detect:.1f} img/s")


def audio(seconds: int) -> None:
    from omnieval.protect import detect_audio, embed_audio

    rate = 16_000
    t = np.arange(rate * seconds) / rate
    data = (0.2 * np.sin(2 * np.pi * 180 * t) * (np.sin(2 * np.pi * 0.9 * t) > 0)).astype(np.float32)[:, None]
    out: list[np.ndarray] = []
    mark = _rate(seconds, lambda: out.append(embed_audio(data, rate, key="k")))
    detect = _rate(seconds, lambda: detect_audio(out[0], rate, key="k"))
    print(f"audio 16 kHz: mark {mark:.0f} audio-s/s, detect {detect:.0f} audio-s/s")


def audio_strengths(levels: tuple[float, ...] = (26.0, 32.0, 40.0)) -> None:
    """SNR measured against the original vs detection rate, on 3 spoken and 3 music-like clips per level."""
    from tests.protect.conftest import ATTACKS, audio_clips

    from omnieval.protect import detect_audio, embed_audio

    with tempfile.TemporaryDirectory() as tmp:
        clips = audio_clips(Path(tmp))
    false_alarms = [
        detect_audio(*attack(d, r), key="k").detected for d, r in clips for attack in ATTACKS.values()
    ]
    print(f"audio mark false alarms on unmarked clips: {sum(false_alarms)}/{len(false_alarms)}")
    for level in levels:
        marked = [embed_audio(d, r, key="k", snr_db=level) for d, r in clips]
        snr = [
            10 * np.log10(np.mean(d**2) / np.mean((m - d) ** 2))
            for (d, _), m in zip(clips, marked, strict=True)
        ]
        rates = {
            name: np.mean(
                [
                    detect_audio(*attack(m, r), key="k").detected
                    for m, (_, r) in zip(marked, clips, strict=True)
                ]
            )
            for name, attack in {"none": lambda d, r: (d, r), **ATTACKS}.items()
        }
        print(
            f"audio mark --snr-db {level:g}: measured SNR {min(snr):.1f}-{max(snr):.1f} dB; detected "
            + ", ".join(f"{name} {rate:.0%}" for name, rate in rates.items())
        )


def msmia(n: int) -> None:
    import tiny_models

    from omnieval.backends.base import BackendOptions, create_backend
    from omnieval.backends.embeddings import create_embedder
    from omnieval.protect.msmia.features import media_request
    from omnieval.protect.msmia.perturb import perturb
    from omnieval.types import Sample

    with tempfile.TemporaryDirectory() as tmp:
        model = tiny_models.build_llama(Path(tmp) / "m")
        backend = create_backend(f"hf/{model}", options=BackendOptions())
        texts = [f"кот дом река лес red blue green один два три {i}" for i in range(n)]
        neighbours: list[list[str]] = []
        p = _rate(
            n,
            lambda: neighbours.extend(
                [x for _, x in perturb(t, k_per_kind=6, seed=i)] for i, t in enumerate(texts)
            ),
        )
        losses = _rate(
            n,
            lambda: [
                backend.text_losses(media_request("t", Sample(id=str(i), input=t)), [t, *nb])  # type: ignore[attr-defined]
                for i, (t, nb) in enumerate(zip(texts, neighbours, strict=True))
            ],
        )
        embedder = create_embedder(f"hf/{model}")  # the same tiny model as a mean-pooled encoder
        embed = _rate(n, lambda: [embedder.embed([t, *nb]) for t, nb in zip(texts, neighbours, strict=True)])
    print(
        f"MSMIA (K=18, tiny 2-layer model, CPU): perturb {p:.0f} items/s, losses {losses:.2f} items/s, "
        f"embeddings {embed:.2f} items/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=8)
    parser.add_argument("--audio-seconds", type=int, default=60)
    parser.add_argument("--msmia-items", type=int, default=8)
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=None,
        help="torch intra-op threads (1 avoids spin-waiting on an oversubscribed machine)",
    )
    args = parser.parse_args()
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    images(args.images)
    audio(args.audio_seconds)
    audio_strengths()
    msmia(args.msmia_items)


if __name__ == "__main__":
    main()
