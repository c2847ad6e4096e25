"""Versioned judge prompt templates: ``register_judge_template(name, version=..., user=..., system=...)``.

A template is data (jinja2 text), referenced from a task's ``judge.template`` as ``name`` (the newest
version) or ``name@version``. The template text is part of the judge version, so editing a template
without bumping its version still changes the recorded judge version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from omnieval.errors import RegistryError
from omnieval.registry import Registry

__all__ = ["JudgeTemplate", "get_judge_template", "judge_templates", "register_judge_template"]


@dataclass(frozen=True)
class JudgeTemplate:
    """One version of a judge prompt; ``user`` and ``system`` are jinja2 over the protocol's variables."""

    name: str
    version: str
    user: str
    system: str | None = None
    description: str = ""

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def digest(self) -> str:
        """Hash of the text: part of the judge version."""
        return hashlib.sha256(f"{self.system or ''}\x00{self.user}".encode()).hexdigest()[:12]


judge_templates: Registry[JudgeTemplate] = Registry("judge template", group="omnieval.judge_templates")
"""Keyed ``name@version``."""
_latest: dict[str, JudgeTemplate] = {}


def register_judge_template(
    name: str, *, version: str, user: str, system: str | None = None, description: str = ""
) -> JudgeTemplate:
    """Register one version of a judge prompt template and return it."""
    if "@" in name:
        raise RegistryError(
            f"judge template name {name!r} must not contain '@' (the version goes in version=)"
        )
    template = JudgeTemplate(name, version, user, system, description)
    judge_templates.add(template.ref, template)
    current = _latest.get(name)
    if current is None or _version_key(version) >= _version_key(current.version):
        _latest[name] = template
    return template


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in version.split("."))


def get_judge_template(ref: str) -> JudgeTemplate:
    """``name@version`` exactly, or ``name`` for its newest version; unknown names list close matches."""
    if "@" in ref:
        return judge_templates.get(ref)
    if judge_templates.find(ref, lambda: ref in _latest):  # imports only the plugin that can hold it
        return _latest[ref]
    return judge_templates.get(ref)  # raises with close matches
