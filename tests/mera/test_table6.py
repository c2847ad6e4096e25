"""Acceptance: Table 6 of the MERA Multi paper recomputed from the per-task numbers of Tables 18-21.

The tables are copied verbatim into ``data/paper_tables.tsv``. Per-task values are EM / JS rounded
to two decimals, so FS = (EM + JS)/2 carries up to ±0.005 of rounding; Table 6 prints three.
Two inputs are not in Tables 18-21 and are taken from Table 6's own modality totals (spread evenly
over the attempted tasks): deepseek-vl2-small (9 of 11 image tasks) and Phi-4-multimodal audio.
Qwen3-Omni did not attempt CommonVideoQA (0.00 / 0.00 in Table 21, C = 0.889).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from omnieval.benchmarks.mera.catalog import catalogue, find_task
from omnieval.benchmarks.mera.scheme import mera_scheme, score_model

DATA = Path(__file__).with_name("data") / "paper_tables.tsv"
TOL = 0.003  # two-decimal inputs can move a mean by up to ±0.005; the largest gap observed is 0.002


def _tables() -> dict[str, list[list[str]]]:
    tables: dict[str, list[list[str]]] = {}
    current = ""
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:]
            tables[current] = []
        elif line.strip() and not line.startswith("#"):
            tables[current].append(line.split("\t"))
    return tables


def _key(name: str) -> str:
    name = name.lower().replace("gpt 4.1", "gpt 4")
    for suffix in ("-instruct", "-inst"):
        name = name.removesuffix(suffix)
    return name


def _per_task() -> dict[str, dict[str, dict[str, float]]]:
    """model key -> task -> FS, from Tables 18-21; exact names win over suffix-stripped ones."""
    out: dict[str, dict[str, dict[str, float]]] = {"exact": {}, "loose": {}}
    for name in ("table18", "table19", "table20", "table21"):
        header, *rows = _tables()[name]
        tasks = [find_task(col.rstrip("*")) for col in header[2:]]
        for row in rows[1:]:  # rows[0] is the human baseline
            for task, cell in zip(tasks, row[2:], strict=True):
                assert task is not None
                em, js = (float(x) for x in cell.split("/"))
                for kind, key in (("exact", row[0].lower()), ("loose", _key(row[0]))):
                    out[kind].setdefault(key, {}).setdefault(task.name, (em + js) / 2)
    return out


def _scores_for(model: str, modalities: dict[str, float]) -> dict[str, float]:
    tables = _per_task()
    known = tables["loose"].get(_key(model), {}) | tables["exact"].get(model.lower(), {})
    scores: dict[str, float] = {}
    for modality in ("image", "audio", "video"):
        tasks = [t.name for t in catalogue().of_modality(modality)]
        if modalities[modality] == 0.0:
            continue
        have = {t: known[t] for t in tasks if t in known}
        if have:
            scores |= have
        elif model == "deepseek-vl2-small":  # 9 of 11 image tasks, totals only (see module doc)
            scores |= dict.fromkeys(tasks[:9], modalities[modality] * 11 / 9)
        else:  # Phi-4-multimodal audio: totals only
            scores |= dict.fromkeys(tasks, modalities[modality])
    if model.startswith("Qwen3-Omni"):
        assert scores.pop("commonvideoqa") == 0.0  # not attempted
    return scores


TABLE6 = _tables()["table6"][1:]


@pytest.mark.parametrize("row", TABLE6, ids=[r[0] for r in TABLE6])
def test_table6_row_reproduced(row: list[str]) -> None:
    model = row[0]
    total, attempted, coverage, image, audio, video = (float(x) for x in row[1:])
    scores = _scores_for(model, {"image": image, "audio": audio, "video": video})
    tasks = {k: {"score": v, "n": 1, "states": {"ok": 1}} for k, v in scores.items()}
    board = mera_scheme([{"model": model, "tasks": tasks}])
    got = board["rows"][0]
    assert got["coverage"] == pytest.approx(coverage, abs=0.0006)  # coverage is exact
    for key, want in (
        ("image", image),
        ("audio", audio),
        ("video", video),
        ("attempted", attempted),
        ("total", total),
    ):
        assert got[key] == pytest.approx(want, abs=TOL), key


def test_table6_covers_every_model_row() -> None:
    assert len(TABLE6) == 26


def test_equation2_differs_from_table6_for_multimodal_models() -> None:
    """§5.6: Qwen2.5-VL-72B under equation (2) is (0.406 + 0.625)/2 = 0.516, T = 0.344."""
    image = dict.fromkeys([t.name for t in catalogue().of_modality("image")], 0.406)
    video = dict.fromkeys([t.name for t in catalogue().of_modality("video")], 0.625)
    eq2 = score_model(image | video, weighting="modalities")
    assert eq2["attempted"] == pytest.approx(0.5155, abs=1e-9)
    assert eq2["total"] == pytest.approx(0.5155 * 2 / 3, abs=1e-9)
    tasks = score_model(image | video, weighting="tasks")
    assert tasks["attempted"] == pytest.approx((11 * 0.406 + 3 * 0.625) / 14, abs=1e-9)  # 0.453 as printed


def test_single_modality_rows_agree_under_both_weightings() -> None:
    audio = {"aquaria": 0.2, "ruenvaqa": 0.4, "ruslun": 0.0, "rutie_audio": 0.6}
    a, b = score_model(audio, weighting="tasks"), score_model(audio, weighting="modalities")
    assert a["attempted"] == b["attempted"] == pytest.approx(0.3)
    assert a["coverage"] == pytest.approx(1 / 3) and a["total"] == pytest.approx(0.1)
