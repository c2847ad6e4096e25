"""Every plugin is an entry point, omnieval's own like a third party's, and only the registry imports
plugins: a module that registers a plugin and is not declared fails here, not in a user's run."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.plugins.fresh import fresh_python

SRC = Path(__file__).resolve().parents[2] / "src"


_RECORD_REGISTRATIONS = """
    import importlib, inspect, json, pkgutil, sys
    import omnieval
    from omnieval import registry

    seen = []
    original = registry.Registry.register

    def register(self, name, *, replace=False):
        frame = inspect.currentframe().f_back
        while frame is not None and frame.f_code.co_name != "<module>":
            frame = frame.f_back
        seen.append([self.group, name, frame.f_globals["__name__"] if frame else None])
        return original(self, name, replace=replace)

    registry.Registry.register = register
    skipped = []
    for info in pkgutil.walk_packages(omnieval.__path__, prefix="omnieval."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:  # an optional dependency this environment lacks
            skipped.append(f"{info.name}: {exc}")
    entries = {g: {n: e.module for n, e in registry.entry_points(g).items()}
               for g in [registry.PLUGINS_GROUP, *registry._registries]}
    print(json.dumps({"seen": seen, "entries": entries, "skipped": skipped}))
"""


def _declared_for(group: str, name: str, module: str, entries: dict[str, dict[str, str]]) -> bool:
    """The lookup rule: an entry of the kind's group named ``name``, its part before ``@`` or its
    prefix, whose module registers it; or the suite's ``omnieval.plugins`` package."""
    from omnieval.registry import PLUGINS_GROUP, _candidates

    if module.startswith("omnieval.benchmarks."):
        suite = ".".join(module.split(".")[:3])
        return suite in entries[PLUGINS_GROUP].values()
    own = entries.get(group, {})
    return any(own.get(candidate) == module for candidate in _candidates(name))


def test_every_module_that_registers_a_plugin_is_declared_as_an_entry_point(tmp_path: Path) -> None:
    out = fresh_python(_RECORD_REGISTRATIONS, cwd=tmp_path)
    entries: dict[str, dict[str, str]] = out["entries"]  # type: ignore[assignment]
    seen: list[list[str]] = out["seen"]  # type: ignore[assignment]
    assert len(seen) > 50 and not [s for s in out["skipped"] if "omnieval" in s.split(":", 1)[1]]  # type: ignore[attr-defined]
    undeclared = [
        (group, name, module)
        for group, name, module in seen
        if not module.startswith("tests.") and not _declared_for(group, name, module, entries)
    ]
    assert undeclared == []


def test_every_own_entry_point_loads_and_provides_its_name(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json
        import omnieval.hooks, omnieval.backends.embeddings, omnieval.submission.base  # every kind's registry
        from omnieval import registry
        registry.load_plugins()
        missing = [
            f"{group}:{name}"
            for group, kind in registry._registries.items()
            for name, entry in registry.entry_points(group).items()
            if entry.value.startswith("omnieval.") and name not in kind._items
            and not any(key.startswith(name + "@") for key in kind._items)  # judge templates: NAME@VERSION
        ]
        print(json.dumps({"missing": missing, "failures": registry.plugin_failures(),
                          "groups": sorted(registry._registries)}))
        """,
        cwd=tmp_path,
    )
    assert out["missing"] == [] and out["failures"] == {}
    for kind in ("backends", "parsers", "metrics", "aggregations", "judge_templates", "hooks", "cli"):
        assert f"omnieval.{kind}" in out["groups"]  # type: ignore[operator]


def test_a_name_lookup_imports_only_its_own_entry_point(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json, sys
        from omnieval.parsers import parsers
        from omnieval.metrics import metrics
        from omnieval.hooks import hooks
        parser = parsers.get("regex").__module__
        metric = metrics.get("bleu").fn.__module__
        hook = hooks.get("wandb").__name__
        plugins = ("omnieval.parsers.library.", "omnieval.metrics.library.", "omnieval.benchmarks.",
                   "omnieval.hooks.mlflow")
        libraries = sorted(m for m in sys.modules if m.startswith(plugins) and "._" not in m)
        print(json.dumps({"parser": parser, "metric": metric, "hook": hook, "libraries": libraries}))
        """,
        cwd=tmp_path,
    )
    assert out == {
        "parser": "omnieval.parsers.library.text",
        "metric": "omnieval.metrics.library.mt",
        "hook": "WandbHook",
        "libraries": ["omnieval.metrics.library.mt", "omnieval.parsers.library.text"],
    }


def _third_party(root: Path) -> Path:
    """A distribution on ``root`` declaring a parser in the kind's own group and a broken metric."""
    root.mkdir()
    (root / "shout_mod.py").write_text(
        "from omnieval.parsers import register_parser\n"
        "from omnieval.types import Parsed\n"
        "@register_parser('shout')\n"
        "def shout(text, sample, /):\n"
        "    return Parsed(value=text.upper())\n",
        encoding="utf-8",
    )
    (root / "broken_metric.py").write_text("raise ImportError('needs libbar 2')\n", encoding="utf-8")
    info = root / "shout_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: shout-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[omnieval.parsers]\nshout = shout_mod\n\n[omnieval.metrics]\nbar = broken_metric\n", encoding="utf-8"
    )
    return root


def test_a_third_party_kind_entry_point_is_found_and_a_broken_one_hides_nothing(tmp_path: Path) -> None:
    out = fresh_python(
        """
        import json, sys
        from omnieval.metrics import metrics
        from omnieval.parsers import parsers
        from omnieval.registry import plugin_failures
        shout = parsers.get("shout").__module__
        alone = sorted(m for m in sys.modules if m in ("broken_metric", "shout_mod"))
        print(json.dumps({"shout": shout, "alone": alone, "bar": "bar" in metrics,
                          "exact": "exact_match" in metrics, "failures": plugin_failures()}))
        """,
        cwd=tmp_path,
        pythonpath=_third_party(tmp_path / "site"),
    )
    assert out["shout"] == "shout_mod" and out["alone"] == ["shout_mod"]
    assert out["bar"] is False and out["exact"] is True
    assert "needs libbar 2" in out["failures"]["omnieval.metrics:bar"]  # type: ignore[index]


def _string_imports(path: Path) -> list[str]:
    """Calls that import a module named by a string: ``importlib.import_module``, ``__import__``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__", "walk_packages"):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {name}")
    return found


def test_no_module_but_the_registry_imports_by_string() -> None:
    allowed = {SRC / "omnieval" / "registry.py"}
    found = [
        hit for path in sorted(SRC.rglob("*.py")) if path not in allowed for hit in _string_imports(path)
    ]
    assert found == []
