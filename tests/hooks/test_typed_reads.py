"""The tracker hooks read the run's files through their models: results (summary metrics), the manifest
(W&B's run config) and the records (the sample table). A file that does not validate names itself and
the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from omnieval.errors import StoreError
from omnieval.hooks.tables import SampleRows, summary_metrics
from omnieval.hooks.wandb_hook import _manifest
from omnieval.types.files import results_model

OLD_RUN = Path(__file__).parents[1] / "api" / "fixtures" / "run_v0"


def test_summary_metrics_come_from_the_typed_results(tmp_path: Path) -> None:
    doc = json.loads((OLD_RUN / "results.json").read_text(encoding="utf-8"))
    doc["tasks"]["STEM"]["ci95"] = [0.5, 1.0]
    metrics = summary_metrics(results_model(doc, source=tmp_path / "results.json"))
    assert metrics["STEM/score"] == 1.0 and metrics["STEM/n"] == 3
    assert (metrics["STEM/ci95_low"], metrics["STEM/ci95_high"]) == (0.5, 1.0)
    assert metrics["STEM/states/ok"] == 3 and metrics["STEM/metrics/exact_match"] == 1.0
    hidden = {**doc["tasks"]["STEM"], "scored": False, "score": 0.0}  # hidden answers: 0.0 placeholder
    unscored = summary_metrics(
        results_model({**doc, "tasks": {"STEM": hidden}}, source=tmp_path / "results.json")
    )
    assert "STEM/score" not in unscored and not any("metrics" in k or "ci95" in k for k in unscored)
    assert unscored["STEM/n"] == 3 and unscored["STEM/states/ok"] == 3
    del doc["tasks"]["STEM"]["n"]
    with pytest.raises(StoreError) as err:
        results_model(doc, source=tmp_path / "results.json")
    assert str(tmp_path / "results.json") in str(err.value) and "tasks.STEM.n" in str(err.value)


def test_the_manifest_is_read_as_written_once_it_validates(tmp_path: Path) -> None:
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    written = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert _manifest(run) == written  # no default key of the model is added
    (run / "manifest.json").write_text(json.dumps({**written, "schema_version": 9}), encoding="utf-8")
    with pytest.raises(StoreError, match=r"manifest\.json: schema_version 9"):
        _manifest(run)
    assert _manifest(tmp_path) == {}  # no manifest: nothing to log


def test_the_sample_table_reads_records_through_their_model(tmp_path: Path) -> None:
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    rows = SampleRows()
    rows.add({"task": "STEM", "sample_id": "1"}, prompt="1+1?", media=())
    cells = [c for c, _ in rows.rows(run)]
    assert [c[1] for c in cells] == ["0", "1", "2"] and cells[1][2] == "1+1?" and cells[1][4] == "2"
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "score": "high"})
    (run / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(StoreError) as err:
        SampleRows().rows(run)
    message = str(err.value)
    assert f"{run / 'samples.jsonl'}: record 2" in message and "sample '1'" in message and "score" in message


def test_an_unscored_task_is_not_exported_as_a_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another tool's format needs a number: a task with no scored sample is an error naming the task (it
    was a bare TypeError from float(None))."""
    pytest.importorskip("huggingface_hub")
    from omnieval.interchange.eee import write_eee
    from omnieval.interchange.hf_eval_results import write_hf_eval_results

    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    shutil.copy(OLD_RUN.parent / "STEM.jsonl", tmp_path)  # the run's task, by the relative path it was given
    monkeypatch.chdir(tmp_path)
    doc = json.loads((run / "results.json").read_text(encoding="utf-8"))
    exports = (
        lambda: write_hf_eval_results(run, model_id="org/m", output=tmp_path / "hf"),
        lambda: write_eee(run, output=tmp_path / "eee"),
    )
    # hidden answers: aggregation writes score 0.0 with scored false; a hand-made file may say null
    for task in ({"score": 0.0, "n_scored": 0, "scored": False}, {"score": None}):
        doc["tasks"]["STEM"].update(task)
        (run / "results.json").write_text(json.dumps(doc), encoding="utf-8")
        for export in exports:
            with pytest.raises(StoreError, match=r"results\.json: task 'STEM' has no score"):
                export()
