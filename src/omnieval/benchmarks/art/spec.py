"""ART content as validated data: tasks, templates, knowledge base, voices, editions.

Everything here comes from the YAML files under ``data/``; this module only loads and checks them
(unknown slot domains, rule names, lookups, question placeholders, speakers and utterances fail here,
before any audio is made) and exposes the knowledge-base lookups the rules call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from omnieval.benchmarks.art.expr import Ambiguous, Expr, compile_expr
from omnieval.errors import SourceError

__all__ = [
    "DATA",
    "PAPER_LANGUAGES",
    "TASKS",
    "ArtSpec",
    "Template",
    "Variant",
    "load_spec",
    "placeholders",
]

DATA = Path(__file__).parent / "data"
TASKS = ("AA", "ATD", "CRLI", "CRSI", "STI", "SR", "SFC", "TSR", "TTLR")
PAPER_LANGUAGES = ("et", "fi", "hu", "pl")
_PAPER_NEIGHBOURS = ("Belarus", "Estonia", "Finland", "Latvia", "Norway", "Slovakia", "Ukraine")
_PLACEHOLDER = re.compile(r"\{(\w+)(?:\.(\w+))?\}")
_AUDIO_KEYS = {
    "sound",
    "repeat",
    "tune",
    "transform",
    "speech",
    "speaker",
    "dialogue",
    "speakers",
    "background",
    "backgrounds",
    "foreign",
}
_INVERSE = {
    "higher": "lower",
    "lower": "higher",
    "louder": "quieter",
    "quieter": "louder",
    "slowed down": "sped up",
    "sped up": "slowed down",
    "reversed": "reversed",
    "truncated": "(no inverse)",
    "none": "none",
}


@dataclass(frozen=True)
class Variant:
    """One concrete slot space with its constraints, Yes rule and audio composition."""

    id: str
    slots: tuple[tuple[str, tuple[Any, ...]], ...]
    where: tuple[Expr, ...]
    yes: Expr
    audio: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Template:
    id: str
    task: str
    question: str
    weight: float
    variants: tuple[Variant, ...]


@dataclass(frozen=True)
class ArtSpec:
    """The whole benchmark definition for one option set (edition, CRLI languages)."""

    templates: dict[str, tuple[Template, ...]]
    tables: dict[str, dict[str, Any]]
    speech: dict[str, Any]
    edition: dict[str, Any]
    language: str
    crli_languages: tuple[str, ...]
    versions: dict[str, str]

    def lookups(self) -> dict[str, Callable[[Any], Any]]:
        """The knowledge-base tables as the functions rules call (``null`` raises :class:`Ambiguous`)."""
        return _lookups(self.tables)

    def question(self, template: Template, values: Mapping[str, Any]) -> str:
        """The question text in this edition with slot values in their surface forms."""
        text = template.question if self.language == "en" else self.edition["questions"][template.id]
        forms: dict[str, dict[str, str]] = self.edition.get("forms", {})

        def fill(match: re.Match[str]) -> str:
            value = values[match.group(1)]
            form = forms.get(match.group(2) or "default", {})
            return str(form.get(value, forms.get("default", {}).get(value, value)))

        return _PLACEHOLDER.sub(fill, text)

    def answer_text(self, answer: str) -> str:
        return str(self.edition["answers"][answer])


def placeholders(text: str) -> set[str]:
    return {m.group(1) for m in _PLACEHOLDER.finditer(text)}


def _read(name: str) -> Any:
    path = DATA / name
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SourceError(f"cannot read ART data file: {exc}", path=str(path)) from None


@cache
def _raw() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    tasks = {name: _read(f"tasks/{name}.yaml") for name in TASKS}
    return _read("kb.yaml"), _read("speech.yaml"), _read("language.yaml"), tasks


def _lookups(tables: dict[str, dict[str, Any]]) -> dict[str, Callable[[Any], Any]]:
    def lookup(name: str) -> Callable[[Any], Any]:
        table = tables[name]

        def get(key: Any) -> Any:
            if key not in table:
                raise SourceError(f"ART knowledge base: table {name!r} has no entry for {key!r}")
            value = table[key]
            if value is None:
                raise Ambiguous(f"{name}({key})")
            return tuple(value) if isinstance(value, list) else value

        return get

    return {name: lookup(name) for name in tables}


def _tables(kb: dict[str, Any], speech: dict[str, Any], langs: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    tables = {k: dict(v) for k, v in kb["tables"].items()}
    people = {**speech["speakers"], **speech["sfc_speakers"]}
    for attr in ("gender", "accent", "age"):
        tables[attr] = {sid: p[attr] for sid, p in people.items() if attr in p}
    for label in ("talking_about", "subject", "answer", "historical", "about"):
        tables[label] = {uid: u[label] for uid, u in speech["utterances"].items() if label in u}
    tables["language"] = {f"{lang}_{i}": lang for lang in langs for i in (1, 2, 3)}
    tables["inverse"] = dict(_INVERSE)
    return tables


def _dynamic_domains(kb: dict[str, Any], langs: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    tables = kb["tables"]
    neighbours = set(_PAPER_NEIGHBOURS)
    if set(langs) != set(PAPER_LANGUAGES):
        for lang in langs:
            neighbours |= set(tables["land_borders"][lang]) | set(tables["sea_borders"][lang])
            neighbours.add(tables["country"][lang])
    return {
        "crli_speakers": tuple(f"{lang}_{i}" for lang in langs for i in (1, 2, 3)),
        "crli_capitals": tuple(tables["capital"][lang] for lang in langs),
        "crli_neighbours": tuple(sorted(neighbours)),
    }


def _domain(value: Any, domains: Mapping[str, tuple[Any, ...]], where: str) -> tuple[Any, ...]:
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, str) and ".." in value:
        low, high = (int(x) for x in value.split(".."))
        return tuple(range(low, high + 1))
    if isinstance(value, str) and value in domains:
        return domains[value]
    raise SourceError(f"{where}: unknown slot domain {value!r} (known: {sorted(domains)})")


def _variant(raw: dict[str, Any], *, vid: str, domains: Mapping[str, tuple[Any, ...]], where: str) -> Variant:
    missing = [k for k in ("slots", "yes_if", "audio") if k not in raw]
    if missing:
        raise SourceError(f"{where}: missing {missing}")
    slots = tuple(
        (name, _domain(dom, domains, f"{where} slot {name!r}")) for name, dom in raw["slots"].items()
    )
    wheres = raw.get("where", [])
    return Variant(
        id=vid,
        slots=slots,
        where=tuple(compile_expr(w, where=where) for w in (wheres if isinstance(wheres, list) else [wheres])),
        yes=compile_expr(raw["yes_if"], where=where),
        audio=tuple(raw["audio"]),
    )


def _check(template: Template, spec: ArtSpec) -> None:
    """Every name a template uses must exist: slots, lookups, speakers, utterances, sounds."""
    functions = set(spec.tables)
    for variant in template.variants:
        where = f"tasks/{template.task}.yaml {variant.id}"
        slots = {name for name, _ in variant.slots}
        for expr in (*variant.where, variant.yes):
            if expr.names() - slots or expr.functions() - functions:
                bad = sorted((expr.names() - slots) | (expr.functions() - functions))
                raise SourceError(f"{where}: rule {expr.source!r} uses unknown names {bad}")
        if spec.language != "en" and template.id not in spec.edition.get("questions", {}):
            raise SourceError(f"language.yaml: edition {spec.language!r} has no question for {template.id}")
        texts = [template.question] + (
            [spec.edition["questions"][template.id]] if spec.language != "en" else []
        )
        unknown_slots = sorted(set().union(*(placeholders(text) for text in texts)) - slots)
        if unknown_slots:
            raise SourceError(
                f"{where}: question placeholders {unknown_slots} are not slots ({spec.language} edition)"
            )
        for item in variant.audio:
            unknown = set(item) - _AUDIO_KEYS
            refs = [v for k, v in item.items() if k != "speakers" and k != "backgrounds"]
            refs += list(item.get("speakers", [])) + list(item.get("backgrounds", []))
            if unknown or any(r not in slots for r in refs):
                raise SourceError(f"{where}: audio item {item} uses unknown keys or slots")


def load_spec(*, language: str = "en", crli_languages: tuple[str, ...] = PAPER_LANGUAGES) -> ArtSpec:
    """Load and check the ART definition for one edition and CRLI language set."""
    kb, speech, editions, raw_tasks = _raw()
    if language not in editions:
        raise SourceError(
            f"art: unknown edition language {language!r} (known: {sorted(editions)})", field="language"
        )
    unknown = sorted(set(crli_languages) - set(speech["crli_sentences"]))
    if unknown or len(crli_languages) < 3:
        raise SourceError(
            f"art: CRLI languages must be 3 or more of {sorted(speech['crli_sentences'])}; got "
            f"{list(crli_languages)}" + (f" (unknown: {unknown})" if unknown else ""),
            field="languages",
        )
    tables = _tables(kb, speech, crli_languages)
    shared = _dynamic_domains(kb, crli_languages)
    templates: dict[str, tuple[Template, ...]] = {}
    for task, raw in raw_tasks.items():
        domains = {**shared, **{k: tuple(v) for k, v in (raw.get("domains") or {}).items()}}
        items = []
        for t in raw["templates"]:
            where = f"tasks/{task}.yaml {t.get('id')}"
            raws = t.get("variants") or [t]
            variants = tuple(
                _variant(v, vid=v.get("id", t["id"]), domains=domains, where=where) for v in raws
            )
            items.append(Template(t["id"], task, t["question"], float(t.get("weight", 1)), variants))
        templates[task] = tuple(items)
    spec = ArtSpec(
        templates,
        tables,
        speech,
        editions[language],
        language,
        tuple(crli_languages),
        {"kb": kb["version"], "speech": speech["version"]},
    )
    for task_templates in templates.values():
        for template in task_templates:
            _check(template, spec)
    return spec
