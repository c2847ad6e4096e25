"""``--judge-*`` carries the model's decoding options too (top-p, stop, seed), into the judge's spec and
version."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qa.jsonl").write_text(
        json.dumps({"id": "0", "question": "q", "answer": "a"}) + "\n", encoding="utf-8"
    )
    (tmp_path / "qa.yaml").write_text(
        "name: qa\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
        "judge: {template: binary_equivalence}\n",
        encoding="utf-8",
    )
    judge = tmp_path / "j.jsonl"
    judge.write_text(json.dumps({"task": "qa", "sample_id": "0", "response": "1"}) + "\n", encoding="utf-8")
    return tmp_path / "qa.yaml", judge


def test_judge_decoding_options_reach_the_judge_and_its_version(tmp_path: Path) -> None:
    task, judge = _setup(tmp_path)
    versions = {}
    for name, extra in (
        ("plain", []),
        (
            "opts",
            [
                "--judge-top-p",
                "0.9",
                "--judge-stop",
                "\n",
                "--judge-gen-seed",
                "7",
                "--judge-temperature",
                "0.6",
            ],
        ),
    ):
        out = tmp_path / name
        done = CliRunner().invoke(
            app,
            [
                "run",
                "-t",
                str(task),
                "-m",
                "baseline/oracle",
                "-o",
                str(out),
                "-q",
                "--judge",
                f"replay/{judge}",
                *extra,
            ],
        )
        assert done.exit_code == 0, done.output
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        versions[name] = manifest["judges"]["qa"]["version"]
        if name == "opts":
            assert manifest["config"]["judge"]["generation"] == {
                "temperature": 0.6,
                "top_p": 0.9,
                "stop": ["\n"],
                "seed": 7,
            }
            record = json.loads((out / "samples.jsonl").read_text(encoding="utf-8").splitlines()[0])
            assert record["judge"]["value"] == 1.0
    assert versions["plain"] != versions["opts"]  # decoding is part of the judge version
