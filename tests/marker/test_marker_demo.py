"""The MARKER demo task end to end: CircularEval and strict/lenient/compliance side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from omnieval.backends import Backend, BackendOptions, backends
from omnieval.benchmarks.marker.demo import ITEMS, marker_demo
from omnieval.errors import SourceError
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types import Request, Response

TASK_YAML = Path(__file__).parents[2] / "src/omnieval/benchmarks/marker/tasks/marker_demo.yaml"
N_ROTATIONS = sum(len(options) for _, _, options, _ in ITEMS)


class VerboseBackend(Backend):
    """Answers correctly but wordily: lenient parsing reads it, the strict protocol does not."""

    provider = "marker_verbose"
    modalities: ClassVar[frozenset[str]] = frozenset({"text"})

    async def generate(self, request: Request) -> Response:
        return Response(text=f"Подумаем. Правильный ответ: {request.targets[0]}")


if "marker_verbose" not in backends:
    backends.add("marker_verbose", VerboseBackend)


@pytest.fixture(scope="module")
def task_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped task with its generated rows read from a JSONL file."""
    root = tmp_path_factory.mktemp("marker")
    data = marker_demo(root)
    spec: dict[str, Any] = yaml.safe_load(TASK_YAML.read_text(encoding="utf-8"))
    spec["source"] = {**spec["source"], "type": "jsonl", "path": str(data)}
    spec["source"].pop("name")
    path = root / "marker_demo.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    return path


def _run(task_file: Path, model: str, out: Path) -> dict[str, Any]:
    config = RunConfig(
        tasks=(str(task_file),), model=model, output=out, quiet=True, backend=BackendOptions(concurrency=4)
    )
    _, results = evaluate_config(config)
    block = results.tasks["marker_demo"]
    return block


def test_generator_writes_all_items_with_2_to_5_options(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in marker_demo(tmp_path).read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(ITEMS) == 12
    assert {len(r["choices"]) for r in rows} == {2, 3, 4, 5}
    assert all(r["answer"] in "ABCDE"[: len(r["choices"])] for r in rows)
    only = [
        json.loads(line)
        for line in marker_demo(tmp_path, splits=["art"]).read_text(encoding="utf-8").splitlines()
    ]
    assert {r["split"] for r in only} == {"art"}
    with pytest.raises(SourceError, match="unknown split"):
        marker_demo(tmp_path, splits=["chemistry"])


def test_oracle_scores_one_everywhere(task_file: Path, tmp_path: Path) -> None:
    block = _run(task_file, "baseline/oracle", tmp_path / "oracle")
    assert block.n == N_ROTATIONS == 44
    assert block.metrics == pytest.approx(
        {
            "circular_strict": 1.0,
            "circular_lenient": 1.0,
            "accuracy_strict": 1.0,
            "accuracy_lenient": 1.0,
            "format_compliance": 1.0,
        }
    )
    assert block.score == 1.0


def test_always_a_is_right_once_per_item_and_never_circularly(task_file: Path, tmp_path: Path) -> None:
    block = _run(task_file, "baseline/first-option", tmp_path / "first")
    # each item's gold sits at A in exactly one of its N rotations: 12 right of 44
    assert block.metrics["accuracy_strict"] == pytest.approx(12 / 44)
    assert block.metrics["accuracy_lenient"] == pytest.approx(12 / 44)
    assert block.metrics["circular_strict"] == 0.0
    assert block.metrics["format_compliance"] == 1.0


def test_verbose_answers_split_strict_from_lenient(task_file: Path, tmp_path: Path) -> None:
    block = _run(task_file, "marker_verbose/any", tmp_path / "verbose")
    assert block.states["ok"] == 44 and block.states["parse_failed"] == 0
    assert block.metrics["accuracy_lenient"] == 1.0
    assert block.metrics["circular_lenient"] == 1.0
    assert block.metrics["accuracy_strict"] == 0.0
    assert block.metrics["format_compliance"] == 0.0
    assert block.score == 0.0


def test_shipped_task_runs_from_its_generator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(tmp_path / "cache"))
    config = RunConfig(tasks=("marker_demo",), model="baseline/oracle", output=tmp_path / "run", quiet=True)
    _, results = evaluate_config(config)
    block = results.tasks["marker_demo"]
    assert block.n == 44 and block.score == 1.0 and block.score_metric == "circular_strict"
    assert list((tmp_path / "cache" / "generated").glob("marker_demo-*/marker_demo.jsonl"))


class PictureBackend(Backend):
    """Answers the gold letter and records how many images each request carried."""

    provider = "marker_pictures"
    modalities: ClassVar[frozenset[str]] = frozenset({"text", "image"})
    images: ClassVar[dict[str, int]] = {}

    async def generate(self, request: Request) -> Response:
        type(self).images[request.sample_id] = len(request.media)
        return Response(text=str(request.targets[0]))


if "marker_pictures" not in backends:
    backends.add("marker_pictures", PictureBackend)


def test_image_items_are_drawn(tmp_path: Path) -> None:
    from PIL import Image

    rows = [
        json.loads(line)
        for line in marker_demo(tmp_path, kind="image").read_text(encoding="utf-8").splitlines()
    ]
    assert len(rows) == 3
    for row in rows:
        with Image.open(tmp_path / row["image"]) as image:
            assert image.size == (360, 240)
    with Image.open(tmp_path / rows[0]["image"]) as flag:  # white over blue over red
        assert [flag.getpixel((180, y)) for y in (40, 120, 200)] == [
            (255, 255, 255),
            (0, 57, 166),
            (213, 43, 30),
        ]
    with pytest.raises(SourceError, match="kind"):
        marker_demo(tmp_path, kind="video")


def test_shipped_image_task_sends_one_picture_per_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIEVAL_CACHE", str(tmp_path / "cache"))
    PictureBackend.images.clear()
    config = RunConfig(
        tasks=("marker_demo_image",), model="marker_pictures/any", output=tmp_path / "run", quiet=True
    )
    _, results = evaluate_config(config)
    block = results.tasks["marker_demo_image"]
    assert block.n == 4 + 4 + 5 and block.score == 1.0
    assert len(PictureBackend.images) == 13 and set(PictureBackend.images.values()) == {1}
