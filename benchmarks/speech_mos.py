"""Benchmark: the optional metric ``mos`` (DNSMOS, extra ``speech-mos``) — Festival against noise.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/speech_mos.py``

Festival reads eight Russian sentences through a real ``omnieval`` run of a task that scores
``[intelligibility, cer, mos]``, so the hearing measures DNSMOS for every answer; the same predictor then
rates espeak-ng reading the same sentences and seeded white noise of the same lengths (the floor). The
check: Festival's overall DNSMOS is above the noise's. Numbers go into docs/running/spoken-answers.md.
"""

from __future__ import annotations

import io
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile

from omnieval import api
from omnieval.backends import tts
from omnieval.media.audio import mixdown, resample
from omnieval.media.spoken import ASR_RATE, quality_estimate

SENTENCES = (
    "Кошка спит на окне.",
    "В классе двадцать пять учеников.",
    "Поезд отправляется в семь часов утра.",
    "Мы встретимся у библиотеки в субботу.",
    "Летом на даче растут огурцы и помидоры.",
    "Директор подписал приказ вчера вечером.",
    "На улице идёт сильный дождь.",
    "Этот город основан в тысяча сто сорок седьмом году.",
)


def _task(folder: Path) -> Path:
    rows = [{"id": f"s{i}", "text": text} for i, text in enumerate(SENTENCES)]
    (folder / "mos.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
    )
    (folder / "mos.yaml").write_text(
        "name: mos_ru\nmodalities: [text]\nlanguage: ru\n"
        "source: {type: jsonl, path: mos.jsonl, fields: {input: text, targets: text}}\n"
        'prompt: {template: "{{ input }}"}\nparser: {name: strip}\nmetrics: [intelligibility, cer, mos]\n',
        encoding="utf-8",
    )
    return folder / "mos.yaml"


def _ovrl(wav: bytes) -> float:
    frames, rate = soundfile.read(io.BytesIO(wav), dtype="float32", always_2d=True)
    return quality_estimate(resample(mixdown(frames), rate_in=rate, rate_out=ASR_RATE))["dnsmos_ovrl"]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "festival"
        started = time.perf_counter()
        result = api.evaluate(tasks=str(_task(Path(tmp))), model="tts/festival", output=out, quiet=True)
        wall = time.perf_counter() - started
        rows = [json.loads(line) for line in (out / "samples.jsonl").read_text("utf-8").splitlines()]
        festival = [r["audio"]["measures"]["dnsmos_ovrl"] for r in rows]
        durations = [r["audio"]["duration_s"] for r in rows]
        block = result.results.tasks["mos_ru"]
    espeak = [_ovrl(tts.synthesize(s, engine="espeak", language="ru")) for s in SENTENCES]
    rng = np.random.default_rng(0)
    noise = [quality_estimate(0.1 * rng.standard_normal(int(d * ASR_RATE)))["dnsmos_ovrl"] for d in durations]
    figures = {
        "festival_dnsmos_ovrl": round(statistics.mean(festival), 3),
        "festival_metric_mos": round(block.metrics["mos"], 3),
        "festival_cer": round(block.metrics["cer"], 3),
        "espeak_dnsmos_ovrl": round(statistics.mean(espeak), 3),
        "noise_dnsmos_ovrl": round(statistics.mean(noise), 3),
        "festival_run_wall_s": round(wall, 1),
    }
    print(json.dumps(figures, indent=1))
    assert figures["festival_dnsmos_ovrl"] > figures["noise_dnsmos_ovrl"], figures


if __name__ == "__main__":
    main()
