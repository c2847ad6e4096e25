"""The options page of the documentation (docs/running/options.md), made from the option models so it
cannot drift from ``omnieval run --help-all`` and the keywords of :func:`omnieval.evaluate`."""

from __future__ import annotations

from typing import Any

from pydantic.fields import FieldInfo

from omnieval.options.fields import shown
from omnieval.options.models import GROUPS, PANELS, RunTarget

__all__ = ["options_page"]

_INTRO = """# Options

Every option of `omnieval run` is also a keyword of `omnieval.evaluate` (and of `omnieval sweep` /
`omnieval.sweep`, but `--dry-run`): the same name, snake_cased (`--max-tokens` / `max_tokens`), the same
default and the same validation, because both are made from the option models in `omnieval/options/`.
`omnieval run --help` shows them in these groups; options marked *rare* are listed by
`omnieval run --help-all` only. A misspelt keyword is a `TypeError` with a did-you-mean; a bad value is
refused naming the flag (CLI) or the keyword (API), before anything is written. One difference:
`output` defaults to `runs/latest` on the command line, while `evaluate(output=None)` runs in a
temporary folder and returns the results and samples in memory.

This page is generated from the models (`python scripts/options_doc.py`); a test keeps it in step.
"""


def options_page() -> str:
    """The whole page, one table per help panel."""
    fields = {**RunTarget.model_fields}
    for group in GROUPS:
        fields.update(group.model_fields)
    parts = [_INTRO]
    for panel in PANELS:
        rows = [_row(name, field) for name, field in fields.items() if shown(field).panel == panel]
        if rows:
            header = f"## {panel}\n\n| flag | keyword | default | what it does |\n|---|---|---|---|\n"
            parts.append(header + "".join(rows))
    return "\n".join(parts)


def _row(name: str, field: FieldInfo) -> str:
    marker = shown(field)
    flag = name.replace("_", "-")
    flags = [f"--{flag}" + (f" / --no-{flag}" if marker.negatable else "")]
    flags += [f for f in marker.flags if len(f) == 2]  # the short ones; former names stay unlisted
    what = (field.description or "").replace("|", "\\|")
    limits = _limits(field)
    rare = " *rare*" if marker.rare else ""
    return f"| `{'`, `'.join(flags)}` | `{name}` | {_default(field)} | {what}{limits}{rare} |\n"


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value: Any = field.get_default(call_default_factory=True)
    if value is None or value == {} or value == ():
        return "—"
    return f"`{value}`"


def _limits(field: FieldInfo) -> str:
    """The numeric validation, as words (``≥ 1``)."""
    signs = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    found = [
        f"{signs[key]} {getattr(meta, key)}"
        for meta in field.metadata
        for key in signs
        if getattr(meta, key, None) is not None
    ]
    return f" ({', '.join(found)})" if found else ""
