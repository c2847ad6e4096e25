"""One generic registry per kind of plugin, reached through one decorator.

Unknown names fail at validation time with close-match suggestions. Plugins, built-in benchmark
suites and third-party packages alike, are ``omnieval.plugins`` entry points (the engine never imports
them). A lookup imports only what it needs: its kind's core plugins first (a backend lookup: that
provider's module), then the whole core, then the plugin whose entry-point name starts the looked-up
name (``megabench.query_score`` → ``megabench``), and all plugins only for a name still unknown (to
list close matches). A plugin that fails to import is recorded with its package
and error (:func:`plugin_failures`, named in unknown-name errors); the others keep working.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import logging
import re
import threading
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Generic, TypeVar

from omnieval.errors import RegistryError, TaskFileError

__all__ = [
    "Registry",
    "check_options",
    "cli_apps",
    "load_core",
    "load_for",
    "load_plugin",
    "load_plugins",
    "plugin_failures",
]

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → object map for one kind of plugin (backends, parsers, metrics, ...).

    ``core`` names the engine modules that hold this kind's built-in plugins (a callable: for the
    looked-up name): a lookup imports those first and the whole core only for a name they lack. ``None``:
    the whole core at once."""

    def __init__(
        self, kind: str, *, core: tuple[str, ...] | Callable[[str], tuple[str, ...]] | None = None
    ) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._core = core

    def register(self, name: str, *, replace: bool = False) -> Callable[[T], T]:
        """Decorator that registers ``obj`` under ``name``; a second registration is an error."""

        def decorate(obj: T) -> T:
            if name in self._items and not replace and self._items[name] is not obj:
                raise RegistryError(f"{self.kind} {name!r} is already registered")
            self._items[name] = obj
            return obj

        return decorate

    def add(self, name: str, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` without decorator syntax."""
        return self.register(name, replace=replace)(obj)

    def get(self, name: str) -> T:
        """Return the plugin or raise a :class:`RegistryError` naming close matches."""
        if self._find(name):
            return self._items[name]
        close = difflib.get_close_matches(name, list(self._items), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        known = ", ".join(sorted(self._items)[:40])
        failed = "".join(f"; {reason}" for reason in _failures.values()) + _stale_install_hint()
        raise RegistryError(f"unknown {self.kind} {name!r}{hint} (known: {known}){failed}")

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name)

    def _find(self, name: str) -> bool:
        core = self._core(name) if callable(self._core) else self._core
        return load_for(name, lambda: name in self._items, core=core)

    def names(self) -> list[str]:
        self._load_all()
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        self._load_all()
        yield from sorted(self._items.items())

    def _load_all(self) -> None:
        if isinstance(self._core, tuple):  # a kind whose built-ins live outside the engine's core
            _import_core(self._core)
        load_plugins()


_CORE_MODULES = (
    "omnieval.parsers.builtin",
    "omnieval.metrics.builtin",
    "omnieval.backends.builtin",
    "omnieval.judges.builtin",
)
PLUGIN_GROUP = "omnieval.plugins"
_lock = threading.RLock()  # re-entrant: a plugin module may look names up while it is imported
_core_loaded = False
_core_imported: set[str] = set()
_all_loaded = False
_loaded: set[str] = set()
_loading: set[str] = set()
_failures: dict[str, str] = {}


def load_core() -> None:
    """Import the engine's own parsers, metrics, backends and judge templates (no benchmark suite)."""
    global _core_loaded
    if _core_loaded:
        return
    with _lock:
        if _core_loaded:
            return
        _import_core(_CORE_MODULES)
        # only once every module is in: another thread must not see a half-filled registry
        _core_loaded = True


def _import_core(modules: tuple[str, ...]) -> None:
    """Import engine modules of built-in plugins (each once; marked only once imported whole)."""
    if _core_imported.issuperset(modules):
        return
    with _lock:
        for module in modules:
            if module in _core_imported:
                continue
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:  # a layer absent from a trimmed install
                if exc.name is None or not module.startswith(exc.name):
                    raise
            _core_imported.add(module)


def plugin_entry_points() -> dict[str, metadata.EntryPoint]:
    """The ``omnieval.plugins`` entry points by name; built-in suites are declared there too
    (pyproject.toml)."""
    return {entry.name: entry for entry in metadata.entry_points(group=PLUGIN_GROUP)}


def load_plugin(name: str) -> bool:
    """Import one plugin by its entry-point name; ``False`` when it is unknown or failed (see
    :func:`plugin_failures`)."""
    load_core()
    if name in _loaded:
        return True
    with _lock:
        if name in _loaded or name in _loading:
            return name in _loaded
        entry = plugin_entry_points().get(name)
        if entry is None or name in _failures:
            return False
        _loading.add(name)
        try:
            entry.load()
        except Exception as exc:  # a broken plugin is reported and never hides the others
            package = entry.dist.name if entry.dist is not None else entry.value
            error = f"{type(exc).__name__}: {exc}"
            _failures[name] = f"plugin {name!r} ({package}: {entry.value}) failed to import: {error}"
            logging.getLogger("omnieval").warning("%s", _failures[name])
            return False
        finally:
            _loading.discard(name)
        _loaded.add(name)
        return True


def load_plugins() -> None:
    """Import the core plugins and every entry-point plugin (a failed one is recorded, not raised)."""
    global _all_loaded
    if _all_loaded:
        return
    load_core()
    with _lock:
        if _all_loaded:
            return
        for name in plugin_entry_points():
            load_plugin(name)
        _all_loaded = not _loading  # a plugin that lists names while it is imported sees a partial set


def plugin_failures() -> dict[str, str]:
    """Plugins whose import failed, by entry-point name, with the package and the error."""
    return dict(_failures)


def load_for(name: str, found: Callable[[], bool], *, core: tuple[str, ...] | None = None) -> bool:
    """Load as little as makes ``found()`` true for ``name``: the ``core`` modules of its kind (default:
    the whole core), the whole core, then the plugin whose entry-point name starts ``name``, then every
    plugin (an unknown name needs them all to list close matches)."""
    if core is not None:
        if _core_imported.issuperset(core) and found():
            return True
        _import_core(core)
        if found():
            return True
    if _core_loaded and found():
        return True
    load_core()
    if found():
        return True
    if load_plugin(_plugin_for(name)) and found():
        return True
    load_plugins()
    return found()


def _stale_install_hint() -> str:
    """Built-in suites are entry points of omnieval's own install: an install older than them sees none."""
    if any(e.value.startswith("omnieval.benchmarks.") for e in plugin_entry_points().values()):
        return ""
    return (
        "; no built-in suite is registered: reinstall omnieval (pip install -e .) to refresh its entry points"
    )


def _plugin_for(name: str) -> str:
    """The entry-point name a plugin name starts with: ``megabench.query_score`` → ``megabench``."""
    return re.split(r"[^A-Za-z0-9]", name, maxsplit=1)[0]


def check_options(fn: Callable[..., Any], options: dict[str, Any], *, what: str, n_positional: int) -> None:
    """Raise a clear error when ``options`` do not fit ``fn``'s keyword-only parameters."""
    sig = inspect.signature(fn)
    accepted = {
        n
        for n, p in list(sig.parameters.items())[n_positional:]
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = sorted(set(options) - accepted)
    if unknown and not takes_any:
        raise TaskFileError(f"{what} does not take option(s) {unknown}; it takes {sorted(accepted)}")


cli_apps: Registry[Any] = Registry("CLI sub-command group")
"""Typer apps that suites add as ``omnieval NAME ...`` sub-commands (e.g. ``omnieval mera prompts``)."""
