"""Shared machinery of the generated image and video suites: options, seeds and atomic set writing.

Every instance draws from its own ``random.Random`` seeded by ``(suite, seed, index)``, so instance
``i`` is the same whatever ``n`` is and instances can be made in any order or process. A set is
written into a hidden sibling folder and moved into place only when complete, so a folder holding
``manifest.jsonl`` is always a whole set. The seed is written only as the rows' ``seed`` field, which
``omnieval generate --private-seed FILE`` replaces by a hash commitment for hidden test sets.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.errors import SourceError
from omnieval.store.staging import staged_dir

__all__ = [
    "DIFFICULTIES",
    "LANGS",
    "MANIFEST",
    "Factory",
    "MakeItem",
    "SetOptions",
    "build_set",
    "check_int",
    "resolve_options",
]

DIFFICULTIES = ("easy", "medium", "hard")
LANGS = ("ru", "en")
MANIFEST = "manifest.jsonl"
MAX_N = 100_000

MakeItem = Callable[[int, random.Random, str, str, Path], dict[str, Any]]
"""``(index, rng, difficulty, lang, set_dir) -> row``: draws one instance, writes its media under
``set_dir`` and returns the manifest row without the common fields (``id``, ``lang``, ...)."""
Factory = Callable[..., MakeItem]
"""``(**suite options) -> MakeItem``, module-level so that worker processes can call it."""
_CHUNK = 16


@dataclass(frozen=True)
class SetOptions:
    """The resolved options of one generated set."""

    suite: str
    seed: int
    n: int
    difficulty: str
    lang: str

    def difficulty_of(self, index: int) -> str:
        return DIFFICULTIES[index % 3] if self.difficulty == "mixed" else self.difficulty

    def lang_of(self, index: int) -> str:
        return LANGS[(index // 3) % 2] if self.lang == "mixed" else self.lang

    def rng_of(self, index: int) -> random.Random:
        return random.Random(f"{self.suite}:{self.seed}:{index}")


def check_int(suite: str, name: str, value: object, *, low: int, high: int) -> int:
    """An integer option inside ``[low, high]``, or a SourceError naming the suite and option."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SourceError(
            f"{suite}: option {name} must be an integer in [{low}, {high}], got {value!r}", field=name
        )
    return value


def resolve_options(
    suite: str,
    *,
    seed: int,
    n: int | None,
    default_n: int,
    difficulty: str,
    lang: str,
) -> SetOptions:
    """Validate the options every suite shares."""
    count = check_int(suite, "n", default_n if n is None else n, low=1, high=MAX_N)
    check_int(suite, "seed", seed, low=0, high=2**63 - 1)
    if difficulty not in (*DIFFICULTIES, "mixed"):
        raise SourceError(
            f"{suite}: difficulty must be easy, medium, hard or mixed, not {difficulty!r}", field="difficulty"
        )
    if lang not in (*LANGS, "mixed"):
        raise SourceError(f"{suite}: lang must be ru, en or mixed, not {lang!r}", field="lang")
    return SetOptions(suite, seed, count, difficulty, lang)


@dataclass(frozen=True)
class _Job:
    """What a worker needs to make instances: picklable (module-level factory, plain arguments)."""

    opts: SetOptions
    factory: Factory
    factory_args: tuple[tuple[str, Any], ...]
    version: str
    staging: Path


def _lines(job: _Job, indices: range) -> list[str]:
    """Manifest lines of the instances at ``indices`` (their media are written as a side effect)."""
    opts, make = job.opts, job.factory(**dict(job.factory_args))
    lines = []
    for index in indices:
        difficulty, lang = opts.difficulty_of(index), opts.lang_of(index)
        row = make(index, opts.rng_of(index), difficulty, lang, job.staging)
        head = {
            "id": f"{opts.suite}-{index:05d}",
            "task": row.pop("task"),
            "question": row.pop("question"),
            "answer": row.pop("answer"),
        }
        tail = {
            "lang": lang,
            "difficulty": difficulty,
            "suite": opts.suite,
            "generator": f"{opts.suite}@{job.version}",
            "seed": opts.seed,
        }
        lines.append(json.dumps({**head, **row, **tail}, ensure_ascii=False))
    return lines


def _make_all(job: _Job, workers: int) -> list[str]:
    """All lines in index order, made in this process or by ``workers`` processes in chunks."""
    n = job.opts.n
    if workers <= 1 or n < 2 * _CHUNK:
        return _lines(job, range(n))
    from concurrent.futures import ProcessPoolExecutor

    chunks = [range(start, min(n, start + _CHUNK)) for start in range(0, n, _CHUNK)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [line for part in pool.map(_lines, [job] * len(chunks), chunks) for line in part]


def build_set(
    out_dir: Path, opts: SetOptions, factory: Factory, *, version: str, workers: int = 1, **factory_args: Any
) -> Path:
    """Make ``opts.n`` instances into a staging folder, write the manifest, then move it into place.

    ``factory(**factory_args)`` returns the per-instance maker; it must be a module-level function so
    worker processes can rebuild the maker (``workers`` > 1). The files do not depend on ``workers``.
    """
    check_int(opts.suite, "workers", workers, low=1, high=64)
    out_dir = Path(out_dir).absolute()
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise SourceError("output folder is not empty; choose a new one", path=str(out_dir))
    with staged_dir(out_dir) as staging:
        job = _Job(opts, factory, tuple(sorted(factory_args.items())), version, staging)
        lines = _make_all(job, workers)
        (staging / MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out_dir / MANIFEST
