"""One generic registry per kind of plugin, and the one place that imports plugins.

Every plugin, built-in or third-party, is an entry point (pyproject.toml ``[project.entry-points.GROUP]``):

- in its kind's group (``omnieval.backends``, ``omnieval.parsers``, ``omnieval.metrics``, ...: each
  :class:`Registry` names its ``group``) under the name a lookup asks for, or the prefix of the names it
  registers (``mine`` for ``mine.f1``); the value is a module that registers the plugin when imported,
  or (``module:attr``) the object itself, registered under the entry-point name;
- in ``omnieval.plugins`` (:data:`PLUGINS_GROUP`) when one package holds plugins of several kinds (a
  benchmark suite, a private benchmark), named by the prefix of the names it registers
  (``megabench.query_score`` → ``megabench``).

A lookup imports only what can provide the name: its kind's entry point of that name (or of its part
before ``@``, or of its prefix), then the ``omnieval.plugins`` entry point of the same names, and every
plugin only for a name still unknown (to list close matches); listing a kind's names loads its group and
every ``omnieval.plugins`` entry point. Entry points are read from the installed package metadata, so a
new or renamed one needs a reinstall (``pip install -e .``). A plugin that fails to import is recorded
with its package and error (:func:`plugin_failures`, named in unknown-name errors); the others keep
working.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import logging
import re
import threading
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Generic, TypeVar

from omnieval.errors import RegistryError, TaskFileError

__all__ = [
    "PLUGINS_GROUP",
    "Registry",
    "check_options",
    "cli_apps",
    "entry_points",
    "load_group",
    "load_plugins",
    "plugin_failures",
]

T = TypeVar("T")

PLUGINS_GROUP = "omnieval.plugins"
"""Packages holding plugins of several kinds (benchmark suites), named by the prefix of their names."""


_registries: dict[str, Registry[Any]] = {}
"""Each kind's registry by its entry-point group."""


class Registry(Generic[T]):
    """A name → object map for one kind of plugin (backends, parsers, metrics, ...), filled from the
    entry points of ``group`` as names are looked up."""

    kind: str
    group: str

    def __init__(self, kind: str, *, group: str) -> None:
        if group in _registries:
            raise RegistryError(
                f"entry-point group {group!r} already belongs to the {_registries[group].kind}s"
            )
        self.kind = kind
        self.group = group
        self._items: dict[str, T] = {}
        _registries[group] = self

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

    def find(self, name: str, found: Callable[[], bool]) -> bool:
        """Load as little as makes ``found()`` true for ``name`` (see the module's docstring)."""
        if found():
            return True
        for candidate in _candidates(name):
            if _load_entry(self.group, candidate) and found():
                return True
        for candidate in _candidates(name):  # a package named as a whole (``mws_vision``), or by prefix
            if _load_entry(PLUGINS_GROUP, candidate) and found():
                return True
        load_plugins()
        return found()

    def _find(self, name: str) -> bool:
        return self.find(name, lambda: name in self._items)

    def declared(self) -> list[str]:
        """The entry-point names of this kind's group, read without importing any plugin."""
        return sorted(entry_points(self.group))

    def names(self) -> list[str]:
        self._load_all()
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        self._load_all()
        yield from sorted(self._items.items())

    def _load_all(self) -> None:
        load_group(self.group)
        load_group(PLUGINS_GROUP)


_lock = threading.RLock()  # re-entrant: a plugin module may look names up while it is imported
_loaded: set[tuple[str, str]] = set()
_loading: set[tuple[str, str]] = set()
_loaded_groups: set[str] = set()
_failures: dict[str, str] = {}


@functools.cache
def _omnieval_entry_points() -> dict[str, dict[str, metadata.EntryPoint]]:
    """Every ``omnieval.*`` entry point by group and name, read once (one scan of the installed
    distributions' metadata, ≈ 10 ms)."""
    everything = metadata.entry_points()
    return {
        group: {entry.name: entry for entry in everything.select(group=group)}
        for group in everything.groups
        if group.startswith("omnieval.")
    }


def entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    """The entry points of ``group`` by name."""
    return _omnieval_entry_points().get(group, {})


def _load_entry(group: str, name: str) -> bool:
    """Import one entry point (once); ``False`` when there is none or it failed (see
    :func:`plugin_failures`). An object (``module:attr``) is registered under the entry-point name."""
    key = (group, name)
    if key in _loaded:
        return True
    if name not in entry_points(group):
        return False
    with _lock:
        if key in _loaded or key in _loading:
            return key in _loaded
        entry = entry_points(group).get(name)
        if entry is None or f"{group}:{name}" in _failures:
            return False
        _loading.add(key)
        try:
            obj = entry.load()
            if not inspect.ismodule(obj) and group in _registries:
                _registries[group].add(name, obj)
        except Exception as exc:  # a broken plugin is reported and never hides the others
            package = entry.dist.name if entry.dist is not None else entry.value
            error = f"{type(exc).__name__}: {exc}"
            reason = f"plugin {name!r} ({package}: {entry.value}) failed to import: {error}"
            _failures[f"{group}:{name}"] = reason
            logging.getLogger("omnieval").warning("%s", reason)
            return False
        finally:
            _loading.discard(key)
        _loaded.add(key)
        return True


def load_group(group: str) -> None:
    """Import every entry point of ``group`` (a failed one is recorded, not raised)."""
    if group in _loaded_groups:
        return
    with _lock:
        if group in _loaded_groups:
            return
        for name in entry_points(group):
            _load_entry(group, name)
        if not _loading:  # a plugin that lists names while it is imported sees a partial set
            _loaded_groups.add(group)


def load_plugins() -> None:
    """Import every plugin: the ``omnieval.plugins`` packages and every kind's group (a kind whose
    registry one of them defines included)."""
    load_group(PLUGINS_GROUP)
    while pending := [group for group in list(_registries) if group not in _loaded_groups]:
        for group in pending:
            load_group(group)
        if _loading:
            return


def plugin_failures() -> dict[str, str]:
    """Plugins whose import failed, by ``GROUP:NAME`` of their entry point, with the package and error."""
    return dict(_failures)


def _candidates(name: str) -> list[str]:
    """The entry-point names of a kind's group that may provide ``name``: itself, its part before ``@``
    (a versioned judge template) and its prefix (``mine.f1`` → ``mine``)."""
    return list(dict.fromkeys((name, name.partition("@")[0], _prefix(name))))


def _prefix(name: str) -> str:
    """The entry-point name a plugin name starts with: ``megabench.query_score`` → ``megabench``."""
    return re.split(r"[^A-Za-z0-9]", name, maxsplit=1)[0]


def _stale_install_hint() -> str:
    """omnieval's own plugins are entry points of its install: an install older than them has none."""
    if any(e.value.startswith("omnieval.") for e in entry_points("omnieval.parsers").values()):
        return ""
    return (
        "; omnieval's own plugins are not registered: reinstall omnieval (pip install -e .) to refresh its "
        "entry points"
    )


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


cli_apps: Registry[Any] = Registry("CLI sub-command group", group="omnieval.cli")
"""Typer apps that suites add as ``omnieval NAME ...`` sub-commands (e.g. ``omnieval mera prompts``)."""
