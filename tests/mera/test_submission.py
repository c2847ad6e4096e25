from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from omnieval.benchmarks.mera.catalog import catalogue
from omnieval.errors import SubmissionError
from omnieval.runner.config import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.submission.base import packers, validators


@pytest.fixture(scope="module")
def random_run(mini_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("random")
    evaluate_config(RunConfig(tasks=(f"mera:{mini_root}",), model="baseline/random", output=out, quiet=True))
    return out


def test_pack_validate_round_trip(random_run: Path, mini_root: Path, tmp_path: Path) -> None:
    archive = packers.get("mera")([random_run], tmp_path / "submission.zip")
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        assert names == {f"{t.submission}.json" for t in catalogue().tasks} | {"logs_public.zip"}
        data = json.loads(zf.read("ruHHH_Image.json"))
        with zipfile.ZipFile(zf.open("logs_public.zip")) as logs:
            assert any(n.endswith("/samples.jsonl") for n in logs.namelist())
    items = data["data"]["test"]
    assert [i["meta"]["id"] for i in items] == [0, 1, 2, 3, 4, 5]
    assert all(set(i) == {"outputs", "meta"} and i["outputs"] in {"A", "B"} for i in items)
    report = validators.get("mera")(archive, data=str(mini_root), require_all=True)
    assert report["ok"], report["errors"]
    assert report["missing_tasks"] == [] and report["tasks"]["ruslun"]["missing_ids"] == []


def _zip(path: Path, files: dict[str, object]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content if isinstance(content, str) else json.dumps(content))
    return path


def test_validator_reports_each_problem(mini_root: Path, tmp_path: Path) -> None:
    items = [
        {"outputs": "A", "meta": {"id": 0}},
        {"outputs": "B", "meta": {"id": 0}},
        {"outputs": 3, "meta": {"id": 1}},
        {"outputs": "A", "meta": {"id": "2"}},
        {"outputs": "A", "meta": {"id": 999}},
    ]
    archive = _zip(
        tmp_path / "bad.zip",
        {"WEIRD.json": {"data": {"test": items}}, "ruhhh_image.json": {}, "Notes.json": {}},
    )
    report = validators.get("mera")(archive, data=f"mera:{mini_root}")  # the --tasks spelling works too
    assert not report["ok"]
    errors = "\n".join(report["errors"])
    assert "WEIRD.json: data.test[1] (id 0): duplicate id" in errors
    assert "WEIRD.json: data.test[2] (id 1): field 'outputs' must be a string, got int" in errors
    assert "WEIRD.json: data.test[3]: field 'meta.id' must be an integer, got '2'" in errors
    assert "WEIRD.json: data.test[4] (id 999): unknown id" in errors
    assert "ruhhh_image.json: not a MERA Multi task file (expected ruHHH_Image.json)" in errors
    assert "Notes.json: not a MERA Multi task file" in errors
    assert "aquaria" in report["missing_tasks"] and any("logs_public.zip" in w for w in report["warnings"])
    assert report["tasks"]["weird"]["missing_ids"] == ["2", "3", "4", "5"]


def test_wrong_shape_and_unreadable_archive(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "shape.zip", {"ruSLUn.json": {"test": []}})
    report = validators.get("mera")(archive)
    assert report["tasks"]["ruslun"]["errors"] == ['expected {"data": {"test": [...]}}'] and not report["ok"]
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(SubmissionError, match=r"junk\.zip"):
        validators.get("mera")(tmp_path / "junk.zip")


def test_packer_needs_a_run(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match=r"samples\.jsonl not found"):
        packers.get("mera")([tmp_path], tmp_path / "x.zip")


def test_the_packer_reads_records_through_their_model(random_run: Path, tmp_path: Path) -> None:
    """A record whose field has the wrong type fails naming the file, the line, the sample and the field
    (it was read as a dict key and packed as text before)."""
    run = tmp_path / "run"
    run.mkdir()
    lines = (random_run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[2]) | {"response": ["A"]}
    (run / "samples.jsonl").write_text("\n".join([*lines[:2], json.dumps(bad), *lines[3:]]) + "\n")
    with pytest.raises(SubmissionError) as err:
        packers.get("mera")([run], tmp_path / "x.zip")
    message = str(err.value)
    assert f"{run / 'samples.jsonl'}:3" in message and f"sample {bad['sample_id']!r}" in message
    assert "response" in message and "not a valid record" in message


def test_a_run_with_repeats_packs_only_the_repeat_asked_for(mini_root: Path, tmp_path: Path) -> None:
    """A leaderboard takes one answer per sample: a run with repeats is refused unless --repeat names one
    repeat, whose answers (every sample once) are packed."""
    out = tmp_path / "run"
    task = "ruslun"
    evaluate_config(
        RunConfig(tasks=(f"mera:{mini_root}",), model="baseline/random", output=out, repeats=2, quiet=True)
    )
    with pytest.raises(SubmissionError, match=r"with repeats \(2 answers per sample\).*--repeat N"):
        packers.get("mera")([out], tmp_path / "x.zip")
    with pytest.raises(SubmissionError, match="has no repeat 2: its repeats are 0, 1"):
        packers.get("mera")([out], tmp_path / "x.zip", repeat=2)
    archive = packers.get("mera")([out], tmp_path / "submission.zip", repeat=1)
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    wanted = {int(r["sample_id"]): r["response"] for r in records if r["task"] == task and r["repeat"] == 1}
    with zipfile.ZipFile(archive) as zf:
        items = json.loads(zf.read("ruSLUn.json"))["data"]["test"]
    assert {i["meta"]["id"]: i["outputs"] for i in items} == wanted
    assert len(items) == len(wanted)  # each sample once
    assert validators.get("mera")(archive, data=str(mini_root), require_all=True)["ok"]
