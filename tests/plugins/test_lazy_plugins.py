"""Plugins load lazily and safely: the engine imports no suite, a lookup imports only its own plugin,
a broken plugin is reported and hides nothing, and concurrent lookups see whole plugins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.plugins.fresh import fresh_python

SUITES = "omnieval.benchmarks."


def test_a_core_jsonl_run_imports_no_benchmark_module(tmp_path: Path) -> None:
    rows = [{"id": str(i), "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(6)]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = fresh_python(
        """
        import json, sys
        from pathlib import Path
        import omnieval.runner, omnieval.metrics, omnieval.parsers
        from omnieval.runs.evaluation import evaluate_config
        from omnieval.backends import BackendOptions
        from omnieval.runner import RunConfig
        config = RunConfig(tasks=("jsonl:qa.jsonl",), model="baseline/oracle", output=Path("run"),
                           backend=BackendOptions(concurrency=2), quiet=True)
        outcome, results = evaluate_config(config)
        print(json.dumps({"score": results.tasks["qa"].score,
                          "suites": sorted(m for m in sys.modules if m.startswith("omnieval.benchmarks"))}))
        """,
        cwd=tmp_path,
    )
    assert out == {"score": 1.0, "suites": []}


def test_the_engine_start_up_imports_neither_numpy_nor_pil(tmp_path: Path) -> None:
    """Every built-in backend, parser, metric and judge plugin loads without them; a text run needs
    numpy only for the CIs at its end (loaded on a thread during the requests) and PIL never. The cascade
    backend and ``omnieval.media`` imported both at start-up (~0.1-0.2 s, 16 MB)."""
    out = fresh_python(
        """
        import json, sys
        from omnieval.registry import load_group
        import omnieval.runner, omnieval.api, omnieval.runs.evaluation, omnieval.cli.run_cmd
        from omnieval.media.hashing import fingerprint
        for kind in ("backends", "parsers", "metrics", "aggregations", "judge_protocols", "judge_templates"):
            load_group(f"omnieval.{kind}")
        heavy = sorted(m for m in ("numpy", "PIL", "scipy", "plotly") if m in sys.modules)
        from omnieval.media.processor import processor_for
        print(json.dumps({"heavy": heavy, "media_on_use": "numpy" in sys.modules}))
        """,
        cwd=tmp_path,
    )
    assert out == {"heavy": [], "media_on_use": True}


def test_a_suite_name_imports_only_its_own_suite(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json, sys
        from omnieval.metrics import metrics
        from omnieval.parsers import parsers
        core = "exact_match" in metrics and "number" in parsers
        before = sorted(m for m in sys.modules if m.startswith("omnieval.benchmarks."))
        found = "megabench.query_score" in metrics
        suites = sorted({m.split(".")[2] for m in sys.modules if m.startswith("omnieval.benchmarks.")})
        print(json.dumps({"core": core, "before": before, "found": found, "suites": suites}))
        """,
        cwd=tmp_path,
    )
    assert out == {"core": True, "before": [], "found": True, "suites": ["megabench"]}


def test_a_hub_benchmark_whose_name_is_not_its_prefix_imports_only_itself(tmp_path: Path) -> None:
    """``mws_vision:DIR``: the ``omnieval.plugins`` entry point of the whole name (its prefix ``mws`` names
    none); every plugin was imported before (≈ 0.5 s of the whole run's start-up, the art generator's)."""
    out = fresh_python(
        """
        import json, sys
        from omnieval.sources.importers import importers
        found = "mws_vision" in importers
        suites = sorted({m.split(".")[2] for m in sys.modules if m.startswith("omnieval.benchmarks.")})
        print(json.dumps({"found": found, "suites": suites}))
        """,
        cwd=tmp_path,
    )
    assert out == {"found": True, "suites": ["hub_vqa", "mws_vision"]}


def _broken_plugin(root: Path) -> Path:
    """A distribution on ``root`` whose ``omnieval.plugins`` entry point raises on import."""
    root.mkdir()
    (root / "broken_mod.py").write_text("raise ImportError('needs libfoo 9')\n", encoding="utf-8")
    info = root / "broken_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text("[omnieval.plugins]\nbroken = broken_mod\n", encoding="utf-8")
    return root


def test_a_broken_plugin_is_reported_and_hides_no_other_plugin(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json
        from omnieval.errors import RegistryError
        from omnieval.metrics import metrics
        from omnieval.parsers import parsers
        from omnieval.registry import plugin_failures
        missing = "broken.parser" in parsers
        try:
            parsers.get("no_such_parser")
            error = ""
        except RegistryError as exc:
            error = str(exc)
        print(json.dumps({"missing": missing, "failures": plugin_failures(), "error": error,
                          "mera": "mera_ruslun" in metrics, "mega": "megabench.query_score" in metrics}))
        """,
        cwd=tmp_path,
        pythonpath=_broken_plugin(tmp_path / "site"),
    )
    assert out["missing"] is False and out["mera"] is True and out["mega"] is True
    reason = out["failures"]["omnieval.plugins:broken"]  # type: ignore[index]
    assert "broken-plugin" in reason and "needs libfoo 9" in reason and "ImportError" in reason
    assert "needs libfoo 9" in out["error"] and "no_such_parser" in out["error"]  # type: ignore[operator]


def test_concurrent_first_lookups_all_see_the_whole_plugin(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json
        from concurrent.futures import ThreadPoolExecutor
        from omnieval.metrics import metrics
        from omnieval.sources import importers
        names = [
            "megabench.query_score",
            "mera_ruslun",
            "art.relevant",
            "clock_time_match",
            "exact_match",
        ] * 8
        def look(name):
            return name in metrics
        with ThreadPoolExecutor(16) as pool:
            found = list(pool.map(look, names))
        print(json.dumps({"found": all(found), "importer": "megabench" in importers}))
        """,
        cwd=tmp_path,
    )
    assert out == {"found": True, "importer": True}


def test_top_level_help_lists_the_suites_without_importing_them(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import contextlib, io, json, sys
        sys.argv = ["omnieval", "--help"]
        from omnieval.cli.app import main
        text = io.StringIO()
        with contextlib.redirect_stdout(text), contextlib.suppress(SystemExit):
            main()
        print(json.dumps({"help": text.getvalue(),
                          "suites": sorted(m for m in sys.modules if m.startswith("omnieval.benchmarks."))}))
        """,
        cwd=tmp_path,
    )
    assert out["suites"] == []
    assert all(f"omnieval {name} --help" in str(out["help"]) for name in ("mera", "pollux", "marker", "art"))


def test_a_suite_group_still_runs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "omnieval", "mera", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0 and "MERA" in proc.stdout


def test_a_suite_judge_template_by_bare_name_imports_only_its_suite(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json, sys
        from omnieval.judges import get_judge_template
        core = get_judge_template("binary_equivalence").name
        before = sorted(m for m in sys.modules if m.startswith("omnieval.benchmarks."))
        from omnieval.judges.templates import judge_templates
        mega = next(n.split("@")[0] for n in judge_templates.names() if n.startswith("megabench"))
        print(json.dumps({"core": core, "before": before, "mega": mega}))
        """,
        cwd=tmp_path,
    )
    assert out["core"] == "binary_equivalence" and out["before"] == []
    lookup = fresh_python(
        f"""
        import json, sys
        from omnieval.judges import get_judge_template
        name = get_judge_template({out["mega"]!r}).name
        suites = sorted({{m.split(".")[2] for m in sys.modules if m.startswith("omnieval.benchmarks.")}})
        print(json.dumps({{"name": name, "suites": suites}}))
        """,
        cwd=tmp_path,
    )
    assert lookup == {"name": out["mega"], "suites": ["megabench"]}


def test_a_backend_lookup_imports_only_that_backend(tmp_path: Path) -> None:
    """A run looks up its provider, parser and metrics: each kind imports its own built-ins, not the whole
    core (every backend module was ≈ 40 ms of every run's start-up)."""
    out = fresh_python(
        """
        import json, sys
        from omnieval.backends import backends
        from omnieval.parsers import parsers
        openai = backends.get("openai").__name__
        parser = "strip" in parsers
        others = sorted(m for m in sys.modules if m.startswith(("omnieval.backends.hf",
                        "omnieval.backends.cascade", "omnieval.backends.vllm_backend", "omnieval.judges")))
        hf = backends.get("hf").__module__
        print(json.dumps({"openai": openai, "parser": parser, "others": others, "hf": hf}))
        """,
        cwd=tmp_path,
    )
    assert out == {
        "openai": "OpenAIBackend",
        "parser": True,
        "others": [],
        "hf": "omnieval.backends.hf.backend",
    }
