"""The typer options of a command, generated from the option models (``omnieval/options``).

One ``--kebab-name`` per field, with the field's default and help, in the field's help panel; a field
marked rarely used is hidden until ``--help-all``. The values are validated by the models, not by typer,
so a bad value fails the same way from the CLI and from the API; :func:`option_error` names the flag.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError

from omnieval.cli._common import fail

if TYPE_CHECKING:
    from omnieval.options.build import RunOptions

__all__ = [
    "checked_options",
    "cli_values",
    "flag",
    "help_all_option",
    "option_error",
    "option_parameters",
    "with_options",
]

F = TypeVar("F", bound=Callable[..., Any])


def flag(name: str) -> str:
    """The command-line flag of the option ``name`` (``max_tokens`` → ``--max-tokens``)."""
    return "--" + name.replace("_", "-")


def _cli_type(annotation: Any) -> Any:
    """The type typer parses: lists and mappings as repeatable strings (the model splits and reads
    them), a ``Literal`` as text (the model checks it); optional unless the field is required."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    base = args[0] if isinstance(annotation, types.UnionType) and args else annotation
    origin = typing.get_origin(base)
    if origin in (tuple, list, dict):
        return list[str] | None
    if origin is typing.Literal:
        return str | None
    if base in (bool, int, float, str, Path):
        return base | None if type(None) in typing.get_args(annotation) else base
    return str | None


def _parameter(name: str, field: Any) -> inspect.Parameter:
    from omnieval.options import shown

    marker = shown(field)
    cli_type = str | None if marker.text else _cli_type(field.annotation)
    short = [f for f in marker.flags if not f.startswith("--")]
    decls = [flag(name), *short]
    if field.annotation is bool and marker.negatable:
        decls = [f"{flag(name)}/--no-{name.replace('_', '-')}", *short]
    info = typer.Option(
        *decls,
        help=field.description,
        hidden=marker.rare,
        rich_help_panel=marker.panel or None,
        show_default=field.annotation is not bool and field.default not in (None, {}, ()),
    )
    value = field.default
    if field.is_required():
        value = inspect.Parameter.empty
    elif value in ({}, ()) or cli_type == list[str] | None:
        value = None
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=value, annotation=Annotated[cli_type, info]
    )


def option_parameters(
    groups: Iterable[type[BaseModel]] | None = None,
    *,
    exclude: Iterable[str] = (),
    only: Iterable[str] | None = None,
) -> list[inspect.Parameter]:
    """A typer parameter per field of ``groups`` (default: every run option; ``only`` those, or all but
    ``exclude``)."""
    from omnieval.options import GROUPS, RunTarget, shown

    groups = groups if groups is not None else (RunTarget, *GROUPS)
    skip, wanted = set(exclude), set(only) if only is not None else None
    fields = [
        (name, field)
        for group in groups
        for name, field in group.model_fields.items()
        if name not in skip and (wanted is None or name in wanted)
    ]
    fields.sort(key=lambda item: _panel_rank(shown(item[1]).panel))  # stable: the models' order within
    aliases = [_alias(old, name, field) for name, field in fields for old in _former_flags(field)]
    return [*(_parameter(name, field) for name, field in fields), *aliases]


def _former_flags(field: Any) -> list[str]:
    """The former names of an option (long flags among its ``flags``): still accepted, never shown."""
    from omnieval.options import shown

    return [f for f in shown(field).flags if f.startswith("--")]


ALIAS_PREFIX = "former__"
"""The parameter name of a former flag: ``former__NEW__OLD`` (typer passes it under that name)."""


def _alias(old: str, name: str, field: Any) -> inspect.Parameter:
    cli_type = _cli_type(field.annotation)
    if cli_type is bool:
        cli_type = bool | None
    info = typer.Option(old, hidden=True, help=f"Former name of {flag(name)}.")
    alias = f"{ALIAS_PREFIX}{name}__{old.removeprefix('--').replace('-', '_')}"
    return inspect.Parameter(
        alias, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[cli_type, info]
    )


def _panel_rank(panel: str) -> int:
    """Typer shows the panels in the order their first option comes: the order of ``PANELS``."""
    from omnieval.options import PANELS

    return PANELS.index(panel) if panel in PANELS else len(PANELS)


def _show_all(ctx: typer.Context, value: bool) -> None:
    """``--help-all``: the help with every option, the rarely used ones too."""
    if not value or ctx.resilient_parsing:
        return
    for param in ctx.command.params:
        if hasattr(param, "hidden") and param.name != "help_all":  # options (arguments have none)
            setattr(param, "hidden", (param.name or "").startswith(ALIAS_PREFIX))  # noqa: B010 - typed Parameter has none
    typer.echo(ctx.get_help(), color=ctx.color)
    raise typer.Exit()


def help_all_option() -> inspect.Parameter:
    info = typer.Option("--help-all", is_eager=True, callback=_show_all, help="Show every option and exit.")
    return inspect.Parameter(
        "help_all", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=Annotated[bool, info]
    )


def with_options(parameters: Callable[[], list[inspect.Parameter]]) -> Callable[[F], F]:
    """Give a command that takes ``**options`` the generated ``parameters`` (after its own) and
    ``--help-all``. Typer reads a command's options from its signature; this one is made when typer first
    asks (as the command line is parsed), so importing the CLI creates no option model: pydantic is set up
    by the entry point first (``cli.app.main``)."""

    def give(command: F) -> F:
        return typing.cast(F, _Generated(command, parameters))

    return give


class _Generated:
    """A command whose signature is its own parameters and the generated ones, made on first use."""

    def __init__(
        self, command: Callable[..., Any], parameters: Callable[[], list[inspect.Parameter]]
    ) -> None:
        functools.update_wrapper(self, command)
        self._command, self._parameters = command, parameters
        self._signature: inspect.Signature | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._command(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        if self._signature is None:
            sig = inspect.signature(self._command, eval_str=True)
            own = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
            self._signature = sig.replace(parameters=[*own, *self._parameters(), help_all_option()])
        return self._signature


def cli_values(options: dict[str, Any]) -> dict[str, Any]:
    """The generated options as keywords: ``--help-all`` dropped, a former flag under its option's name,
    and options left unset on the command line (``None``, or no value of a repeatable one) dropped so that
    the model's default applies."""
    given = {k: v for k, v in options.items() if k != "help_all" and v is not None and v != ()}
    for key in [k for k in given if k.startswith(ALIAS_PREFIX)]:
        name = key.removeprefix(ALIAS_PREFIX).split("__")[0]
        value = given.pop(key)
        if name not in given or given[name] == _generated_default(name):
            given[name] = value
    return given


def _generated_default(name: str) -> Any:
    from omnieval.options import GROUPS, RunTarget

    groups: tuple[type[BaseModel], ...] = (RunTarget, *GROUPS)
    for group in groups:
        if name in group.model_fields:
            return group.model_fields[name].default
    return None


def option_error(exc: ValidationError) -> str:
    """A validation error of the option models as one line naming the flag (``--limit: ...``)."""
    parts = []
    for error in exc.errors():
        name = str(error["loc"][0]) if error["loc"] else ""
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{flag(name)}: {message}" if name else message)
    return "; ".join(parts)


def checked_options(keywords: dict[str, Any], target: dict[str, Any] | None = None) -> RunOptions:
    """The option models from the command line (and ``target``: tasks, model, output); a bad value is a
    one-line error naming its flag."""
    from omnieval.options import RunTarget
    from omnieval.options.build import run_options

    try:
        if target is not None:
            RunTarget(**target)
        return run_options(keywords)
    except ValidationError as exc:
        fail(option_error(exc))
        raise  # not reached: fail exits
