"""Issue 33's first-contact problems: task files read by their extension, misspelt keys, media checked
before the run, and failed runs that leave nothing behind (in-process CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def _rows(n: int = 3) -> list[dict[str, str]]:
    return [{"id": str(i), "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(n)]


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        lines = [sep.join(rows[0]), *(sep.join(r.values()) for r in rows)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".tsv", ".parquet"])
def test_a_task_file_is_read_by_its_extension_or_its_prefix(tmp_path: Path, suffix: str) -> None:
    """``--tasks qa.jsonl`` said "invalid YAML", ``qa.csv`` "a task file must be a mapping"; ``csv:`` was
    unknown on the command line though YAML ``source: {type: csv}`` worked."""
    data = _write(tmp_path / f"qa{suffix}", _rows())
    code, out = _cli("run", "-t", str(data), "-m", "baseline/oracle", "-o", str(tmp_path / "a"))
    assert code == 0, out
    assert f"reading {data} as {suffix[1:]}:{data}" in out
    results = json.loads((tmp_path / "a" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["qa"]["n"] == 3 and results["tasks"]["qa"]["score"] == 1.0
    code, out = _cli("run", "-t", f"{suffix[1:]}:{data}", "-m", "baseline/oracle", "-o", str(tmp_path / "b"))
    assert code == 0, out
    assert json.loads((tmp_path / "b" / "results.json").read_text(encoding="utf-8"))["tasks"]["qa"]["n"] == 3


def test_an_unknown_prefix_still_names_the_known_ones_and_a_missing_file_is_named(tmp_path: Path) -> None:
    code, out = _cli("validate", f"cvs:{tmp_path / 'qa.csv'}")
    assert code != 0 and "cvs" in out and "csv" in out
    code, out = _cli("validate", str(tmp_path / "qa.csv"))
    assert code != 0 and "qa.csv: file not found" in out, out


def test_a_misspelt_task_key_gets_a_suggestion(tmp_path: Path) -> None:
    _write(tmp_path / "qa.jsonl", _rows())
    spec = (
        "name: t\nsource: {type: jsonl, path: qa.jsonl, feilds: {input: question}}\n"
        "metrcs: [{name: exact_match}]\n"
    )
    (tmp_path / "t.yaml").write_text(spec, encoding="utf-8")
    code, out = _cli("validate", str(tmp_path / "t.yaml"))
    assert code != 0 and "key 'source.feilds'" in out and "did you mean 'fields'?" in out, out
    (tmp_path / "t.yaml").write_text(spec.replace("feilds", "fields"), encoding="utf-8")
    code, out = _cli("validate", str(tmp_path / "t.yaml"))
    assert code != 0 and "key 'metrcs'" in out and "did you mean 'metrics'?" in out, out


def _media_task(tmp_path: Path) -> Path:
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(tmp_path / "ok.png")
    (tmp_path / "bad.png").write_bytes(b"not an image")
    rows = [
        {"id": "a", "question": "q", "answer": "x", "image": "ok.png"},
        {"id": "b", "question": "q", "answer": "x", "image": "gone.png"},
        {"id": "c", "question": "q", "answer": "x", "image": "bad.png"},
    ]
    _write(tmp_path / "img.jsonl", rows)
    spec = (
        "name: img\nmodalities: [image, text]\n"
        "source: {type: jsonl, path: img.jsonl, fields: {media: [{field: image, kind: image}]}}\n"
        "prompt: {template: '{{ input }}'}\nparser: {name: strip}\nmetrics: [{name: exact_match}]\n"
    )
    (tmp_path / "img.yaml").write_text(spec, encoding="utf-8")
    return tmp_path / "img.yaml"


def test_validate_opens_every_media_file_and_a_run_names_the_missing_one(tmp_path: Path) -> None:
    """``validate`` passed a task whose image was missing; the run then recorded cause "other"."""
    task = _media_task(tmp_path)
    code, out = _cli("validate", str(task))
    assert code != 0
    assert "sample 'b'" in out and "gone.png: file not found" in out
    assert "sample 'c'" in out and "bad.png: not a recognised image format" in out
    assert "ok.png" not in out
    code, out = _cli("run", "-t", str(task), "-m", "baseline/oracle", "-o", str(tmp_path / "run"))
    causes = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["tasks"]["img"]
    assert causes["error_causes"]["missing media"]["n"] == 1
    assert "gone.png" in causes["error_causes"]["missing media"]["example"]


def test_a_failed_first_run_leaves_no_folder_and_a_failed_resume_keeps_its_own(tmp_path: Path) -> None:
    data = _write(tmp_path / "qa.jsonl", _rows())
    dead = ("--base-url", "http://127.0.0.1:9/v1", "--retries", "1")
    code, out = _cli("run", "-t", str(data), "-m", "openai/x", *dead, "-o", str(tmp_path / "new"))
    assert code != 0 and not (tmp_path / "new").exists(), out
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    code, out = _cli("run", "-t", str(data), "-m", "openai/x", *dead, "-o", str(tmp_path / "mine"))
    assert code != 0 and (tmp_path / "mine" / "notes.txt").exists()


def test_ollama_is_named_as_an_openai_server_with_its_base_url(tmp_path: Path) -> None:
    data = _write(tmp_path / "qa.jsonl", _rows())
    code, out = _cli("run", "-t", str(data), "-m", "ollama/llama3", "-o", str(tmp_path / "o"))
    assert code != 0 and "--model openai/MODEL --base-url http://localhost:11434/v1" in out, out
    assert "vllm" not in out


def test_a_resume_with_nothing_left_says_so(tmp_path: Path) -> None:
    data = _write(tmp_path / "qa.jsonl", _rows())
    args = ("run", "-t", str(data), "-m", "baseline/oracle", "-o", str(tmp_path / "o"))
    assert _cli(*args)[0] == 0
    code, out = _cli(*args)
    assert code == 0 and "qa: nothing left to do" in out and "0 new samples" not in out, out


def test_without_a_terminal_progress_is_a_plain_line_now_and_then(capsys: pytest.CaptureFixture[str]) -> None:
    from omnieval.runner.progress import Progress

    progress = Progress(quiet=False)
    progress.line_every_s = 0.0  # every update; a run prints one every LINE_EVERY_S seconds
    with progress:
        progress.add("t", 3)
        progress.update("t", done=1, states={"ok": 1})
        progress.update("t", done=2, states={"ok": 1, "error": 1})
    err = capsys.readouterr().err
    assert "[omnieval] t: 1/3 samples" in err and "[omnieval] t: 2/3 samples" in err and "err 1" in err
    quiet = Progress(quiet=False)  # the default interval: nothing between the first and the last sample
    quiet.add("t", 3)
    quiet.update("t", done=1, states={"ok": 1})
    assert capsys.readouterr().err == ""


def _choice_runs(tmp_path: Path) -> tuple[Path, Path]:
    rows = [
        {"id": str(i), "question": f"q{i}", "answer": "b" if i else "a", "choices": ["a", "b"]}
        for i in range(3)
    ]
    data = tmp_path / "mc.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for model, out in (("baseline/oracle", "a"), ("baseline/first-option", "b")):
        assert _cli("run", "-t", f"jsonl:{data}", "-m", model, "-o", str(tmp_path / out))[0] == 0
    return tmp_path / "a", tmp_path / "b"


def test_diff_and_compare_show_numbers_as_the_tables_do(tmp_path: Path) -> None:
    """``diff`` printed 0.3333333333333333; terminal ``compare`` mentioned p-values and showed none."""
    import re

    a, b = _choice_runs(tmp_path)
    code, out = _cli("diff", str(a), str(b))
    assert code == 0 and "mc: 1.0000 → 0.3333" in out, out
    assert not re.search(r"\d\.\d{5,}", out.split("Task scores")[1])
    code, out = _cli("compare", str(a), str(b), "-o", str(tmp_path / "cmp"))
    assert code == 0 and "95% CI (paired bootstrap)" in out and "p (Holm)" in out, out
    assert "mcnemar_exact" in out  # the test behind the p-value is named


def test_a_failed_run_keeps_a_folder_holding_more_than_its_set_up(tmp_path: Path) -> None:
    """A provider batch's ledger (or any other file) keeps the folder: its batches are polled again."""
    from omnieval.runner.resume import remove_if_unrecorded

    bare, ledger = tmp_path / "bare", tmp_path / "ledger"
    for folder in (bare, ledger):
        (folder / "media_cache").mkdir(parents=True)
        for name in ("manifest.json", "samples.jsonl", "cache.sqlite", "cache.sqlite-wal"):
            (folder / name).write_text("", encoding="utf-8")
    (ledger / "batches.jsonl").write_text('{"batch": "b1"}\n', encoding="utf-8")
    remove_if_unrecorded(bare)
    remove_if_unrecorded(ledger)
    assert not bare.exists() and (ledger / "batches.jsonl").exists()
