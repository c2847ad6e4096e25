"""Leaderboard schemes: ``omnieval leaderboard RUN_DIR... --scheme NAME``.

A scheme reads the ``results.json`` of several runs and returns a JSON-able board.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from omnieval.registry import Registry, check_options
from omnieval.types.files import ResultsFile, results_model

__all__ = [
    "Scheme",
    "build_board",
    "checked_scheme",
    "labelled",
    "register_scheme",
    "schemes",
    "typed_results",
]

Scheme = Callable[..., "dict[str, Any]"]
"""``(results: Sequence[ResultsFile | dict], /, **options) -> {"rows": [...], ...}``; each ``results`` item
is one run's ``results.json`` (typed, or parsed as a dict) with an added ``"run_dir"`` key; read each through
:func:`typed_results`. Options come from CLI ``--option k=v`` pairs and from named CLI flags such as
``--weighting``."""

schemes: Registry[Scheme] = Registry("leaderboard scheme", group="omnieval.schemes")


def register_scheme(name: str) -> Callable[[Scheme], Scheme]:
    """Register a leaderboard scheme."""
    return schemes.register(name)


def checked_scheme(name: str, options: Mapping[str, Any]) -> Scheme:
    """Scheme ``name``, once ``options`` fit it: an unknown name or an option it does not take is a clear
    error naming what it takes (never a ``TypeError`` from inside the call, nor one after a sweep's runs)."""
    scheme = schemes.get(name)
    check_options(scheme, dict(options), what=f"leaderboard scheme {name!r}", n_positional=1)
    return scheme


def build_board(name: str, results: list[ResultsFile], options: Mapping[str, Any]) -> dict[str, Any]:
    """Scheme ``name``'s board over ``results`` (:func:`checked_scheme` first)."""
    return checked_scheme(name, options)(results, **options)


def labelled(result: ResultsFile) -> ResultsFile:
    """A run's results as boards show them: a cascade's model name says it is one (``… [cascade]``), so it
    never reads as a model that perceived the audio or images itself."""
    if result.model_kind != "cascade":
        return result
    return result.model_copy(update={"model": f"{result.model or result.run_dir or '?'} [cascade]"})


def typed_results(result: Mapping[str, Any] | ResultsFile) -> ResultsFile:
    """One scheme input (a ``results.json`` document, its ``run_dir`` added) through its model: a missing
    or mistyped key fails here, naming the run's file, not as a KeyError inside a board."""
    if isinstance(result, ResultsFile):
        return result
    run_dir = result.get("run_dir")
    return results_model(dict(result), source=f"{run_dir}/results.json" if run_dir else "results.json")
