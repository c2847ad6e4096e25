"""Defences against the score oracle: a hidden-answer leaderboard must not be probed answer by answer.

A submission answering one sample per task would learn that sample's answer from its task score, so:
a task is scored only when every one of its samples is answered (others are "not attempted"); each user
has a daily cap per benchmark; scores shown are rounded; and near-identical answer sets from related
accounts (the same user or client) are flagged for the reviewers. The server's settings give the
defaults; each benchmark may override them (``omnieval platform set-policy``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import re
from collections import Counter
from typing import Any

from sqlalchemy import select

from omnieval.platform.errors import BenchmarkError
from omnieval.platform.settings import DUPLICATE_MODES, Policy
from omnieval.platform.storage.models import Benchmark

__all__ = [
    "answer_form",
    "filler_tasks",
    "fingerprint",
    "ladder_step",
    "near_identical",
    "noisy_score",
    "parse_overrides",
    "rounded",
    "set_policy",
]


_NOT_WORD = re.compile(r"[\W_]+")


def answer_form(text: str) -> str:
    """An answer as the probe detector and the release noise compare it: case, spaces and punctuation
    dropped. Scorers read ``A``, ``a``, ``(A)`` and `` A.`` alike; hashed as written, each was a new answer,
    so rewriting every answer hid a one-answer probe from the detector and drew the noise afresh."""
    return _NOT_WORD.sub("", text.casefold())


def fingerprint(answers: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Per task, an 8-hex-digit hash of each answer's form (``answer_form``) by id: enough to compare
    submissions, useless as answers."""
    return {
        task: {sid: hashlib.sha256(answer_form(text).encode()).hexdigest()[:8] for sid, text in given.items()}
        for task, given in answers.items()
    }


def near_identical(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]], *, max_diff: int) -> bool:
    """Same tasks and ids, differing somewhere, and in at most ``max_diff`` answers of each task (a probe
    changes a few at a time; counted per task, since one sample changed in each of six tasks reads six
    task scores at once: a total of 3 let such a probe through)."""
    if a.keys() != b.keys() or any(a[t].keys() != b[t].keys() for t in a):
        return False
    diffs = [sum(a[t][i] != b[t][i] for i in a[t]) for t in a]
    return any(diffs) and max(diffs) <= max_diff


FILLER_MIN_SAMPLES = 10
"""Tasks smaller than this are never called filled (a few equal answers are no sign)."""


def filler_tasks(fingerprint: dict[str, dict[str, str]], *, share: float) -> list[str]:
    """Tasks where one answer stands for at least ``share`` of the samples: a prober fills the samples it
    does not probe with one (wrong) answer; a model answering a task's questions rarely repeats itself so."""
    out = []
    for task, answers in fingerprint.items():
        if share <= 1 and len(answers) >= FILLER_MIN_SAMPLES:
            most = Counter(answers.values()).most_common(1)[0][1]
            if most >= share * len(answers):
                out.append(task)
    return sorted(out)


def noisy_score(score: float, *, n: int, key: bytes, answers: dict[str, str], scale: float) -> float:
    """``score`` plus Gaussian noise of ``scale`` x 0.5/sqrt(n), drawn from an HMAC of the task's answers.

    The draw is a function of the answers and the server's secret: resubmitting the same answers (from any
    account) shows the same number, and answers one sample apart get independent draws, so a differential
    probe of one sample (a 1/n step) is buried under noise of 0.5/sqrt(n) and needs hundreds of uploads.
    """
    if scale <= 0 or n <= 0:
        return score
    digest = hmac.new(key, json.dumps(sorted(answers.items())).encode(), hashlib.sha256).digest()
    u1 = (int.from_bytes(digest[:8], "big") + 1) / (2**64 + 1)
    u2 = int.from_bytes(digest[8:16], "big") / 2**64
    z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)  # Box-Muller
    return min(1.0, max(0.0, score + scale * 0.5 / math.sqrt(n) * z))


def ladder_step(score: float, best: float | None, *, step: float) -> float:
    """The Ladder (Blum & Hardt, ICML 2015) for a higher-is-better score: a submitter sees a new score only
    when it beats the best they were shown by ``step``, and then rounded down to a multiple of ``step``;
    otherwise they see that best again. Returns what to show (and remember as the new best)."""
    if step <= 0:
        return score
    if best is None or score >= best + step:
        return math.floor(score / step) * step
    return best


def rounded(value: Any, *, digits: int) -> Any:
    """Every float in ``value`` (nested) rounded to ``digits`` places; other values as they are."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits=digits) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, digits=digits) for v in value]
    return value


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as typed policy overrides; an unknown key or a bad value is a ``ValueError``."""
    types = {f.name: f.type for f in dataclasses.fields(Policy)}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or key not in types:
            raise BenchmarkError(f"--set {pair!r}: KEY=VALUE with KEY one of {', '.join(types)}")
        if key == "duplicate_uploads":
            if text not in DUPLICATE_MODES:
                raise BenchmarkError(f"--set {pair!r}: one of {', '.join(DUPLICATE_MODES)}")
            out[key] = text
        elif types[key] in (bool, "bool"):
            if text.lower() not in ("true", "false"):
                raise BenchmarkError(f"--set {pair!r}: true or false")
            out[key] = text.lower() == "true"
        else:
            number, what = (float, "a number") if types[key] in (float, "float") else (int, "a whole number")
            try:
                out[key] = number(text)
            except ValueError:
                raise BenchmarkError(f"--set {pair!r}: {what}") from None
            if not out[key] >= 0:  # NaN too
                raise BenchmarkError(f"--set {pair!r}: not negative")
    return out


def set_policy(session: Any, name: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Merge ``overrides`` into benchmark ``name``'s stored policy; returns the stored overrides."""
    row = session.scalar(select(Benchmark).where(Benchmark.name == name))
    if row is None:
        raise BenchmarkError(f"no benchmark {name!r}")
    row.policy = {**(row.policy or {}), **overrides}
    return dict(row.policy)
