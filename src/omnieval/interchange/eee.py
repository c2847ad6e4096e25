"""Every Eval Ever (EEE, schema 0.3.0): one aggregate JSON for the run and one JSONL line per stored sample.

Layout, as EEE's own repository stores it: ``OUT/data/omnieval/DEVELOPER/MODEL/UUID.json`` and
``UUID_samples.jsonl`` beside it (the aggregate's ``detailed_evaluation_results.file_path`` names that path).
The schemas are vendored in ``schemas/eee/`` (source and commit in ``SOURCE.md``). Every omnieval request is
one single-turn interaction (a chain's steps too: each is its own request with the earlier answers as
history).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.errors import StoreError
from omnieval.interchange.hf_eval_results import DATASET_KEYS, exported_score
from omnieval.store import typed_records
from omnieval.types import SampleResult
from omnieval.types.files import ManifestFile, ResultsFile, TaskResults, load_file

if TYPE_CHECKING:
    from omnieval.runner import RunConfig

__all__ = ["EEE_SCHEMA_VERSION", "SCHEMA_DIR", "run_files", "spoken_reference", "task_inputs", "write_eee"]

EEE_SCHEMA_VERSION = "0.3.0"
SCHEMA_DIR = Path(__file__).parent / "schemas" / "eee"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


def run_files(run_dir: Path) -> tuple[ResultsFile, ManifestFile, RunConfig]:
    """The run's results, manifest and configuration, each through its model (a bad one names the file)."""
    from pydantic import ValidationError

    from omnieval.runner import RunConfig

    for name in ("results.json", "manifest.json"):
        if not (run_dir / name).exists():
            raise StoreError(f"{run_dir / name} does not exist: not a finished omnieval run directory")
    manifest: ManifestFile = load_file(run_dir / "manifest.json", ManifestFile)
    try:
        config = RunConfig.model_validate(manifest.config)
    except ValidationError as exc:
        raise StoreError(f"{run_dir / 'manifest.json'}: config is not a valid RunConfig: {exc}") from None
    return load_file(run_dir / "results.json", ResultsFile), manifest, config


def _strings(data: dict[str, Any]) -> dict[str, str]:
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in data.items()}


def _source_data(task: str, block: TaskResults) -> dict[str, Any]:
    meta = block.metadata
    repo = next((str(meta[k]) for k in DATASET_KEYS if meta.get(k)), None)
    if repo:
        return {"dataset_name": task, "source_type": "hf_dataset", "hf_repo": repo}
    return {"dataset_name": task, "source_type": "other"}


def _result(task: str, block: TaskResults, when: str, *, run_dir: Path) -> dict[str, Any]:
    metric = str(block.score_metric or "score")
    details = {
        "n": block.n,
        "n_scored": block.n_scored,
        "states": block.states,
        "task_version": block.version,
        "metric_versions": block.metric_versions,
    }
    score: dict[str, Any] = {
        "score": exported_score(task, block, run_dir=run_dir),
        "details": _strings(details),
    }
    if block.ci95:
        low, high = block.ci95
        score["uncertainty"] = {
            "confidence_interval": {
                "lower": low,
                "upper": high,
                "confidence_level": 0.95,
                "method": "bootstrap",
            }
        }
    return {
        "evaluation_result_id": task,
        "evaluation_name": task,
        "source_data": _source_data(task, block),
        "evaluation_timestamp": when,
        "metric_config": {
            "metric_id": metric,
            "metric_name": metric,
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0,
            "max_score": 1,
        },
        "score_details": score,
    }


def task_inputs(config: RunConfig) -> dict[tuple[str, str], tuple[str, list[str] | None]]:
    """``(task, sample_id) → (input text, choices)`` from the run's own tasks (records hold no inputs)."""
    from omnieval.runner import resolve_tasks

    out: dict[tuple[str, str], tuple[str, list[str] | None]] = {}
    for task in resolve_tasks(config.tasks, strict_metrics=config.strict_metrics):
        for sample in task.iter_samples():
            choices = [str(c) for c in sample.choices] if sample.choices else None
            out[(task.name, sample.id)] = (str(sample.input), choices)
    return out


def spoken_reference(record: SampleResult) -> dict[str, Any]:
    """A spoken answer's file as the exports name it (path relative to the run folder, hash, format, rate,
    duration, problem if any): the transcript is the exported answer, this says which audio it was heard
    from. Empty for a text answer."""
    audio = record.audio
    if audio is None:
        return {}
    reference: dict[str, Any] = {
        "path": audio.path,
        "sha256": audio.sha256,
        "format": audio.format,
        "sample_rate": audio.sample_rate,
        "duration_s": audio.duration_s,
    }
    if audio.problem:
        reference["problem"] = audio.problem
    return reference


def _instance(
    record: SampleResult, *, evaluation_id: str, model_id: str, inputs: dict[Any, Any]
) -> dict[str, Any]:
    key = (record.task, record.sample_id)
    raw, choices = inputs.get(key, ("", None))
    reference = [t if isinstance(t, str) else json.dumps(t, ensure_ascii=False) for t in record.targets]
    response = record.response or ""
    extracted = record.extracted
    usage = record.usage
    line: dict[str, Any] = {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": record.task,
        "evaluation_result_id": record.task,
        "sample_id": key[1],
        "sample_hash": hashlib.sha256(json.dumps([raw, reference], ensure_ascii=False).encode()).hexdigest(),
        "interaction_type": "single_turn",
        "input": {"raw": raw, "reference": reference, "choices": choices},
        "output": {
            "raw": [response],
            "reasoning_trace": [record.reasoning] if record.reasoning else None,
        },
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": response if extracted is None else str(extracted),
                "extraction_method": "omnieval parser",
                "is_terminal": True,
            }
        ],
        "evaluation": {
            "score": record.score,
            "is_correct": record.score >= 1.0,
        },
        "error": record.reason if record.state == "error" else None,
        "metadata": {
            "state": record.state,
            **({"variant": record.variant} if record.variant else {}),
            **({"repeat": str(record.repeat)} if record.repeat is not None else {}),  # K lines a sample
            **{f"audio_{k}": str(v) for k, v in spoken_reference(record).items()},  # the schema: strings
        },
    }
    if usage is not None and usage.prompt_tokens is not None and usage.completion_tokens is not None:
        p, c = usage.prompt_tokens, usage.completion_tokens
        line["token_usage"] = {"input_tokens": p, "output_tokens": c, "total_tokens": p + c}
    return line


def write_eee(run_dir: Path, *, output: Path, model_id: str | None = None) -> tuple[Path, Path]:
    """The aggregate JSON and the per-sample JSONL of ``run_dir`` under ``output``; their paths."""
    results, manifest, config = run_files(run_dir)
    model = model_id or results.model or config.model
    provider, _, name = model.partition("/")
    started = str(manifest.started or "")
    digest = hashlib.sha256(f"{model}\n{started}\n{run_dir.resolve()}".encode()).digest()
    evaluation_id = str(uuid.UUID(bytes=digest[:16], version=4))
    rel = Path("data", "omnieval", _slug(provider), _slug(name or provider))
    folder = output / rel
    folder.mkdir(parents=True, exist_ok=True)
    samples_path = folder / f"{evaluation_id}_samples.jsonl"
    inputs = task_inputs(config)
    rows = 0
    with samples_path.open("w", encoding="utf-8") as fh:
        for record in typed_records(run_dir / "samples.jsonl"):
            line = _instance(record, evaluation_id=evaluation_id, model_id=model, inputs=inputs)
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            rows += 1
    when = str(manifest.finished or started)
    aggregate = {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "evaluation_timestamp": when,
        "retrieved_timestamp": str((run_dir / "results.json").stat().st_mtime),
        "source_metadata": {
            "source_name": "omnieval run",
            "source_type": "evaluation_run",
            "source_organization_name": "omnieval",
            "evaluator_relationship": "other",
            "additional_details": {"run_dir": run_dir.name},
        },
        "eval_library": {"name": "omnieval", "version": str(results.omnieval_version or "unknown")},
        "model_info": {
            "name": name or model,
            "id": model,
            "developer": provider,
            "additional_details": {
                "deployment_type": "unknown",
                "model_availability": "unknown",
                "omnieval_spec": config.model,
            },
        },
        "evaluation_results": [_result(t, b, when, run_dir=run_dir) for t, b in results.tasks.items()],
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": (rel / samples_path.name).as_posix(),
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(samples_path.read_bytes()).hexdigest(),
            "total_rows": rows,
        },
    }
    aggregate_path = folder / f"{evaluation_id}.json"
    aggregate_path.write_text(json.dumps(aggregate, ensure_ascii=False, indent=2), encoding="utf-8")
    return aggregate_path, samples_path
