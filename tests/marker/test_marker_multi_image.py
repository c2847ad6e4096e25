"""MARKER items with several images: every rotation carries every picture, in placeholder order."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config

TASK = """
name: mi
modalities: [image]
source:
  type: jsonl
  path: items.jsonl
  fields: {media: [{field: images, kind: image, name: image}]}
  transforms: [circular]
prompt:
  template: "{{ input }}\\n{{ options_block }}\\nОтветьте только буквой."
parser: mc_letter
metrics:
  - name: mc_strict_accuracy
    alias: circular_strict
    aggregate: group_all
    aggregate_options: {key: circular_group}
  - {name: mc_strict_accuracy, alias: accuracy_strict}
  - format_compliance
score: circular_strict
"""


def _write(tmp_path: Path) -> Path:
    for name, colour in (("a", "red"), ("b", "blue"), ("c", "green")):
        Image.new("RGB", (8, 8), colour).save(tmp_path / f"{name}.png")
    items = [
        {
            "id": "1",
            "question": "Какой рисунок красный: <image_1> или <image_2>?",
            "choices": ["первый", "второй"],
            "answer": "первый",
            "images": ["a.png", "b.png"],
        },
        {
            "id": "2",
            "question": "Сколько зелёных среди <image_1>, <image_2>, <image_3>?",
            "choices": ["0", "1", "2", "3", "4"],
            "answer": "1",
            "images": ["a.png", "b.png", "c.png"],
        },
    ]
    (tmp_path / "items.jsonl").write_text(
        "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8"
    )
    (tmp_path / "mi.yaml").write_text(TASK, encoding="utf-8")
    return tmp_path / "mi.yaml"


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def test_oracle_and_first_option_on_multi_image_items(tmp_path: Path) -> None:
    task = _write(tmp_path)
    _, oracle = evaluate_config(
        RunConfig(tasks=(str(task),), model="baseline/oracle", output=tmp_path / "o", quiet=True)
    )
    block = oracle.tasks["mi"]
    assert block.n == 2 + 5  # two rotations of item 1, five of item 2
    assert block.score == 1.0 and block.metrics["format_compliance"] == 1.0
    _, first = evaluate_config(
        RunConfig(tasks=(str(task),), model="baseline/first-option", output=tmp_path / "f", quiet=True)
    )
    metrics = first.tasks["mi"].metrics
    # "A" is right in exactly one rotation of each item: 2 of 7 samples, and no item in every rotation
    assert metrics["accuracy_strict"] == 2 / 7 and metrics["circular_strict"] == 0.0


def test_every_rotation_sends_all_images_in_order(tmp_path: Path) -> None:
    from omnieval.backends import backends

    task = _write(tmp_path)
    seen = []
    oracle_cls = backends.get("baseline")

    class Spy(oracle_cls):  # type: ignore[misc, valid-type]
        async def generate(self, request):  # type: ignore[no-untyped-def]
            seen.append(request)
            return await super().generate(request)

    from omnieval.backends import create_backend
    from omnieval.runner import run

    backend = Spy("oracle", options=create_backend("baseline/oracle").options)
    run(
        RunConfig(tasks=(str(task),), model="baseline/oracle", output=tmp_path / "o", quiet=True),
        backend=backend,
    )
    by_item = {r.sample_id.split("#")[0]: [m.name for m in r.media] for r in seen}
    assert by_item == {"1": ["image_1", "image_2"], "2": ["image_1", "image_2", "image_3"]}
    assert all(len(r.media) == (2 if r.sample_id.startswith("1") else 3) for r in seen)
