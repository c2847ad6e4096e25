"""Prompt variants of the Hub benchmarks (``BENCH:DIR?prompts=all``): the authors' prompt stays the default,
alternative wordings are spread over the samples as a task's ``prompt.variants`` are, and ``by_variant``
scores reach results.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omnieval.api import evaluate
from omnieval.errors import TaskFileError
from omnieval.prompts import render_messages
from omnieval.runner.resolve import resolve_tasks
from omnieval.sources.hub import hub_benchmarks
from omnieval.testing.hub_copies import hub_row_ids, write_hub_copy
from tests.benchmarks_hub.helpers import replay

_RUSSIAN = {"mmbench_ru": "букв", "mws_vision": "изображени"}


@pytest.mark.parametrize("bench", sorted(hub_benchmarks.names()))
def test_each_variant_rewords_the_prompt_and_default_is_the_authors(bench: str, tmp_path: Path) -> None:
    root = write_hub_copy(bench, tmp_path / bench, n=2)
    (plain,) = resolve_tasks([f"{bench}:{root}"])
    (task,) = resolve_tasks([f"{bench}:{root}?prompts=all"])
    variants = task.spec.prompt.all_variants()
    assert [v.id for v in plain.spec.prompt.all_variants()] == ["default"]
    assert variants[0].id == "default" and len(variants) >= 3
    samples = list(task.iter_samples())
    authors = [render_messages(s, plain.spec, variant=plain.spec.prompt.all_variants()[0]) for s in samples]
    assert [render_messages(s, task.spec, variant=variants[0]) for s in samples] == authors
    for variant in variants[1:]:
        texts = [render_messages(s, task.spec, variant=variant)[-1].text for s in samples]
        changed = [t for t, a in zip(texts, authors, strict=True) if t != a[-1].text]
        assert changed, f"{bench}: variant {variant.id!r} leaves every prompt as the authors' is"
        if bench in _RUSSIAN:
            assert all(_RUSSIAN[bench] in t for t in changed), changed[0]


def _run(tmp_path: Path, spec: str, model: str, out: str) -> tuple[dict, list[dict]]:
    evaluate(model=model, tasks=[spec], output=tmp_path / out, quiet=True)
    results = json.loads((tmp_path / out / "results.json").read_text(encoding="utf-8"))
    lines = (tmp_path / out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return results["tasks"]["mmstar"], [json.loads(line) for line in lines]


def test_all_variants_give_by_variant_scores_and_the_default_run_is_unchanged(tmp_path: Path) -> None:
    root = write_hub_copy("mmstar", tmp_path / "MMStar", n=12)
    ids = hub_row_ids("mmstar", root)
    # golds run A B C D …; answer A everywhere: samples 0, 4, 8 are right
    model = replay(tmp_path, "mmstar", dict.fromkeys(ids, "A"))
    default, default_records = _run(tmp_path, f"mmstar:{root}", model, "default")
    spread, records = _run(tmp_path, f"mmstar:{root}?prompts=all", model, "all")

    assert default["score"] == pytest.approx(3 / 12) == spread["score"]
    assert default["by_variant"] == {}
    assert {r["variant"] for r in default_records} == {"default"}
    assert len(records) == len(default_records) == 12  # one record per sample either way
    by_variant: dict[str, list[float]] = {}
    for record in records:
        by_variant.setdefault(record["variant"], []).append(record["score"])
    assert sorted(by_variant) == ["default", "letter", "which"]
    assert all(len(scores) == 4 for scores in by_variant.values())  # spread evenly, 12 over 3
    assert spread["by_variant"] == {
        v: {"n": 4, "score": pytest.approx(sum(xs) / 4)} for v, xs in by_variant.items()
    }


def test_a_chosen_subset_and_an_unknown_variant(tmp_path: Path) -> None:
    root = write_hub_copy("chartqa", tmp_path / "ChartQA", n=2)
    (task,) = resolve_tasks([f"chartqa:{root}?prompts=default+short"])
    assert [v.id for v in task.spec.prompt.all_variants()] == ["default", "short"]
    with pytest.raises(TaskFileError, match=r"variant\(s\) \[.nope.\]; known: all, default, short, look"):
        resolve_tasks([f"chartqa:{root}?prompts=nope"])
