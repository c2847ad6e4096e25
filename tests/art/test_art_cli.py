"""``omnieval generate`` (generic) and ``--tasks art:DIR``: listing, option checks, atomic output, private
seeds, and a baseline/oracle run scoring 1.0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app
from tests.art.conftest import needs_espeak

runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_list_names_every_generator_with_a_description() -> None:
    code, out = _invoke("generate", "--list")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("art "))
    assert "55 Yes/No templates" in line
    assert any(x.startswith("demo.audio ") for x in out.splitlines())


def test_unknown_options_and_generators_fail_before_writing(tmp_path: Path) -> None:
    code, out = _invoke("generate", "art", "--output", str(tmp_path / "x"), "--opt", "colour=red")
    assert code == 2 and "does not take option(s) ['colour']" in out
    code, out = _invoke("generate", "arr", "--output", str(tmp_path / "x"))
    assert code == 2 and "did you mean 'art'" in out
    assert not (tmp_path / "x").exists() and list(tmp_path.iterdir()) == []


@needs_espeak
def test_failed_generation_leaves_no_output_and_no_partial_folder(tmp_path: Path) -> None:
    code, out = _invoke(
        "generate", "art", "--output", str(tmp_path / "x"), "--opt", "question_voice=en-au+m1"
    )
    assert code == 2 and "no language 'en-au'" in out
    assert list(tmp_path.iterdir()) == []


@needs_espeak
def test_generate_then_run_with_the_oracle_scores_one(tmp_path: Path) -> None:
    out = tmp_path / "set"
    code, text = _invoke(
        "generate",
        "art",
        "--output",
        str(out),
        "--per-template",
        "1",
        "--seed",
        "4",
        "--opt",
        "tasks=SR,ATD,TTLR",
        "--opt",
        "workers=1",
    )
    assert code == 0, text
    rows = [json.loads(x) for x in (out / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 23 and {r["task"] for r in rows} == {"SR", "ATD", "TTLR"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the temporary folder is gone
    code, text = _invoke("generate", "art", "--output", str(out), "--per-template", "1")
    assert code == 2 and "--force" in text
    code, text = _invoke(
        "run", "--tasks", f"art:{out}", "--model", "baseline/oracle", "--output", str(tmp_path / "run")
    )
    assert code == 0, text
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert set(results["tasks"]) == {"art.ATD", "art.SR", "art.TTLR"}
    for block in results["tasks"].values():
        assert block["score"] == 1.0 and block["states"]["ok"] == block["n"]
        assert block["metrics"] == {
            "art.absolute_accuracy": 1.0,
            "art.relevant": 1.0,
            "art.relative_accuracy": 1.0,
        }


@needs_espeak
def test_private_seed_is_created_secret_and_never_written_into_the_set(tmp_path: Path) -> None:
    seed_file = tmp_path / "secret" / "seed.txt"
    out = tmp_path / "hidden"
    args = (
        "generate",
        "art",
        "--output",
        str(out),
        "--per-template",
        "1",
        "--opt",
        "tasks=CRSI",
        "--opt",
        "workers=1",
        "--private-seed",
        str(seed_file),
    )
    code, text = _invoke(*args)
    assert code == 0, text
    secret = int(seed_file.read_text())
    assert seed_file.stat().st_mode & 0o077 == 0
    manifest = (out / "manifest.jsonl").read_text(encoding="utf-8")
    assert str(secret) not in manifest and str(secret) not in (out / "generation.json").read_text(
        encoding="utf-8"
    )
    assert json.loads(manifest.splitlines()[0])["seed"].startswith("private:sha256:")
    again = tmp_path / "again"
    code, _ = _invoke(*[a if a != str(out) else str(again) for a in args])
    assert (
        code == 0 and (again / "manifest.jsonl").read_text(encoding="utf-8") == manifest
    )  # same secret, same set
    code, text = _invoke(*args, "--seed", "3")
    assert code == 2 and "exclude each other" in text
    code, text = _invoke("generate", "art", "--output", str(out), "--private-seed", str(out / "seed.txt"))
    assert code == 2 and "outside the output folder" in text


@pytest.mark.parametrize("bad", ["?colour=red", "?tasks=AA"])
@needs_espeak
def test_art_importer_names_bad_queries(tmp_path: Path, bad: str) -> None:
    from omnieval.benchmarks.art.generator import generate_art
    from omnieval.benchmarks.art.importer import import_art
    from omnieval.errors import OmnievalError

    generate_art(tmp_path / "s", per_template=1, tasks="CRSI", workers=1)
    with pytest.raises(OmnievalError, match=r"colour|not in this set"):
        import_art(f"{tmp_path / 's'}{bad}")


def test_art_importer_rejects_a_manifest_with_a_bad_answer(tmp_path: Path) -> None:
    from omnieval.benchmarks.art.importer import import_art
    from omnieval.errors import SourceError

    (tmp_path / "a.wav").write_bytes(b"")
    row = {
        "id": "AA-1",
        "task": "AA",
        "template": "AA_0",
        "question": "q",
        "answer": "Maybe",
        "audio": "a.wav",
    }
    (tmp_path / "manifest.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match="answer must be 'Yes' or 'No'") as err:
        import_art(str(tmp_path))
    assert "AA-1" in str(err.value) and "manifest.jsonl" in str(err.value)


def test_art_h_subset_of_a_larger_set_loads_alone(tiny_set: Path) -> None:
    from omnieval.benchmarks.art.importer import import_art

    whole = {t.name: t.size for t in import_art(str(tiny_set))}
    art_h = {t.name: t.size for t in import_art(f"{tiny_set}?subset=art-h")}
    assert whole["art.SR"] == 30 and art_h["art.SR"] == 24  # 15 templates x 2 -> the 24 of ART-H
    assert art_h["art.AA"] == whole["art.AA"] == 12  # a task smaller than 24 is ART-H whole
