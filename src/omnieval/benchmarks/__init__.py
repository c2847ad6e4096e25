"""Benchmark content: one folder per suite, data plus small registered plugins.

Each suite is an ``omnieval.plugins`` entry point in pyproject.toml, like a third-party plugin; the
engine never imports this package, and :mod:`omnieval.registry` imports a suite only when a lookup
needs it.
"""
