"""How an option field is declared: its help, default and validation (pydantic) plus how the CLI shows it.

An option is a field of one of the option models; :func:`option` makes it. The CLI reads the
:class:`Shown` marker each field carries (its panel, short flag, old flag names, whether it is rarely
used); the keyword API reads nothing but the field itself.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pydantic import Field

__all__ = [
    "Shown",
    "comma_list",
    "key_values",
    "option",
    "runtime_env",
    "shown",
]


@dataclasses.dataclass(frozen=True)
class Shown:
    """How the CLI shows a field: the help panel, extra flags (a short one, a former name) and whether
    only ``--help-all`` lists it. ``negatable``: a ``--no-NAME`` form, for switches that default to on.
    ``text``: one text on the command line that the model reads (a mapping given as JSON or a file)."""

    panel: str = ""
    flags: tuple[str, ...] = ()
    rare: bool = False
    negatable: bool = False
    text: bool = False


def option(
    default: Any = ...,
    help: str = "",
    *,
    panel: str = "",
    flags: tuple[str, ...] = (),
    rare: bool = False,
    negatable: bool = False,
    text: bool = False,
    **constraints: Any,
) -> Any:
    """A field of an option model: ``help`` is its description everywhere (``--help``, the API docs),
    ``constraints`` its pydantic validation (``ge=1``...), the rest how the CLI shows it."""
    marker = Shown(panel=panel, flags=flags, rare=rare, negatable=negatable, text=text)
    return Field(
        default, description=help, json_schema_extra={"cli": dataclasses.asdict(marker)}, **constraints
    )


def shown(field: Any) -> Shown:
    """The :class:`Shown` of a model field made by :func:`option`."""
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    marker = extra.get("cli") or {}
    return Shown(**{**marker, "flags": tuple(marker.get("flags", ()))})


def comma_list(value: Any) -> Any:
    """``"a,b"``, ``["a,b", "c"]`` → ``("a", "b", "c")``: a list option given once or repeated, with
    commas, on the command line or as a keyword."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(i, str) for i in items):
        return value  # pydantic names the wrong item
    return tuple(part.strip() for item in items for part in item.split(",") if part.strip())


def key_values(value: Any) -> Any:
    """``["a=1", "b=x"]`` → ``{"a": 1, "b": "x"}`` (values read as JSON when they are); a mapping as is."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    items = [value] if isinstance(value, str) else list(value)
    out: dict[str, Any] = {}
    for pair in items:
        key, sep, text = str(pair).partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = _json_or_text(text)
    return out


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def runtime_env(value: Any) -> Any:
    """A Ray ``runtime_env``: a mapping, JSON text (starting with ``{``) or a JSON/YAML file holding one."""
    if value is None or isinstance(value, dict) or not isinstance(value, str | Path):
        return value
    text, where = str(value), ""
    if not text.lstrip().startswith("{"):
        path = Path(value)
        if not path.is_file():
            raise ValueError(f"{str(value)!r} is neither JSON text nor a file")
        text, where = path.read_text(encoding="utf-8"), f"{value}: "
    import yaml

    try:
        env = yaml.safe_load(text)  # YAML reads JSON too
    except yaml.YAMLError as exc:
        raise ValueError(f"{where}not JSON/YAML: {exc}") from None
    if not isinstance(env, dict):
        raise ValueError(f'{where}expected a mapping such as {{"pip": [...]}}, got {type(env).__name__}')
    return env
