"""``--tasks pollux_judge:ITEMS?answers=ANSWERS``: one judge call per (item, answer, criterion) triple,
run by the ordinary runner with the judge as the ``--model``.

``answers`` is a JSONL of ``{item_id, model, answer}`` or a finished ``pollux:`` run directory (its
``results.json`` names the model). Options: ``template`` (ru | en), ``missing_reference`` (omit |
placeholder), ``regression`` (1: scores may be real-valued). A triple whose criterion needs a
reference the item lacks, and an answer that is missing or failed, are counted in the task's
metadata (``n_no_reference``, ``n_answers_skipped``), never judged on a guess. The judge's raw
outputs land in ``samples.jsonl``; ``omnieval pollux evaluate --judge NAME=RUN_DIR`` parses them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from omnieval.benchmarks.pollux.items import PolluxItem, load_items
from omnieval.benchmarks.pollux.matcher import match_criteria
from omnieval.benchmarks.pollux.prompts import TEMPLATE_VERSION, NoReference, build_judge_prompt
from omnieval.errors import SourceError, TaskFileError
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_rows
from omnieval.sources.task import Task
from omnieval.store.records import typed_records
from omnieval.types import PluginRef, PromptSpec, Sample, TaskSpec
from omnieval.types.files import ResultsFile, load_file

__all__ = ["import_judge_task", "read_answers"]

OPTIONS = {"answers", "template", "missing_reference", "regression"}


def read_answers(path: Path) -> tuple[list[dict[str, str]], int]:
    """(answers, skipped): from a JSONL file or from a ``pollux:`` run directory's records."""
    if path.is_dir():
        results = path / "results.json"
        if not results.exists():
            raise SourceError("not a finished run directory (no results.json)", path=str(path))
        model = load_file(results, ResultsFile).model
        answers, skipped = [], 0
        for rec in typed_records(path / "samples.jsonl"):
            if rec.state != "ok" or not (rec.response or "").strip():
                skipped += 1
                continue
            # a run with repeats: each repeat is an answer set of its own, ``MODEL#r`` (POLLUX scores one
            # judge verdict per item, model and criterion)
            name = model if rec.repeat is None else f"{model}#{rec.repeat}"
            answers.append({"item_id": rec.sample_id, "model": name, "answer": str(rec.response)})
        return answers, skipped
    rows = []
    for index, row in read_rows("jsonl", path=path):
        for name in ("item_id", "model", "answer"):
            if row.get(name) in (None, ""):
                raise SourceError(f"row {index + 1}: missing", path=str(path), field=name)
        rows.append({k: str(row[k]) for k in ("item_id", "model", "answer")})
    return rows, 0


def _samples(
    items: dict[str, PolluxItem],
    answers: list[dict[str, str]],
    options: dict[str, str],
    counts: dict[str, int],
    answers_path: Path,
) -> list[Sample]:
    out = []
    for answer in answers:
        item = items.get(answer["item_id"])
        if item is None:
            raise SourceError(
                "answer names an unknown item",
                path=str(answers_path),
                sample_id=answer["item_id"],
                field="item_id",
            )
        for variant in match_criteria(
            task_type=item.task_type,
            subtype=item.task_subtype,
            style=item.functional_style,
            ethics=item.ethics_flag,
        ):
            try:
                prompt = build_judge_prompt(
                    instruction=item.instruction,
                    answer=answer["answer"],
                    criterion=variant,
                    reference=item.reference_answer,
                    template=options["template"],  # type: ignore[arg-type]
                    missing_reference=options["missing_reference"],
                )  # type: ignore[arg-type]
            except NoReference:
                counts["n_no_reference"] += 1
                continue
            triple = {"item_id": item.id, "model": answer["model"], "criterion": variant.id}
            bounds = {"min": variant.min, "max": variant.max, "higher_is_better": variant.higher_is_better}
            out.append(
                Sample(
                    id=f"{item.id}|{answer['model']}|{variant.id}",
                    input=prompt,
                    metadata={"pollux_triple": triple, "pollux_criterion": bounds},
                )
            )
    return out


@register_importer("pollux_judge")
def import_judge_task(spec: str) -> list[Task]:
    path_text, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query).items()}
    unknown = sorted(set(options) - OPTIONS)
    if unknown or "answers" not in options:
        raise TaskFileError(
            f"pollux_judge: give answers=PATH; known options {sorted(OPTIONS)}, unknown {unknown}",
            path=path_text,
        )
    options.setdefault("template", "ru")
    options.setdefault("missing_reference", "omit")
    if options["template"] not in ("ru", "en") or options["missing_reference"] not in ("omit", "placeholder"):
        raise TaskFileError(
            "pollux_judge: template is ru|en, missing_reference is omit|placeholder", path=path_text
        )
    items = {i.id: i for i in load_items(Path(path_text).expanduser())}
    answers_path = Path(options["answers"]).expanduser()
    answers, skipped = read_answers(answers_path)
    counts = {"n_no_reference": 0, "n_answers_skipped": skipped}
    samples = _samples(items, answers, options, counts, answers_path)
    parser_options: dict[str, Any] = {"allow_real": options.get("regression") == "1"}
    task_spec = TaskSpec(
        name="pollux_judge",
        description="POLLUX judge calls, one criterion per call",
        prompt=PromptSpec(template="{{ input }}"),
        parser=PluginRef(name="pollux_judge", options=parser_options),
        metadata={
            "suite": "pollux",
            "template": options["template"],
            "template_version": TEMPLATE_VERSION,
            "missing_reference": options["missing_reference"],
            **counts,
        },
    )

    def iterate() -> Iterator[Sample]:
        return iter(samples)

    return [Task(spec=task_spec, iter_samples=iterate, size=len(samples), origin=f"pollux_judge:{spec}")]
