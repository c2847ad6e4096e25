"""``omnieval import lm-eval``: lm-evaluation-harness results (and its sample logs) as an omnieval run folder.

lm-eval writes ``results_TIMESTAMP.json`` (per task ``"METRIC,FILTER": value`` and ``"METRIC_stderr,FILTER"``)
and, with ``--log_samples``, ``samples_TASK_TIMESTAMP.jsonl`` beside it (one line per document and filter:
``doc_id``, ``target``, ``filtered_resps``, ``filter``, and each metric's per-document value). Each task's
score
is the value lm-eval printed for its first metric (``--metric`` picks another), its CI lm-eval's stderr ×
1.96;
records come from the sample logs, so ``compare`` (paired tests), ``report`` and boards work across harnesses.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

from omnieval.errors import StoreError
from omnieval.store import write_json
from omnieval.types.files import results_model

__all__ = ["import_lm_eval"]


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path}: not a readable lm-eval results file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise StoreError(f"{path}: no 'results' object: not an lm-eval results file")
    return data


def _metric_key(task: str, block: dict[str, Any], wanted: str | None, path: Path) -> str:
    keys = [k for k in block if "," in k and "_stderr," not in k and isinstance(block[k], int | float)]
    if wanted is not None:
        keys = [k for k in keys if k == wanted or k.split(",")[0] == wanted]
    if not keys:
        raise StoreError(f"{path}: task {task!r} has no numeric metric{f' {wanted!r}' if wanted else ''}")
    return keys[0]


def _sample_file(results_path: Path, task: str) -> Path | None:
    found = sorted(results_path.parent.glob(f"samples_{task}_*.jsonl"))
    return found[-1] if found else None


def _response(line: dict[str, Any]) -> str:
    resps: Any = line.get("filtered_resps")
    while isinstance(resps, list) and resps:
        resps = resps[0]
    return "" if resps is None or resps == [] else str(resps)


def _records(task: str, key: str, path: Path) -> list[dict[str, Any]]:
    metric, _, filt = key.partition(",")
    out = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        line = json.loads(raw)
        if line.get("filter", filt) != filt:
            continue
        if metric not in line:
            raise StoreError(f"{path}:{number}: sample {line.get('doc_id')!r} has no field {metric!r}")
        metrics = {
            m: float(line[m]) for m in line.get("metrics", [metric]) if isinstance(line.get(m), int | float)
        }
        out.append(
            {
                "task": task,
                "sample_id": str(line["doc_id"]),
                "state": "ok",
                "score": float(line[metric]),
                "metrics": metrics,
                "response": _response(line),
                "targets": [str(line.get("target"))],
                "scored": True,
            }
        )
    return out


def _block(block: dict[str, Any], key: str, records: list[dict[str, Any]], n: int | None) -> dict[str, Any]:
    score = float(block[key])
    metric, _, filt = key.partition(",")
    stderr = block.get(f"{metric}_stderr,{filt}")
    ci = None
    if isinstance(stderr, int | float) and math.isfinite(stderr):
        ci = [score - 1.96 * stderr, score + 1.96 * stderr]
    count = len(records) if records else (n or 0)
    return {
        "score": score,
        "n": count,
        "n_scored": count,
        "scored": True,
        "states": {"ok": count},
        "metrics": {k: v for k, v in block.items() if "," in k and isinstance(v, int | float)},
        "score_metric": key,
        "ci95": ci,
        "metadata": {"source": "lm-eval", "alias": block.get("alias")},
    }


def import_lm_eval(results_path: Path, *, output: Path, metric: str | None = None) -> dict[str, Any]:
    """Write ``output/{samples.jsonl,results.json,manifest.json}`` from an lm-eval results file; the
    results."""
    data = _load(results_path)
    if (output / "samples.jsonl").exists():
        raise StoreError(f"{output} already holds a run; import into a new folder")
    keys = {task: _metric_key(task, block, metric, results_path) for task, block in data["results"].items()}
    output.mkdir(parents=True, exist_ok=True)
    model = str(data.get("model_name") or (data.get("config") or {}).get("model_args") or "unknown")
    tasks, records = {}, []
    for task, block in data["results"].items():
        key = keys[task]
        sample_path = _sample_file(results_path, task)
        mine = _records(task, key, sample_path) if sample_path else []
        n = ((data.get("n-samples") or {}).get(task) or {}).get("effective")
        tasks[task] = _block(block, key, mine, n)
        records += mine
    with (output / "samples.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    now = dt.datetime.now(dt.UTC).isoformat()
    states = {"ok": sum(t["n"] for t in tasks.values())}
    imported = {"model": f"lm-eval/{model}", "tasks": tasks, "states": states, "imported_from": "lm-eval"}
    results = results_model(imported, source=output / "results.json").document()  # the current version
    write_json(output / "results.json", results)
    manifest = {
        "status": "finished",
        "started": now,
        "finished": now,
        "imported_from": str(results_path),
        "config": {"model": f"lm-eval/{model}", "tasks": list(tasks)},
        "lm_eval": {k: data.get(k) for k in ("config", "versions", "n-shot", "higher_is_better", "git_hash")},
    }
    write_json(output / "manifest.json", manifest)
    return results
