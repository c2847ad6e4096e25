"""MARKER image-necessity review and size-band / quantization summaries, against hand-worked numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import omnieval.benchmarks.marker  # noqa: F401  (adds the builder commands)
from omnieval.benchmarks.marker.cli import app
from omnieval.benchmarks.marker.model_set import load_scores, model_facts, quantization_deltas, size_bands
from omnieval.benchmarks.marker.necessity import load_runs, review
from omnieval.errors import StoreError


def _run(folder: Path, model: str, *, blind: bool, values: dict[str, float], task: str = "geo") -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(
        json.dumps({"config": {"model": model, "blind": blind}}), encoding="utf-8"
    )
    (folder / "results.json").write_text(
        json.dumps({"model": model, "blind": blind, "tasks": {}}), encoding="utf-8"
    )
    lines = [
        json.dumps(
            {"task": task, "sample_id": item, "state": "ok", "score": v, "scored": True, "metadata": {}}
        )
        for item, v in values.items()
    ]
    (folder / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    return [
        _run(tmp_path / "a", "m1", blind=False, values={"map": 1, "text": 1, "graph": 1}),
        _run(tmp_path / "b", "m2", blind=False, values={"map": 0, "text": 1, "graph": 1}),
        _run(tmp_path / "c", "m1", blind=True, values={"map": 0, "text": 1, "graph": 1}),
        _run(tmp_path / "d", "m2", blind=True, values={"map": 0, "text": 1, "graph": 0}),
    ]


def test_items_answerable_without_the_picture_are_flagged(runs: list[Path]) -> None:
    media, blind = load_runs(runs, task="geo")
    stats = {s.item: s for s in review(media, blind, threshold=0.5)}
    assert (stats["text"].media, stats["text"].blind, stats["text"].flagged) == (1.0, 1.0, True)
    assert (stats["graph"].blind, stats["graph"].gap, stats["graph"].flagged) == (0.5, 0.5, True)
    assert (stats["map"].media, stats["map"].blind, stats["map"].flagged) == (0.5, 0.0, False)
    strict = {s.item: s.flagged for s in review(media, blind, threshold=0.75)}
    assert strict == {"text": True, "graph": False, "map": False}
    assert [s.item for s in review(media, blind)][:2] == [
        "text",
        "graph",
    ]  # flagged first, most blind-solvable first


def test_necessity_needs_both_kinds_of_run(runs: list[Path]) -> None:
    with pytest.raises(StoreError, match="blind run"):
        load_runs(runs[:2], task="geo")
    done = CliRunner().invoke(app, ["necessity", *map(str, runs), "--task", "geo", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["flagged"] == 2


@pytest.mark.parametrize(
    ("name", "params", "bits", "base"),
    [
        ("Qwen/Qwen2-VL-7B-Instruct-4bit", 7.0, 4, "qwen2-vl-7b-instruct"),
        ("Qwen2-VL-7B-Instruct", 7.0, 16, "qwen2-vl-7b-instruct"),
        ("llava-onevision-qwen2-0.5b-ov", 0.5, 16, "llava-onevision-qwen2-0.5b-ov"),
        ("InternVL2_5-1B", 1.0, 16, "internvl2_5-1b"),
        ("gemma-3-12b-it-int8", 12.0, 8, "gemma-3-12b-it"),
        ("Qwen2.5-VL-3B-Instruct-AWQ", 3.0, 4, "qwen2.5-vl-3b-instruct"),
        ("gemma3-270m-q4_k_m", None, 4, "gemma3-270m"),
    ],
)
def test_size_and_precision_are_read_from_names(
    name: str, params: float | None, bits: int, base: str
) -> None:
    facts = model_facts(name)
    assert (facts.params_b, facts.bits, facts.base) == (params, bits, base)


def test_bands_and_quantization_deltas_on_the_article_table(tmp_path: Path) -> None:
    """MARKER §5 rows (Art, History): band means and Qwen2-VL-7B 4→8-bit deltas worked by hand."""
    table = {
        "InternVL2-1B": (0.573, 0.466),
        "InternVL2-2B": (0.266, 0.258),
        "Qwen2.5-VL-3B-Instruct": (0.800, 0.694),
        "Qwen2-VL-7B-Instruct-4bit": (0.430, 0.325),
        "Qwen2-VL-7B-Instruct-8bit": (0.765, 0.603),
        "gemma-3-12b-it": (0.821, 0.706),
    }
    dirs = []
    for i, (model, (art, history)) in enumerate(table.items()):
        folder = tmp_path / f"r{i}"
        folder.mkdir()
        tasks = {
            name: {"score": v, "n": 1, "states": {"ok": 1}}
            for name, v in (("art", art), ("history", history))
        }
        (folder / "results.json").write_text(json.dumps({"model": model, "tasks": tasks}), encoding="utf-8")
        dirs.append(folder)
    scores = [load_scores(d) for d in dirs]
    facts = {s.model: model_facts(s.model) for s in scores}
    bands = size_bands(scores, facts)
    assert bands["<=2B"]["tasks"]["art"] == pytest.approx((0.573 + 0.266) / 2)
    assert bands["3-4B"]["models"] == ["Qwen2.5-VL-3B-Instruct"]
    assert bands["7-12B"]["tasks"]["history"] == pytest.approx((0.325 + 0.603 + 0.706) / 3)
    [delta] = quantization_deltas(scores, facts)
    assert (delta["lower_bits"], delta["higher_bits"]) == (4, 8)
    assert delta["delta"] == pytest.approx({"art": 0.335, "history": 0.278})
    done = CliRunner().invoke(app, ["model-set", *map(str, dirs)])
    assert done.exit_code == 0 and "4->8 bits, mean delta +0.306" in done.output
