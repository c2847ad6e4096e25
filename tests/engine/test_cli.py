"""The fixed command-line interfaces, run as a user would (subprocess)."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

from .conftest import read_samples, write_jsonl

EXE = [sys.executable, "-m", "omnieval"]


def omnieval(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], capture_output=True, text=True, cwd=cwd, timeout=300, check=False)


def test_run_writes_the_fixed_outputs(tmp_path: Path, qa_file: Path) -> None:
    out = tmp_path / "run"
    proc = omnieval(
        "run",
        "--tasks",
        f"jsonl:{qa_file}",
        "--model",
        "baseline/oracle",
        "--output",
        str(out),
        "--concurrency",
        "4",
        "--limit",
        "5",
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["model"] == "baseline/oracle"
    block = results["tasks"]["qa"]
    assert block["score"] == 1.0 and block["n"] == 5 and block["states"]["ok"] == 5
    assert isinstance(block["metrics"], dict) and block["metrics"]["exact_match"] == 1.0
    for rec in read_samples(out):
        assert {"task", "sample_id", "state", "response", "score", "metrics"} <= set(rec)
        assert 0.0 <= rec["score"] <= 1.0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["tasks"]["qa"]["hash"]
    assert manifest["config"]["seed"] == 1234 and "python" in manifest["environment"]
    assert (out / "report.html").read_text().count("qa") >= 1


def test_replay_scores_predictions_made_elsewhere(tmp_path: Path, qa_file: Path) -> None:
    answers = [{"task": "qa", "sample_id": str(i), "response": str(2 * i if i % 2 else 0)} for i in range(9)]
    write_jsonl(tmp_path / "answers.jsonl", answers)
    out = tmp_path / "run"
    proc = omnieval(
        "run",
        "--tasks",
        f"jsonl:{qa_file}",
        "--model",
        f"replay/{tmp_path / 'answers.jsonl'}",
        "--output",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    block = json.loads((out / "results.json").read_text())["tasks"]["qa"]
    # odd ids right (1,3,5,7), 0 right by chance (2*0 == 0), 2,4,6,8 wrong, sample 9 missing → error
    assert block["states"]["error"] == 1 and block["score"] == 0.5
    missing = next(r for r in read_samples(out) if r["sample_id"] == "9")
    assert missing["state"] == "error" and "9" in missing["reason"]
    assert block["example_reasons"]["error"] == [missing["reason"]]
    assert missing["reason"] in html.unescape((out / "report.html").read_text(encoding="utf-8"))


def test_max_error_rate_fails_the_command(tmp_path: Path, qa_file: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"task": "qa", "sample_id": "0", "response": "0"}])
    proc = omnieval(
        "run",
        "--tasks",
        f"jsonl:{qa_file}",
        "--model",
        f"replay/{tmp_path / 'a.jsonl'}",
        "--output",
        str(tmp_path / "r"),
        "--quiet",
        "--max-error-rate",
        "0.5",
    )
    assert proc.returncode == 3 and "error rate" in proc.stderr


def test_bad_task_file_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("name: t\nsurce: {}\n", encoding="utf-8")
    proc = omnieval(
        "run",
        "--tasks",
        str(tmp_path / "t.yaml"),
        "--model",
        "baseline/oracle",
        "--output",
        str(tmp_path / "o"),
    )
    assert proc.returncode == 2
    assert "t.yaml" in proc.stderr and "surce" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_provider_is_a_clean_error(tmp_path: Path, qa_file: Path) -> None:
    proc = omnieval(
        "run", "--tasks", f"jsonl:{qa_file}", "--model", "opneai/x", "--output", str(tmp_path / "o")
    )
    assert proc.returncode == 2 and "openai" in proc.stderr and "Traceback" not in proc.stderr


def test_dry_run_renders_without_a_model(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "mc.jsonl",
        [{"id": "1", "question": "Что на <image>?", "choices": ["кот", "пёс"], "answer": "пёс"}],
    )
    proc = omnieval(
        "run",
        "--tasks",
        f"jsonl:{tmp_path / 'mc.jsonl'}",
        "--model",
        "openai/none",
        "--dry-run",
        "--output",
        str(tmp_path / "o"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "B. пёс" in proc.stdout and "gold ['B']" in proc.stdout
    assert not (tmp_path / "o" / "samples.jsonl").exists()


def test_validate_and_score_and_diff(tmp_path: Path, qa_file: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        f"name: qa2\nsource: {{type: jsonl, path: {qa_file}}}\n", encoding="utf-8"
    )
    proc = omnieval("validate", str(tmp_path / "t.yaml"))
    assert proc.returncode == 0 and "ok  qa2  (10 samples" in proc.stdout
    write_jsonl(
        tmp_path / "a.jsonl", [{"task": "qa", "sample_id": str(i), "response": str(2 * i)} for i in range(10)]
    )
    write_jsonl(
        tmp_path / "b.jsonl", [{"task": "qa", "sample_id": str(i), "response": str(i)} for i in range(10)]
    )
    for name in ("a", "b"):
        assert (
            omnieval(
                "run",
                "--tasks",
                f"jsonl:{qa_file}",
                "--model",
                f"replay/{tmp_path / (name + '.jsonl')}",
                "--output",
                str(tmp_path / f"run_{name}"),
                "--quiet",
            ).returncode
            == 0
        )
    proc = omnieval("score", str(tmp_path / "run_a"))
    assert proc.returncode == 0 and "1.0000" in proc.stdout
    diff = json.loads(omnieval("diff", str(tmp_path / "run_a"), str(tmp_path / "run_b"), "--json").stdout)
    assert diff["n_flips"] == 9  # only sample 0 (answer 0) agrees
    assert any(key.startswith("config.model") for key in diff["config"])


def test_a_data_error_mid_run_exits_cleanly(tmp_path: Path) -> None:
    rows = [{"id": str(i), "question": "q", "answer": "a"} for i in range(300)] + [{"id": "x", "answer": "a"}]
    write_jsonl(tmp_path / "d.jsonl", rows)
    (tmp_path / "t.yaml").write_text("name: t\nsource: {type: jsonl, path: d.jsonl}\n", encoding="utf-8")
    proc = omnieval(
        "run",
        "--tasks",
        str(tmp_path / "t.yaml"),
        "--model",
        "baseline/oracle",
        "--output",
        str(tmp_path / "o"),
        "--quiet",
    )
    assert proc.returncode == 2
    assert "'x'" in proc.stderr and "'question'" in proc.stderr
    assert "Traceback" not in proc.stderr and "never retrieved" not in proc.stderr


def test_a_command_run_alone_reads_as_in_the_whole_application() -> None:
    """``main`` dispatches to an application holding only the invoked command or group (typer builds
    every command's parameters before it dispatches); help, usage and errors must not change."""
    import typer.main
    from typer.testing import CliRunner

    from omnieval.cli.app import _only, app

    for args in (["run", "--help"], ["run", "--tasks", "x", "--bogus"], ["judge", "--help"], ["schema"]):
        alone = _only(args[0])
        assert alone is not None
        built = typer.main.get_command(alone)
        assert list(built.commands) == [args[0]]  # type: ignore[attr-defined]
        full = CliRunner().invoke(app, args, prog_name="omnieval", terminal_width=100)
        one = CliRunner().invoke(alone, args, prog_name="omnieval", terminal_width=100)
        assert (one.exit_code, one.output) == (full.exit_code, full.output)
        assert args[0] in full.output
    assert _only("no-such-command") is None


def test_the_command_line_leaves_pydantic_plugins_off_unless_the_user_set_them() -> None:
    """pydantic scans every installed distribution for its plugins at the first model (≈ 20 ms of each
    command's start-up); a value the user set, even an empty one (every plugin on), is kept."""
    import os
    import sys

    probe = (
        "import os, sys; sys.argv = ['omnieval', 'schema', 'record']\n"
        "from omnieval.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "from pydantic.plugin import _loader\n"
        "print(repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')), _loader._plugins is None, file=sys.stderr)"
    )
    for user, seen in ((None, "'__all__' True"), ("", "'' False")):
        env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
        if user is not None:
            env["PYDANTIC_DISABLE_PLUGINS"] = user
        cmd = [sys.executable, "-c", probe]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
        assert out.stderr.strip().splitlines()[-1] == seen  # scanned (a dict) only when the user asked
    web = probe.replace("'schema', 'record'", "'platform', '--help'")  # a web app a user may instrument
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    out = subprocess.run([sys.executable, "-c", web], capture_output=True, text=True, env=env, check=True)
    assert out.stderr.strip().splitlines()[-1].startswith("None ")


def test_omnieval_run_collects_garbage_tuned_and_leaves_an_embedding_process_alone(
    tmp_path: Path, qa_file: Path
) -> None:
    """`omnieval run` sets up with collection off, then freezes what the set-up made and collects young
    objects every 20,000 allocations (≈ 70 → 20 ms of a 2,000-request run's CPU); the same command run
    inside another process (typer's runner here) changes nothing of that process's collector."""
    import gc
    import sys

    from typer.testing import CliRunner

    from omnieval.cli.app import app
    from omnieval.cli.startup import GC_THRESHOLDS

    args = ["run", "--tasks", f"jsonl:{qa_file}", "--model", "baseline/oracle", "--quiet"]
    probe = (
        "import gc, sys\n"
        f"sys.argv = ['omnieval', *{args!r}, '-o', {str(tmp_path / 'cli')!r}]\n"
        "from omnieval.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 10_000, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stderr.strip().splitlines()[-1] == f"True {GC_THRESHOLDS} True"

    before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
    result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "in-process")])
    assert result.exit_code == 0, result.output
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == before
