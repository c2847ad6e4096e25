"""The :class:`TaskSpec` of each MERA task: prompt, parser, metrics (with the fixed result keys), facts.

Result keys: ``em`` for every task, ``group_em`` for ruHHH, ``intent_em`` and ``slot_f1`` for RuSLUn,
and ``fs`` (the task score, FinalScore). Every task but RuSLUn declares MERA's judge (JudgeScore,
``js``; ``group_js`` for ruHHH); with ``--judge`` FS = (EM + JS)/2 (ruHHH: (Group EM + Group JS)/2),
without one FS falls back to EM and the results' ``judge`` block says JS was not computed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.benchmarks.mera.catalog import MeraTask
from omnieval.benchmarks.mera.em import Leniency
from omnieval.benchmarks.mera.judge import judge_spec
from omnieval.benchmarks.mera.metrics import judge_note
from omnieval.benchmarks.mera.taxonomy import skill_levels
from omnieval.types import GenerationConfig, MetricRef, PluginRef, PromptSpec, SourceSpec, TaskSpec

__all__ = ["GENERATION", "RUSLUN_NOTE", "em_note", "task_metrics", "task_spec"]

RUSLUN_NOTE = (
    "RuSLUn parity quirk (MERA's released code): only the prediction is lower-cased, so a gold intent with "
    "capitals (RateBook, PlayMusic, ...) never matches, even when the model gives it exactly, and "
    "capitalised "
    "gold slot values lose F1; --strict-metrics (mera_ruslun_strict) compares case-folded"
)

GENERATION = GenerationConfig(temperature=0.0, max_tokens=1024, seed=1234)
"""Greedy decoding and seed 1234 as in MERA's lm-eval runs; room for the five reasoning prompts."""


def task_metrics(task: MeraTask, *, lenient: Leniency = Leniency()) -> tuple[MetricRef, ...]:
    """The metrics of one task under their fixed result keys; ``lenient`` turns on EM leniencies."""
    if task.answer == "JSON":
        return (MetricRef(name="mera_ruslun", alias="fs"),)  # reports em, intent_em, slot_f1 and fs
    options = {k: True for k, on in lenient.enabled().items() if on}
    em = MetricRef(name="mera_em", alias="em", options=options)
    if task.group_field:
        by_group: dict[str, Any] = {"key": "mera_group"}
        return (
            em,
            MetricRef(
                name="mera_em",
                alias="group_em",
                options=options,
                aggregate="group_all",
                aggregate_options=by_group,
            ),
            MetricRef(
                name="mera_fs", alias="fs", options=options, aggregate="group_all", aggregate_options=by_group
            ),
        )
    return (em, MetricRef(name="mera_fs", alias="fs", options=options))


def em_note(task: MeraTask, lenient: Leniency) -> dict[str, Any]:
    """How EM is computed, reported with the task (``results.json`` → ``metadata.exact_match``)."""
    if task.answer == "JSON":
        rule = (
            "RuSLUn as MERA's released code: lower-cased prediction, clean_json_text, json.loads; "
            "intent_em = intent equal, slot_f1 over (slot, value) pairs; em = both exact"
        )
        return {"rule": rule, "quirk": RUSLUN_NOTE}
    return {
        "rule": "SQuAD normalisation as MERA's compute_exact; best of whole answer and text after the last "
        "case-sensitive ОТВЕТ (--strict-metrics: any-case ANSWER/ОТВЕТ, —«»: trimmed)",
        "quirk": "a gold letter A normalises to empty (article), so an empty answer scores 1 on A-gold "
        "questions; --strict-metrics fixes it",
        "leniencies": lenient.enabled(),
    }


def _metadata(task: MeraTask, dataset_dir: Path, answers_hidden: bool) -> dict[str, Any]:
    return {
        "benchmark": "MERA Multi",
        "mera_task": task.name,
        "hf_name": task.hf_name,
        "submission_name": task.submission,
        "modality": task.modality,
        "answer_format": task.answer,
        "paper_metrics": list(task.metrics),
        "human_baseline": task.human_baseline,
        "licence": task.licence,
        "public": task.public,
        "answers_hidden": answers_hidden,
        "prediction_only": answers_hidden,
        "dataset_size": task.size,
        "domain_field": task.domain_field,
        "domains": list(task.domains),
        "skills": list(task.skills),
        "skill_levels": skill_levels(task.skills),
        "judge": {} if task.answer == "JSON" else judge_note(),
        "notes": [RUSLUN_NOTE] if task.answer == "JSON" else [],
        "dataset_dir": str(dataset_dir),
        "licence_note": "MERA Multi licence: research and non-commercial testing only; never use for "
        "training.",
    }


def task_spec(
    task: MeraTask, *, dataset_dir: Path, answers_hidden: bool = False, lenient: Leniency = Leniency()
) -> TaskSpec:
    """The spec of one imported task; the published ``instruction`` is the prompt.

    ``answers_hidden`` (every ``outputs`` empty, as in private test sets) makes the task prediction-only:
    the leaderboard never counts it as attempted, whatever state its samples end in.
    """
    prompt = PromptSpec(format="chat", template="{{ input }}")
    if task.dialogue:
        prompt = PromptSpec(format="chat", template="{{ input }}", renderer=PluginRef(name="mera_rutie"))
    return TaskSpec(
        name=task.name,
        version="1",
        description=f"MERA Multi {task.hf_name}: {task.description.en}",
        modalities=(task.modality,),
        tags=("mera", f"mera_{task.modality}", "public" if task.public else "private"),
        groups=("mera", f"mera_{task.modality}"),
        language="ru",
        source=SourceSpec(type="parquet", path=str(dataset_dir), split="test"),
        prompt=prompt,
        parser=PluginRef(name="strip"),
        metrics=task_metrics(task, lenient=lenient),
        judge=None if task.answer == "JSON" else judge_spec(grouped=bool(task.group_field), lenient=lenient),
        score="fs",
        truncated="score_text",  # MERA scores whatever text came back, cut off or not
        generation=GENERATION,
        metadata={**_metadata(task, dataset_dir, answers_hidden), "exact_match": em_note(task, lenient)},
    )
