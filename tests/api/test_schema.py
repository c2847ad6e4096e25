"""Typed, versioned run files: the published JSON Schemas validate real outputs, older folders load,
and an unknown schema_version is refused with the file and version named."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import omnieval
from omnieval.errors import StoreError
from omnieval.types.files import LeaderboardFile, ManifestFile, load_file

OLD_RUN = Path(__file__).parent / "fixtures" / "run_v0"  # written by omnieval before schema_version existed


def _schema(kind: str, cwd: Path) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "schema", kind], capture_output=True, text=True, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sweep")
    rows = [{"id": str(i), "question": f"{i}?", "answer": str(i)} for i in range(4)]
    (root / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    models = ["baseline/oracle", "baseline/random"]
    omnieval.sweep(models=models, tasks=[f"jsonl:{root / 'qa.jsonl'}"], output=root / "out", quiet=True)
    return root / "out"


def test_the_schemas_validate_every_file_a_run_writes(sweep_dir: Path, tmp_path: Path) -> None:
    runs = sorted(p for p in sweep_dir.iterdir() if p.is_dir())
    assert len(runs) == 2
    for run in runs:
        jsonschema.validate(json.loads((run / "results.json").read_text()), _schema("results", tmp_path))
        jsonschema.validate(json.loads((run / "manifest.json").read_text()), _schema("manifest", tmp_path))
        record = _schema("record", tmp_path)
        for line in (run / "samples.jsonl").read_text().splitlines():
            jsonschema.validate(json.loads(line), record)
    board = json.loads((sweep_dir / "leaderboard.json").read_text())
    jsonschema.validate(board, _schema("leaderboard", tmp_path))
    assert board["schema_version"] == 1 and LeaderboardFile.model_validate(board).runs


def test_the_schemas_validate_a_varied_omnieval_run(tmp_path: Path) -> None:
    """``omnieval run`` with errors, repeats, a judged task and a hidden-answer task: every file it writes
    validates against the printed schemas (extra keys a stage adds are allowed)."""
    rows = [{"id": str(i), "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(4)]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    hidden = [{"id": str(i), "question": f"{i}?"} for i in range(3)]
    (tmp_path / "hidden.jsonl").write_text("".join(json.dumps(r) + "\n" for r in hidden), encoding="utf-8")
    (tmp_path / "judged.yaml").write_text(
        "name: judged\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [exact_match]\n"
        "judge: {template: binary_equivalence}\n",
        encoding="utf-8",
    )
    answers = [  # sample 3 has no answer: an error state
        {"task": t, "sample_id": str(i), "response": str(2 * i)}
        for t in ("qa", "judged", "hidden")
        for i in range(3)
    ]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    verdicts = [{"task": "judged", "sample_id": str(i), "response": "1"} for i in range(4)]
    (tmp_path / "yes.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts), encoding="utf-8")
    args = ["run", "--tasks", "jsonl:qa.jsonl,judged.yaml,jsonl:hidden.jsonl", "--model", "replay/a.jsonl"]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            *args,
            "--judge",
            "replay/yes.jsonl",
            "--repeats",
            "2",
            "-o",
            "run",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "run"
    results = json.loads((run / "results.json").read_text())
    assert results["tasks"]["qa"]["states"]["error"] == 2 and results["tasks"]["hidden"]["scored"] is False
    assert results["tasks"]["judged"]["judge"]  # a judged task's block carries its judge
    jsonschema.validate(results, _schema("results", tmp_path))
    jsonschema.validate(json.loads((run / "manifest.json").read_text()), _schema("manifest", tmp_path))
    record = _schema("record", tmp_path)
    lines = (run / "samples.jsonl").read_text().splitlines()
    assert len(lines) == 2 * (4 + 4 + 3)
    for line in lines:
        jsonschema.validate(json.loads(line), record)


def test_a_results_file_that_breaks_the_schema_fails_it(tmp_path: Path) -> None:
    bad = json.loads((OLD_RUN / "results.json").read_text())
    bad["tasks"]["STEM"]["n"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, _schema("results", tmp_path))


def test_an_old_run_folder_still_loads() -> None:
    old = omnieval.load_results(OLD_RUN)
    # an unversioned file is version 1, migrated to the current version on load
    assert old.results.schema_version == 2 and old.tasks["STEM"].score == 1.0 and old.tasks["STEM"].n == 3
    assert old.to_dict()["tasks"]["STEM"]["truncated_scoring"] == "zero"  # every key the file held is kept
    assert load_file(OLD_RUN / "manifest.json", ManifestFile).status == "finished"


def test_an_old_run_folder_rescores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    shutil.copy(OLD_RUN.parent / "STEM.jsonl", tmp_path)  # the run's task, by the relative path it was given
    monkeypatch.chdir(tmp_path)
    assert omnieval.score(run).tasks["STEM"].score == 1.0


def test_an_unknown_schema_version_names_the_file_and_the_version(tmp_path: Path) -> None:
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    data = json.loads((run / "results.json").read_text())
    (run / "results.json").write_text(json.dumps({**data, "schema_version": 7}), encoding="utf-8")
    with pytest.raises(StoreError) as err:
        omnieval.load_results(run)
    assert str(run / "results.json") in str(err.value) and "schema_version 7" in str(err.value)


def test_readers_go_through_the_models(tmp_path: Path) -> None:
    """compare (reports/loading.py) reads an old folder, and refuses one of an unknown version by name."""
    newer = shutil.copytree(OLD_RUN, tmp_path / "newer")
    manifest = json.loads((newer / "manifest.json").read_text())
    (newer / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 2}), encoding="utf-8")
    with pytest.raises(StoreError) as err:
        omnieval.compare(OLD_RUN, newer)
    assert str(newer / "manifest.json") in str(err.value) and "schema_version 2" in str(err.value)
    doc = omnieval.compare(OLD_RUN, shutil.copytree(OLD_RUN, tmp_path / "same"))
    assert doc.tasks["STEM"].scores == {"run_v0": 1.0, "same": 1.0}


def test_the_schemas_carry_the_field_docstrings_of_nested_models(tmp_path: Path) -> None:
    """A field's docstring is its description, in the model's own schema and in those that nest it."""
    record = _schema("record", tmp_path)
    defs = record["$defs"]
    assert isinstance(defs, dict)
    judge = defs["JudgeRecord"]["properties"]["judge"]
    assert judge["description"] == "Judge model spec, e.g. ``openai/gpt-4o`` or ``hf/./judge``."
    results = _schema("results", tmp_path)
    score = results["$defs"]["TaskResults"]["properties"]["score"]  # type: ignore[index]
    assert score["description"].startswith("The task's headline score in [0, 1]")


def test_importing_the_types_reads_no_source(tmp_path: Path) -> None:
    """Descriptions are filled on demand: importing the models parses no class source (start-up cost)."""
    code = (
        "import omnieval.types as t, omnieval.runner\n"
        "assert t.JudgeRecord.model_fields['judge'].description is None\n"
        "from omnieval.types.files import json_schema\n"
        "json_schema('record')\n"
        "assert t.JudgeRecord.model_fields['judge'].description.startswith('Judge model spec')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
