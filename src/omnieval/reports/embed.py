"""Safe embedding of data in a self-contained page: JSON inside ``<script>`` and the plotly bundle.

JSON is escaped so no record text can close the script element, and every literal ``http`` (any case)
becomes ``\\u0068ttp`` (the same string once parsed); text placed in the HTML itself (a response in a
comparison's flip table) gets ``&#104;ttp``, which the browser shows as ``http``. So the page holds no
``src``/``href`` that starts with a remote URL, not even as visible text, whatever a model wrote.
The plotly bundle's few built-in links (logo, map attributions) are rewritten the same way; the page
never asks for them anyway (no logo, no maps).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import orjson

__all__ = ["html_text", "plotly_js", "plotly_js_bytes", "script_json"]

_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
_HTTP_BYTES = re.compile(rb"[hH](?=[tT][tT][pP])")
_HTTP_TEXT = re.compile(r"[hH](?=[tT][tT][pP])")
_URL_ATTRS = tuple(re.compile(rf"""({attr}\s*=\s*\\?["'])(https?:)""".encode()) for attr in ("src", "href"))
"""One pattern per attribute: a literal prefix lets ``re`` skip ahead (one ``(?:src|href)`` pattern
scanned the 4.8 MB bundle three times slower, 36 against 12 ms, on every report)."""


def script_json(data: Any) -> str:
    """JSON text safe to place inside a ``<script>`` element (and inside a sidecar ``.js`` file)."""
    raw = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS, default=str)
    for needle, replacement in _ESCAPES:
        raw = raw.replace(needle, replacement)
    return _HTTP_BYTES.sub(lambda m: b"\\u%04x" % m.group(0)[0], raw).decode("utf-8")


def html_text(value: Any) -> Any:
    """Jinja's ``finalize``: every value printed into a page, HTML-escaped, with ``http`` written as
    ``&#104;ttp``; values marked safe (the inlined scripts and styles) pass through unchanged."""
    from markupsafe import Markup, escape

    if isinstance(value, Markup):
        return value
    return Markup(_HTTP_TEXT.sub(lambda m: f"&#{ord(m.group(0))};", str(escape(value))))


def plotly_js() -> str:
    """The installed plotly.js bundle, with its built-in remote links made inert text."""
    return plotly_js_bytes().decode("utf-8")


@cache
def plotly_js_bytes() -> bytes:
    """:func:`plotly_js` as UTF-8, kept once per process: 4.8 MB, where the text takes two bytes a
    character (the bundle holds a few CJK characters), and a page writer copies it to a file as is."""
    js = _plotly_bundle()
    for pattern in _URL_ATTRS:
        js = pattern.sub(lambda m: m.group(1) + b"\\x68" + m.group(2)[1:], js)
    return js.replace(b"</script", b"<\\/script")


_BUNDLE = "package_data/plotly.min.js"
"""The file ``plotly.offline.get_plotlyjs()`` reads, inside the plotly package."""


def _plotly_bundle() -> bytes:
    """The bundle's bytes, read from the installed package without importing it: ``import plotly`` costs
    ≈ 45 ms, on every run's report, for a file path (a zipped install is read through the package)."""
    import importlib.util
    import pkgutil
    from pathlib import Path

    spec = importlib.util.find_spec("plotly")
    if spec is None:  # pragma: no cover - plotly is a core dependency
        raise RuntimeError("the HTML report needs the 'plotly' package: pip install plotly")
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / _BUNDLE
        if path.is_file():
            return path.read_bytes()
    js = pkgutil.get_data("plotly", _BUNDLE)
    assert js is not None
    return js
