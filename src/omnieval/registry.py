"""One generic registry per kind of plugin, reached through one decorator.

Unknown names fail at validation time with close-match suggestions. Third-party plugins are
discovered through the ``omnieval.plugins`` entry-point group; built-in benchmark suites are
imported by :func:`load_plugins` (the engine itself never imports them).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import threading
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Generic, TypeVar

from omnieval.errors import RegistryError, TaskFileError

__all__ = ["Registry", "check_options", "cli_apps", "load_plugins"]

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → object map for one kind of plugin (backends, parsers, metrics, ...)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

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
        load_plugins()
        try:
            return self._items[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._items), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            known = ", ".join(sorted(self._items)[:40])
            raise RegistryError(f"unknown {self.kind} {name!r}{hint} (known: {known})") from None

    def __contains__(self, name: object) -> bool:
        load_plugins()
        return name in self._items

    def names(self) -> list[str]:
        load_plugins()
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        load_plugins()
        yield from sorted(self._items.items())


_BUILTIN_PLUGIN_MODULES = (
    "omnieval.parsers.builtin",
    "omnieval.metrics.builtin",
    "omnieval.backends.builtin",
    "omnieval.judges.builtin",
    "omnieval.benchmarks",
)
_loaded = False
_loading = False
_load_lock = threading.RLock()


def load_plugins() -> None:
    """Import built-in plugin modules and entry-point plugins once, completely, under a lock.

    Threads calling at once wait for the first to finish (a half-loaded registry would answer "unknown"),
    and the loaded flag is set only once every import succeeded. A plugin that asks again while it is
    being imported (same thread) gets the registry as it stands.
    """
    global _loaded, _loading
    if _loaded:
        return
    with _load_lock:
        if _loaded or _loading:
            return
        _loading = True
        try:
            _import_plugins()
            _loaded = True
        finally:
            _loading = False


def _import_plugins() -> None:
    for module in _BUILTIN_PLUGIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise
    for entry in metadata.entry_points(group="omnieval.plugins"):
        entry.load()


def check_options(fn: Callable[..., Any], options: dict[str, Any], *, what: str, n_positional: int) -> None:
    """Raise a clear error when ``options`` do not fit ``fn``'s keyword-only parameters."""
    sig = inspect.signature(fn)
    accepted = {
        n for n, p in list(sig.parameters.items())[n_positional:] if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = sorted(set(options) - accepted)
    if unknown and not takes_any:
        raise TaskFileError(f"{what} does not take option(s) {unknown}; it takes {sorted(accepted)}")


cli_apps: Registry[Any] = Registry("CLI sub-command group")
"""Typer apps that suites add as ``omnieval NAME ...`` sub-commands (e.g. ``omnieval mera prompts``)."""
