"""results.json is typed at every level: aggregation builds the model, the file is written from it and
reads back identical, an unknown key anywhere is refused naming its path, a task with nothing scored has
no score (``null``, never 0.0) and a version-1 file is migrated explicitly."""

from __future__ import annotations

import copy
import json
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import omnieval
from omnieval.aggregate import compute_results, task_results
from omnieval.errors import StoreError
from omnieval.sources import Task
from omnieval.types import MetricRef, TaskSpec
from omnieval.types.files import LeaderboardFile, ManifestFile, load_file, results_model
from omnieval.types.migrations import results_v1_to_v2
from omnieval.types.results import ResultsFile
from omnieval.types.versions import RESULTS_SCHEMA_VERSION


def _task_block() -> dict[str, Any]:
    """A task block holding every key and every nested block a run can write."""
    return {
        "score": 0.5,
        "n": 4,
        "n_scored": 4,
        "scored": True,
        "states": {"ok": 3, "error": 1},
        "metrics": {"em": 0.5, "pass@1": 0.5},
        "score_metric": "em",
        "ci95": [0.25, 0.75],
        "prediction_only": 0,
        "example_reasons": {"error": ["HTTP 503: busy"]},
        "error_causes": {"HTTP 503": {"n": 1, "example": "HTTP 503: busy"}},
        "unscored_ids": [],
        "by_variant": {"a": {"n": 2, "score": 0.5}, "b": {"n": 2, "score": 0.5}},
        "breakdowns": {"subject": {"Art": {"n": 1, "score": 1.0}, "Math": {"n": 3, "score": 0.25}}},
        "parse_fallbacks": 0,
        "truncated_scoring": "zero",
        "version": "1",
        "metric_versions": {"em": "exact_match@1"},
        "judge": {
            "judged": True,
            "key": "js",
            "versions": {"j@1": 4},
            "n_judged": 4,
            "judge_failed": 0,
            "derived": {},
            "groups_key": "group_js",
            "groups_judged": 2,
            "groups_left_out": 0,
            "note": "judged",
        },
        "repeats": {
            "k": 2,
            "pass_k": [1, 2],
            "pass_threshold": 1.0,
            "samples": 2,
            "per_repeat_scores": [0.5, 0.5],
            "per_repeat_sd": 0.0,
            "per_repeat_range": [0.5, 0.5],
            "within_sample_variance": 0.25,
            "majority_tie_break": "first",
            "ci": "clustered",
        },
        "agent": {
            "episodes": 4,
            "success_rate": 0.5,
            "ends": {"submitted": 3, "step_limit": 1},
            "tool_calls": 10,
            "call_states": {"ok": 9, "unknown_tool": 1},
            "valid_call_rate": 0.9,
            "mean_steps": 2.5,
            "steps_to_success": 2.0,
            "tokens_to_success": 300.0,
            "cost_usd": None,
        },
        "cost": {"model_usd": 0.5, "judge_usd": 0.25, "priced": 4, "unpriced": 0, "total_usd": 0.75},
        "hash": "abc",
        "modalities": ["text"],
        "language": "en",
        "metadata": {"free": {"form": [1, 2]}},
        "recognition": {"audio": 2, "audio_empty": 0},
        "ids": {"answered": 4, "missing": 0, "unknown": 0},
        "template_leaks": 2,
        "template_leak_example": "<|im_end|>",
        "latency": {
            "n": 3,
            "ttft_p50_s": 0.1,
            "ttft_p95_s": 0.3,
            "tokens_per_s_p50": 80.0,
            "tokens_per_s_p95": 40.0,
            "latency_p50_s": 0.5,
            "latency_p95_s": 0.9,
        },
    }


def _document() -> dict[str, Any]:
    """A results.json holding every top-level key a run, a re-score, a re-judge or the platform writes."""
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "model": "m/x",
        "omnieval_version": "0.1.0",
        "tasks": {"t": _task_block()},
        "states": {"ok": 3, "error": 1},
        "cost": {
            "model_usd": 0.5,
            "judge_usd": 0.25,
            "total_usd": 0.75,
            "priced": 4,
            "unpriced": 0,
            "note": "USD",
        },
        "blind": False,
        "retries": 2,
        "backend": {"provider": "m", "model": "x"},
        "model_kind": "model",
        "stopped": "cost_limit",
        "cost_limit": 1.0,
        "hooks": {"wandb": {"failures": 1, "first_error": "x", "events": {"record": 4}}, "dropped_events": 3},
        "rescored": True,
        "rejudged": True,
        "judges": {"t": {"model": "j"}},
        "imported_from": "lm-eval",
        "breakdowns": [],
        "score_digits": 3,
        "not_attempted": ["u"],
    }


NESTED = {
    (): "ResultsFile",
    ("tasks", "t"): "TaskResults",
    ("tasks", "t", "judge"): "JudgeSummary",
    ("tasks", "t", "repeats"): "RepeatSummary",
    ("tasks", "t", "agent"): "AgentSummary",
    ("tasks", "t", "cost"): "TaskCost",
    ("tasks", "t", "ids"): "TaskIds",
    ("tasks", "t", "latency"): "LatencySummary",
    ("tasks", "t", "by_variant", "a"): "VariantScore",
    ("tasks", "t", "breakdowns", "subject", "Art"): "VariantScore",
    ("tasks", "t", "error_causes", "HTTP 503"): "CauseCount",
    ("cost",): "RunCost",
    ("hooks", "wandb"): "HookReport",
}
"""Where each model of results.json sits in :func:`_document`."""


def _models_in(model: type[BaseModel]) -> set[str]:
    """The names of ``model`` and of every model its fields reach."""
    found: set[str] = set()

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation.__name__ not in found:
                found.add(annotation.__name__)
                for field in annotation.model_fields.values():
                    visit(field.annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(model)
    return found


def _at(document: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path:
        document = document[key]
    return document


def test_the_document_covers_every_model_and_every_key() -> None:
    assert set(NESTED.values()) == _models_in(ResultsFile)  # a new nested model needs a row in NESTED
    for path, name in NESTED.items():
        model = next(m for m in _all_models() if m.__name__ == name)
        written = set(_at(_document(), path))
        assert written == {f for f, info in model.model_fields.items() if not info.exclude}, name


def _all_models() -> list[type[BaseModel]]:
    import omnieval.types.results as module

    return [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, BaseModel)]


@pytest.mark.parametrize("path", list(NESTED), ids=lambda p: "/".join(p) or "top")
def test_an_unknown_key_at_any_level_is_refused_naming_its_path(
    tmp_path: Path, path: tuple[str, ...]
) -> None:
    document = _document()
    _at(document, path)["colour"] = "blue"
    (tmp_path / "results.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        omnieval.load_results(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "results.json") in message
    assert ".".join([*path, "colour"]) + ": unknown key" in message


@pytest.mark.parametrize(
    ("model", "document", "path"),
    [
        (ManifestFile, {"status": "finished"}, ()),
        (ManifestFile, {"environment": {"python": "3.11"}}, ("environment",)),
        (ManifestFile, {"tasks": {"t": {"hash": "h"}}}, ("tasks", "t")),
        (LeaderboardFile, {"rows": []}, ()),
    ],
)
def test_the_manifest_and_the_leaderboard_refuse_an_unknown_key(
    tmp_path: Path, model: type[BaseModel], document: dict[str, Any], path: tuple[str, ...]
) -> None:
    load_file(_written(tmp_path, document), model)  # valid as it is
    _at(document, path)["colour"] = "blue"
    with pytest.raises(StoreError, match=r"\b" + ".".join([*path, "colour"]) + ": unknown key"):
        load_file(_written(tmp_path, document), model)


def _written(tmp_path: Path, document: dict[str, Any]) -> Path:
    path = tmp_path / "file.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_document_read_and_written_again_is_the_same_document() -> None:
    document = _document()
    typed = results_model(copy.deepcopy(document), source="results.json")
    assert json.dumps(typed.document()) == json.dumps(document)  # same keys, same order, same values
    small = {"model": "m", "tasks": {"t": {"score": 1.0, "n": 1, "states": {"ok": 1}}}}
    assert results_model(copy.deepcopy(small), source="x").document() == {"schema_version": 2, **small}


def _spec() -> TaskSpec:
    return TaskSpec(name="t", metrics=(MetricRef(name="exact_match", alias="em"),), score="em")


def _record(i: int, **fields: Any) -> dict[str, Any]:
    score = float(i % 2)
    return {
        "task": "t",
        "sample_id": str(i),
        "state": "ok",
        "score": score,
        "metrics": {"em": score},
        **fields,
    }


def test_results_json_from_the_aggregation_round_trips(tmp_path: Path) -> None:
    records = [_record(i, variant="ab"[i % 2]) for i in range(6)] + [
        _record(6, state="error", score=0.0, metrics={}, reason="HTTP 503: busy")
    ]
    results = compute_results([Task.from_samples(_spec(), [])], records, model="m", extra={"retries": 1})
    text = json.dumps(results.document(), indent=2)
    (tmp_path / "results.json").write_text(text, encoding="utf-8")
    again = omnieval.load_results(tmp_path).results
    assert again == results and json.dumps(again.document(), indent=2) == text
    block = again.tasks["t"]
    assert block.error_causes["HTTP 503"].n == 1 and block.by_variant["a"].n == 3
    assert block.cost is not None and block.cost.unpriced == 7


def test_a_task_with_nothing_scored_has_no_score_not_zero() -> None:
    records = [_record(i, scored=False, score=0.0, metrics={}) for i in range(3)]
    block = task_results([Task.from_samples(_spec(), [])], records)["t"]
    assert block.score is None and block.ci95 is None and block.scored is False
    assert block.prediction_only == 3 and block.n_scored == 0
    written = compute_results([Task.from_samples(_spec(), [])], records, model="m").document()
    assert written["tasks"]["t"]["score"] is None and written["tasks"]["t"]["ci95"] is None


def _v1() -> dict[str, Any]:
    """What omnieval wrote before version 2: a hidden-answer task with ``score: 0.0`` beside
    ``scored: false``, and a metric value that is not a number."""
    scored = {"score": 0.75, "n": 4, "scored": True, "states": {"ok": 4}, "metrics": {"em": 0.75, "odd": 1}}
    hidden = {
        "score": 0.0,
        "n": 2,
        "n_scored": 0,
        "scored": False,
        "states": {"ok": 2},
        "metrics": {"em": 0.0, "note": "n/a", "missing": None},
        "ci95": None,
    }
    return {"schema_version": 1, "model": "m", "tasks": {"a": scored, "hidden": hidden}, "retries": 2}


def test_results_v1_to_v2_keeps_every_value_and_drops_the_placeholder_score() -> None:
    old = _v1()
    new = results_v1_to_v2(copy.deepcopy(old))
    assert new["schema_version"] == 2 and new["model"] == "m" and new["retries"] == 2
    assert new["tasks"]["a"] == {**old["tasks"]["a"], "metrics": {"em": 0.75, "odd": 1.0}}
    hidden = new["tasks"]["hidden"]
    assert hidden["score"] is None and hidden["ci95"] is None
    assert hidden["metrics"] == {"em": 0.0}  # the non-numbers were never scores
    assert {k: v for k, v in hidden.items() if k not in ("score", "metrics")} == {
        k: v for k, v in old["tasks"]["hidden"].items() if k not in ("score", "metrics")
    }


@pytest.mark.parametrize("version", [1, None], ids=["v1", "unversioned"])
def test_a_version_1_file_loads_migrated(tmp_path: Path, version: int | None) -> None:
    document = _v1()
    if version is None:
        del document["schema_version"]
    (tmp_path / "results.json").write_text(json.dumps(document), encoding="utf-8")
    results = omnieval.load_results(tmp_path).results
    assert results.schema_version == 2
    assert results.tasks["hidden"].score is None and results.tasks["a"].score == 0.75
    assert results.tasks["a"].metrics == {"em": 0.75, "odd": 1.0}


def test_a_newer_version_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({**_document(), "schema_version": 3}), encoding="utf-8")
    with pytest.raises(StoreError, match=r"results\.json: schema_version 3 is not one this omnieval reads"):
        omnieval.load_results(tmp_path)
