"""Benchmark content: one folder per suite, data plus small registered plugins.

The engine never imports this package; :func:`omnieval.registry.load_plugins` does.
"""

import importlib

_SUITES = ("demo", "megabench", "mera", "marker", "synthetic", "art", "pollux")

for _suite in _SUITES:
    try:
        importlib.import_module(f"{__name__}.{_suite}")
    except ModuleNotFoundError as _exc:  # a suite folder not written yet
        if _exc.name != f"{__name__}.{_suite}":
            raise
