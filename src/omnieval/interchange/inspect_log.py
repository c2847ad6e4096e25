"""``omnieval export inspect``: one inspect_ai ``.eval`` log per task, written with inspect_ai's own log types
and writer, so ``inspect view`` opens it. Each sample: the task's input as the user message, the model's
response as the assistant message and output, omnieval's score under the scorer ``omnieval``; a spoken
answer's file (path relative to the run folder, hash, format, rate, duration, problem) under the sample's
metadata ``audio``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.interchange.eee import run_files, spoken_reference, task_inputs
from omnieval.interchange.hf_eval_results import exported_score
from omnieval.store import typed_records
from omnieval.types import SampleResult
from omnieval.types.files import TaskResults

__all__ = ["write_inspect_logs"]


def _sample(record: SampleResult, *, model: str, inputs: dict[Any, Any]) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    text, choices = inputs.get((record.task, record.sample_id), ("", None))
    response = record.response or ""
    targets = [t if isinstance(t, str) else str(t) for t in record.targets]
    extracted = record.extracted
    return EvalSample(
        id=record.sample_id,
        epoch=1 if record.repeat is None else record.repeat + 1,  # repeat r is epoch r + 1
        input=text,
        choices=choices,
        target=targets,
        messages=[ChatMessageUser(content=text), ChatMessageAssistant(content=response, model=model)],
        output=ModelOutput.from_content(model=model, content=response),
        scores={
            "omnieval": Score(
                value=record.score,
                answer=None if extracted is None else str(extracted),
                explanation=record.reason,
                metadata={"state": record.state},
            )
        },
        metadata={"state": record.state, "variant": record.variant, **_audio(record)},
    )


def _audio(record: SampleResult) -> dict[str, Any]:
    reference = spoken_reference(record)
    return {"audio": reference} if reference else {}


def _log(
    task: str, block: TaskResults, samples: list[Any], *, model: str, created: str, run_dir: Path
) -> Any:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec

    metrics = {"mean": EvalMetric(name="mean", value=exported_score(task, block, run_dir=run_dir))}
    if block.ci95:
        metrics["ci95_low"] = EvalMetric(name="ci95_low", value=block.ci95[0])
        metrics["ci95_high"] = EvalMetric(name="ci95_high", value=block.ci95[1])
    epochs = max((s.epoch for s in samples), default=1)  # repeats are inspect's epochs
    spec = EvalSpec(
        created=created,
        task=task,
        dataset=EvalDataset(name=task, samples=len({s.id for s in samples})),
        model=model,
        config=EvalConfig(epochs=epochs if epochs > 1 else None),
        metadata={"exported_from": "omnieval", "score_metric": block.score_metric},
    )
    score = EvalScore(name="omnieval", scorer="omnieval", metrics=metrics)
    results = EvalResults(total_samples=len(samples), completed_samples=len(samples), scores=[score])
    return EvalLog(status="success", eval=spec, results=results, samples=samples)


def write_inspect_logs(run_dir: Path, *, output: Path) -> list[Path]:
    """``output/TASK.eval`` for each task of the run; the paths written."""
    from inspect_ai.log import write_eval_log

    results, manifest, config = run_files(run_dir)
    model = results.model or config.model
    inputs = task_inputs(config)
    by_task: dict[str, list[Any]] = {}
    for record in typed_records(run_dir / "samples.jsonl"):
        by_task.setdefault(record.task, []).append(_sample(record, model=model, inputs=inputs))
    output.mkdir(parents=True, exist_ok=True)
    written = []
    for task, block in results.tasks.items():
        path = output / f"{task.replace('/', '__')}.eval"
        created = str(manifest.started)
        log = _log(task, block, by_task.get(task, []), model=model, created=created, run_dir=run_dir)
        write_eval_log(log, str(path), format="eval")
        written.append(path)
    return written
