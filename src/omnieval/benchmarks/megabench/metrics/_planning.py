"""``symbolic_planning_test``: simulate a PDDL plan against the domain and task in ``eval_context``.

The original validator works on PDDL text, not a parsed model, and its score depends on that: a
literal holds when its exact text is in the state, negative preconditions are never checked
against anything (the state only holds positive literals), only lines starting with ``(`` are plan
steps (indented steps are dropped), and a domain with a single action cannot be read. Any valid plan
that reaches every goal literal scores 1, not only the reference plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["symbolic_planning_test"]

_PARAM_GROUPS = re.compile(r"((?:\?\S+\s*)+)(?:-\s+([^\?$]+)\s*)?")
_PARAM_NAME = re.compile(r"\?([^\s\?\)]+)\s*")


def _outer_inner(text: str) -> tuple[str, list[str], int]:
    """Text up to the first unbalanced ``)``, the top-level ``(...)`` groups in it, and the end index."""
    depth = start = 0
    groups: list[str] = []
    for i, ch in enumerate(text):
        if depth == 0 and ch == ")":
            return text[: i + 1], groups, i + 1
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                groups.append(text[start : i + 1])
    return text, groups, len(text)


def _attr(text: str, starter: str) -> tuple[Any, Any]:
    """Groups after ``starter``: one occurrence gives a list, several a ``{name: groups}`` dict."""
    parts = text.split(starter)
    if len(parts) == 1:
        return "", []
    if len(parts) == 2:
        outer, groups, _ = _outer_inner(parts[1])
        return starter + outer, groups
    outers, named = [], {}
    rest = text
    while len(rest.split(starter)) > 1:
        rest = rest.split(starter, 1)[1]
        name = re.split(r"\s+", rest.strip())[0]
        outer, groups, end = _outer_inner(rest)
        outers.append(starter + outer)
        named[name] = groups
        rest = rest[end:]
    return outers, named


def _param_names(param_str: str) -> list[str]:
    body = param_str.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise AssertionError("parameter list is not parenthesised")
    names: dict[str, None] = {}
    for params, _type in _PARAM_GROUPS.findall(body[1:-1]):
        for name in _PARAM_NAME.findall(params):
            names[name] = None
    return list(names)


def _drop_types(clause: str) -> str:
    parts = clause.split(" - ")
    if len(parts) == 1:
        return clause
    for i in range(1, len(parts)):
        piece = parts[i].strip()
        if len(piece.split(")")[0].split()) == 1:
            parts[i] = ")" + piece.split(")", 1)[1]
        else:
            parts[i] = " " + piece.split(" ", 1)[1]
    return "".join(parts).strip()


def _conjuncts(cond: str) -> set[str]:
    if not cond.startswith("(and"):
        raise AssertionError("condition is not a conjunction")
    found: set[str] = set()
    depth = start = 0
    for i, ch in enumerate(cond):
        if ch == "(":
            depth += 1
            if depth == 2:
                start = i
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
            if depth == 1:
                found.add(_drop_types(cond[start : i + 1]))
    return found


def _read_domain(domain: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Action parameters and ``{action_pre/post: literals}`` (negations first), as text."""
    _, actions = _attr(domain, "(:action")
    params: dict[str, list[str]] = {}
    for (
        name,
        groups,
    ) in actions.items():  # a one-action domain gives a list here and fails, as in the original
        if len(groups) != 3:
            raise AssertionError(f"action {name!r} does not have parameters, precondition and effect")
        params[name] = _param_names(groups[0])
    conds: dict[str, list[str]] = {}
    for name in params:
        body = domain.split(f"(:action {name}")[1]
        for suffix, tag in (("pre", ":precondition"), ("post", ":effect")):
            cond = body.split(tag)[1].strip()
            literals = _conjuncts(cond) if cond.startswith("(and") else {cond.split(")")[0].strip() + ")"}
            conds[f"{name}_{suffix}"] = sorted(literals, key=lambda x: 0 if x.startswith("(not ") else 1)
    return params, conds


def _replacement(obj: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: obj


def _bind(literal: str, binding: dict[str, str]) -> str:
    for param, obj in binding.items():
        literal = re.sub(rf"\?{param}(?=[^\w-])", _replacement(obj), literal)
    return literal


def _holds(literal: str, state: Any) -> bool:
    return literal not in state if literal.startswith("(not ") else literal in state


def _apply(state: Any, effects: list[str], binding: dict[str, str]) -> Any:
    for effect in effects:
        bound = _bind(effect, binding)
        _, negated = _attr(bound, "(not ")
        if negated:
            if len(negated) != 1:
                raise AssertionError("nested negation")
            if negated[0] in state:
                state.remove(negated[0])
        elif bound.strip() not in state:
            state.append(bound)
    return state


def _plan_steps(pred: Any) -> list[str]:
    if isinstance(pred, str):
        lines = pred.split("\n")
    elif isinstance(pred, (list, tuple)):
        lines = list(pred)
    else:
        raise ValueError(f"plan has unsupported type {type(pred).__name__}")
    return [line.strip() for line in lines if line.startswith("(")]


def _simulate(steps: list[str], params: dict[str, list[str]], conds: dict[str, list[str]], state: Any) -> Any:
    names = list(params)
    for step in steps:
        words = step[1:-1].split(" ")
        name = words[0].strip()
        names.index(name)
        if len(words) - 1 != len(params[name]):
            raise AssertionError(f"wrong number of arguments in {step!r}")
        binding = dict(zip(params[name], words[1:], strict=True))
        if not all(_holds(_bind(c, binding), state) for c in conds[f"{name}_pre"]):
            return None
        state = _apply(state, conds[f"{name}_post"], binding)
    return state


def symbolic_planning_test(pred: Any, context: dict[str, Any], *, strict: bool = False) -> float:
    """1 when every plan step is applicable and the final state satisfies the goal, else 0."""
    params, conds = _read_domain(context["domain_pddl"])
    steps = _plan_steps(pred)
    task = context["task_pddl"]
    state = _attr(task, "(:init")[1]
    goal = _attr(task, "(and")[1]
    try:
        final = _simulate(steps, params, conds, state)
    except (ValueError, AssertionError):
        return 0.0
    if final is None:
        return 0.0
    return 1.0 if all(_holds(g, final) for g in goal) else 0.0
