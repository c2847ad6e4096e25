"""The MERA Multi skill taxonomy (``taxonomy.yaml``): atomic skills with their path and modalities.

Reports group task skills by their top level (Perception, Reasoning, Knowledge), and coverage
gaps show as atomic skills no task exercises.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from omnieval.benchmarks.mera.catalog import catalogue

__all__ = ["Skill", "skill_levels", "skills", "uncovered_skills"]

_DATA = Path(__file__).with_name("taxonomy.yaml")
_LETTER = {"image": "I", "audio": "A", "video": "V"}


class Skill(NamedTuple):
    """An atomic skill: its path from L1 and the modalities it applies to (``IAV`` letters)."""

    path: tuple[str, ...]
    modalities: str


def _walk(node: dict[str, Any], prefix: tuple[str, ...], out: dict[str, Skill]) -> None:
    for name, child in node.items():
        if isinstance(child, dict):
            _walk(child, (*prefix, name), out)
        else:
            out[name] = Skill((*prefix, name), str(child))


@cache
def skills() -> dict[str, Skill]:
    """Every atomic skill by name."""
    out: dict[str, Skill] = {}
    _walk(yaml.safe_load(_DATA.read_text(encoding="utf-8")), (), out)
    return out


def uncovered_skills(modality: str) -> list[str]:
    """Atomic skills applicable to ``modality`` that no task of that modality exercises."""
    letter = _LETTER[modality]
    used = {s for t in catalogue().of_modality(modality) for s in t.skills}
    return sorted(name for name, skill in skills().items() if letter in skill.modalities and name not in used)


def skill_levels(names: tuple[str, ...] | list[str]) -> dict[str, list[str]]:
    """``{"L1": [...], "L2": [...], ...}``: the taxonomy nodes above a task's skills, level by level, so a
    report can break scores down by every level of the tree (an unknown skill name is left out)."""
    known = skills()
    levels: dict[str, set[str]] = {}
    for name in names:
        if name in known:
            for depth, node in enumerate(known[name].path, 1):
                levels.setdefault(f"L{depth}", set()).add(node)
    return {level: sorted(nodes) for level, nodes in sorted(levels.items())}
