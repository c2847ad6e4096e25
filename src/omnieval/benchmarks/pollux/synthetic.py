"""Synthetic judge-training data (§3.1, App. C): instruction prompts from taxonomy slots (App. M.1),
the language filter, the semantic-duplicate filter (Algorithm 1) and export of teacher-annotated
training pairs. Teacher annotation itself is an ordinary run: ``omnieval run --tasks
"pollux_judge:SYNTH_ITEMS?answers=ANSWERS&template=en" --model TEACHER``.

Choices Algorithm 1 leaves open (docs/benchmarks/pollux.md): greedy keep-first inside each task type; chrF is
sacrebleu's sentence chrF, symmetrised by the max of both directions and scaled to 0–1; a sample's
similarity is its maximum over the samples kept before it; expert thresholds are the 95th percentile
of each expert instruction's maximum similarity to the other expert instructions of its task type;
"original" (chrF < 0.3) samples skip the chrF threshold but not the cosine one; without a duplicate
classifier, threshold hits are kept and listed for review.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.benchmarks.pollux.taxonomy import DATA, task_taxonomy

__all__ = [
    "DedupReport",
    "export_training_pairs",
    "generation_prompts",
    "non_russian_share",
    "parse_problem",
    "semantic_dedup",
]

Embed = Callable[[list[str]], Any]
"""texts → array (n, d) of embeddings, from any local or API model."""
_TOKEN = re.compile(r"\w*[^\W\d_]\w*")
_CYR = re.compile(r"^[\u0400-\u04FF\-]+$")
_PROBLEM = re.compile(r"\[PROBLEM\](.*?)(?:\[END\]|$)", re.S)


def generation_prompts(*, template_path: Path | None = None) -> Iterator[dict[str, Any]]:
    """One §3.2d prompt per (task type, subtype, complexity level), slots filled from the taxonomy.
    ``problem_requirements`` is unspecified in the paper: the task definition plus the level's definition."""
    template = (template_path or DATA / "instruction_generation_prompt.txt").read_text(encoding="utf-8")
    for task in task_taxonomy().task_types:
        subtypes = task.subtypes or (None,)
        for sub in subtypes:
            subsubs = (sub.subsubtypes or ("—",)) if sub else ("—",)
            for subsub in subsubs:
                for level in task.levels:
                    slots = {
                        "problem_type": task.name,
                        "problem_subtype": sub.name if sub else "—",
                        "problem_subtype2": subsub,
                        "domain": (sub.style if sub else None) or task.style or "—",
                        "problem_description": task.description,
                        "problem_requirements": f"{task.description} {task.complexity[level]}",
                        "problem_complexity": f"{level}: {task.complexity[level]}",
                    }
                    prompt = template
                    for key, value in slots.items():
                        prompt = prompt.replace("{" + key + "}", value)
                    yield {
                        "task_type": task.name,
                        "task_subtype": sub.name if sub else None,
                        "complexity": level,
                        "prompt": prompt,
                    }


def parse_problem(text: str) -> str | None:
    """The instruction between ``[PROBLEM]`` and ``[END]`` (END optional); ``None`` when absent or empty."""
    match = _PROBLEM.search(text)
    body = match.group(1).strip() if match else ""
    return body or None


def non_russian_share(text: str) -> float:
    """Share of word tokens that are not purely Cyrillic (the paper drops instructions above 5 %)."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return 1.0
    return sum(1 for t in tokens if not _CYR.match(t)) / len(tokens)


def _chrf(a: str, b: str) -> float:
    from sacrebleu.metrics import CHRF

    metric = CHRF()
    return max(metric.sentence_score(a, [b]).score, metric.sentence_score(b, [a]).score) / 100.0


def _unit(vectors: Any) -> Any:
    import numpy as np

    array = np.asarray(vectors, dtype=float)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


def _expert_thresholds(texts: list[str], vectors: Any, quantile: float) -> tuple[float, float] | None:
    import numpy as np

    if len(texts) < 2:
        return None
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1.0)
    cos = sims.max(axis=1)
    chrf = [max(_chrf(t, u) for j, u in enumerate(texts) if j != i) for i, t in enumerate(texts)]
    return float(np.quantile(cos, quantile)), float(np.quantile(chrf, quantile))


@dataclass
class DedupReport:
    kept: list[str] = field(default_factory=list)
    removed: dict[str, str] = field(default_factory=dict)
    """id → reason (cosine, chrf, classifier)."""
    review: list[str] = field(default_factory=list)
    """Kept ids above an expert threshold, left for a duplicate classifier."""
    counts: Counter[str] = field(default_factory=Counter)
    thresholds: dict[str, tuple[float, float]] = field(default_factory=dict)


def semantic_dedup(
    synthetic: Sequence[dict[str, str]],
    expert: Sequence[dict[str, str]],
    *,
    embed: Embed,
    cosine_max: float = 0.8,
    chrf_max: float = 0.8,
    chrf_original: float = 0.3,
    quantile: float = 0.95,
    is_duplicate: Callable[[str, str], bool] | None = None,
) -> DedupReport:
    """Algorithm 1 over rows ``{id, task_type, text}`` (synthetic) and ``{task_type, text}`` (expert)."""
    report = DedupReport()
    by_task: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in synthetic:
        by_task[row["task_type"]].append(row)
    experts: dict[str, list[str]] = defaultdict(list)
    for row in expert:
        experts[row["task_type"]].append(row["text"])
    for task, rows in by_task.items():
        vectors = _unit(embed([r["text"] for r in rows]))
        kept: list[int] = []
        candidates: list[tuple[int, float, float, int]] = []
        for i, row in enumerate(rows):
            cos, nearest = max((float(vectors[i] @ vectors[k]), k) for k in kept) if kept else (-1.0, -1)
            chrf = max((_chrf(row["text"], rows[k]["text"]) for k in kept), default=0.0)
            if cos > cosine_max:
                report.removed[row["id"]] = "cosine"
            elif chrf > chrf_max:
                report.removed[row["id"]] = "chrf"
            else:
                kept.append(i)
                candidates.append((i, cos, chrf, nearest))
        thresholds = None
        if len(experts[task]) >= 2:
            thresholds = _expert_thresholds(experts[task], _unit(embed(experts[task])), quantile)
        if thresholds:
            report.thresholds[task] = thresholds
        for i, cos, chrf, nearest in candidates:
            row = rows[i]
            over = thresholds is not None and (
                cos > thresholds[0] or (chrf >= chrf_original and chrf > thresholds[1])
            )
            if (
                over
                and is_duplicate is not None
                and nearest >= 0
                and is_duplicate(row["text"], rows[nearest]["text"])
            ):
                report.removed[row["id"]] = "classifier"
                continue
            if over:
                report.review.append(row["id"])
            report.kept.append(row["id"])
    report.counts = Counter(report.removed.values())
    report.counts["kept"] = len(report.kept)
    return report


def export_training_pairs(
    judge_run: Path, items_path: Path, answers_path: Path, *, target: str = "seq2seq"
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Teacher verdicts of a ``pollux_judge:`` run → training pairs: the RU training prompt (§3.2a) with
    ``[FEEDBACK] … [RESULT] n [END]`` (seq2seq) or the score (regression). Failed verdicts are counted
    and left out."""
    from omnieval.benchmarks.pollux.items import load_items
    from omnieval.benchmarks.pollux.judge_task import read_answers
    from omnieval.benchmarks.pollux.parser import parse_judge_output
    from omnieval.benchmarks.pollux.prompts import build_judge_prompt
    from omnieval.benchmarks.pollux.taxonomy import criteria_taxonomy
    from omnieval.store.records import typed_records

    items = {i.id: i for i in load_items(items_path)}
    answers = {(a["item_id"], a["model"]): a["answer"] for a in read_answers(answers_path)[0]}
    pairs: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for rec in typed_records(judge_run / "samples.jsonl"):
        triple = rec.metadata.get("pollux_triple")
        if not triple or rec.state not in ("ok", "parse_failed"):
            counts["teacher_failed"] += 1
            continue
        variant = criteria_taxonomy().get(triple["criterion"])
        parsed = parse_judge_output(
            rec.response or "",
            min_score=variant.min,
            max_score=variant.max,
            check_feedback=True,
            higher_is_better=variant.higher_is_better,
        )
        if not parsed.ok:
            counts["verdict_rejected"] += 1
            continue
        item = items[triple["item_id"]]
        prompt = build_judge_prompt(
            instruction=item.instruction,
            answer=answers[(item.id, triple["model"])],
            criterion=variant,
            reference=item.reference_answer,
            template="ru",
        )
        score, feedback = parsed.value["score"], parsed.value["feedback"]  # type: ignore[union-attr]
        output: Any = f"[FEEDBACK] {feedback} [RESULT] {score} [END]" if target == "seq2seq" else float(score)
        pairs.append({"prompt": prompt, "target": output, "criterion": variant.id, "item_id": item.id})
        counts["exported"] += 1
    return pairs, dict(counts)


def synthetic_items(
    run_dir: Path, *, max_non_russian: float = 0.05
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Generated instructions of a ``pollux_synth:`` run → POLLUX items: ``[PROBLEM] … [END]`` extracted,
    the language filter applied; answers without a problem and filtered ones are counted, not kept."""
    from omnieval.store.records import typed_records

    items: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for rec in typed_records(run_dir / "samples.jsonl"):
        meta = rec.metadata.get("pollux_synth") or {}
        text = parse_problem(rec.response or "") if rec.state == "ok" else None
        if not meta or text is None:
            counts["no_problem"] += 1
            continue
        if non_russian_share(text) > max_non_russian:
            counts["language_filtered"] += 1
            continue
        items.append(
            {
                "id": f"synth-{rec.sample_id}",
                "instruction": text,
                "task_type": meta["task_type"],
                "task_subtype": meta.get("task_subtype"),
                "complexity": meta["complexity"],
            }
        )
        counts["kept"] += 1
    return items, dict(counts)
