"""The MERA Multi task catalogue (``tasks.yaml``) as typed, validated data.

Every other module of the suite reads task facts from here, so a fact lives in one place.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field

from omnieval.errors import ConfigError
from omnieval.types._base import Frozen

__all__ = ["MODALITIES", "Catalogue", "MeraTask", "catalogue", "find_task", "normalize_name"]

Modality = Literal["image", "audio", "video"]
MODALITIES: tuple[Modality, ...] = ("image", "audio", "video")
_DATA = Path(__file__).with_name("tasks.yaml")


class Wording(Frozen):
    """A phrase in Russian and English."""

    ru: str
    en: str


class MeraTask(Frozen):
    """Published facts about one MERA Multi task."""

    name: str
    hf_name: str
    submission: str
    """File stem of the task inside a submission zip (``ruHHH_Image.json``)."""
    modality: Modality
    answer: Literal["MC", "OE", "JSON"]
    options: int
    """Number of answer options for multiple choice (0 otherwise)."""
    size: int
    human_baseline: float
    licence: str
    public: bool
    metrics: tuple[str, ...]
    media: dict[str, Modality]
    """Media fields of ``inputs`` and their kind, in placeholder order."""
    text: tuple[str, ...]
    """Text fields of ``inputs`` besides the options."""
    dialogue: bool = False
    group_field: str | None = None
    domain_field: str | None = None
    domains: tuple[str, ...] = ()
    description: Wording
    skills: tuple[str, ...] = Field(min_length=1)

    @property
    def option_fields(self) -> tuple[str, ...]:
        """``option_a`` ... for multiple-choice tasks."""
        return tuple(f"option_{chr(ord('a') + i)}" for i in range(self.options))

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(chr(ord("A") + i) for i in range(self.options))


class Catalogue(Frozen):
    """The whole catalogue: task counts per modality and the tasks."""

    modalities: dict[Modality, int]
    human_baseline_totals: dict[Modality, float]
    tasks: tuple[MeraTask, ...]

    def by_name(self) -> dict[str, MeraTask]:
        return {t.name: t for t in self.tasks}

    def of_modality(self, modality: str) -> tuple[MeraTask, ...]:
        return tuple(t for t in self.tasks if t.modality == modality)


@cache
def catalogue() -> Catalogue:
    """The catalogue, validated once; counts per modality are checked against the task list."""
    data = Catalogue.model_validate(yaml.safe_load(_DATA.read_text(encoding="utf-8")))
    for modality, n in data.modalities.items():
        if len(data.of_modality(modality)) != n:
            raise ConfigError(f"{_DATA}: modality {modality!r} declares {n} tasks")
    return data


def normalize_name(name: str) -> str:
    """Case-insensitive name key that ignores ``-`` and ``_`` (``ruHHH-Image`` == ``ruhhh_image``)."""
    return re.sub(r"[-_\s]", "", name).lower()


_ALIASES = {"ruenvvqa": "ruenvaqa", "ruenvqa": "ruenvaqa", "ruslu": "ruslun"}
"""Spellings the paper itself uses for the same task (its §14 list of name typos)."""
_PREFIXES = ("datasets", "meraevaluation", "mera")


def find_task(name: str) -> MeraTask | None:
    """The task whose task name, repository name or submission name matches ``name``.

    An owner prefix is ignored (``MERA-evaluation--RuSLUn``, ``MERA-evaluation___ruTiE-Audio``), and
    the paper's own misspellings (``ruEnvVQA``, ``ruSLU``) resolve.
    """
    key = normalize_name(name.replace("/", "-"))
    keys = [key]
    for prefix in _PREFIXES:
        if keys[-1].startswith(prefix) and len(keys[-1]) > len(prefix):
            keys.append(keys[-1][len(prefix) :])
    keys += [_ALIASES[k] for k in keys if k in _ALIASES]
    for task in catalogue().tasks:
        names = {normalize_name(task.name), normalize_name(task.hf_name), normalize_name(task.submission)}
        if names & set(keys):
            return task
    return None
