"""MERA EM against the released scorer's own pieces (issue 19 §1).

MERA_MULTIMODAL's ``custom_metrics.py`` scores with ``transformers.data.metrics.squad_metrics.compute_exact``.
transformers 5 no longer ships that module, so the test reads the function's own source from the
transformers 4.57.1 wheel that ``make install`` downloads into ``<venv>/reference/`` (never installed) and
runs it with its two unrelated imports (a tokenizer class and a logger) stubbed. The marker half is the
paper's §3.3 rule over the released split: the best of the whole answer and ``answer.split("ОТВЕТ")[-1]``.
"""

from __future__ import annotations

import logging
import random
import sys
import types
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from omnieval.benchmarks.mera.em import mera_exact, squad_normalize

WHEEL = Path(sys.prefix) / "reference" / "transformers-4.57.1-py3-none-any.whl"
MODULE = "transformers/data/metrics/squad_metrics.py"
STUBBED = {
    "from ...models.bert import BasicTokenizer": "BasicTokenizer = None",
    "from ...utils import logging": "logging = _logging",
}


def _released() -> dict[str, Callable[..., object]]:
    assert WHEEL.is_file(), f"{WHEEL} is missing: `make install` downloads it (the reference compute_exact)"
    with zipfile.ZipFile(WHEEL) as wheel:
        source = wheel.read(MODULE).decode()
    for line, stub in STUBBED.items():
        assert line in source, f"{MODULE} changed: {line!r} not found"
        source = source.replace(line, stub)
    stub_logging = types.SimpleNamespace(get_logger=logging.getLogger)
    namespace: dict[str, object] = {"__name__": "squad_metrics_reference", "_logging": stub_logging}
    exec(compile(source, f"{WHEEL.name}/{MODULE}", "exec"), namespace)  # the released function, unchanged
    return {"compute_exact": namespace["compute_exact"], "normalize_answer": namespace["normalize_answer"]}  # type: ignore[dict-item]


RELEASED = _released()

WORDS = [
    "a",
    "an",
    "the",
    "The",
    "A",
    "B",
    "да",
    "Нет",
    "кот",
    "Ёж",
    "ёлка",
    "Санкт-Петербург",
    "x_the",
    "theme",
    "42",
    "3.14",
    "é",
    "Über",
    "ａ",
    "Б",
    "В",
]
GLUE = [
    " ",
    "  ",
    "\t",
    "\n",
    ",",
    ".",
    "!",
    "?",
    "-",
    "—",
    "–",
    "«",
    "»",
    "…",
    ":",
    ";",
    "'",
    '"',
    "(",
    ")",
    "_",
    "*",
    "`",
    "$",
    "\u00a0",
    "\u200b",
]


def _phrase(rng: random.Random) -> str:
    return "".join(rng.choice(WORDS) + rng.choice(GLUE) for _ in range(rng.randint(0, 4))).strip(" ")


def _variant(text: str, rng: random.Random) -> str:
    """A spelling of ``text`` that often normalises the same: case, punctuation, articles, spacing."""
    out = text.upper() if rng.random() < 0.3 else text.lower() if rng.random() < 0.3 else text
    if rng.random() < 0.4:
        out = f"{rng.choice(GLUE)}{out}{rng.choice(GLUE)}"
    if rng.random() < 0.3:
        out = f"{rng.choice(['the ', 'A ', 'an ', 'The  '])}{out}"
    return out


def _pairs(n: int) -> list[tuple[str, str]]:
    rng = random.Random(19)
    pairs = []
    for _ in range(n):
        gold = _phrase(rng)
        pairs.append((gold, _variant(gold, rng) if rng.random() < 0.7 else _phrase(rng)))
    return pairs


PAIRS = _pairs(400)


def test_normalisation_equals_the_released_normalize_answer() -> None:
    texts = [t for pair in PAIRS for t in pair]
    assert [squad_normalize(t) for t in texts] == [RELEASED["normalize_answer"](t) for t in texts]


def test_em_equals_the_released_compute_exact_on_generated_strings() -> None:
    ours = [mera_exact(pred, [gold], strict=False) for gold, pred in PAIRS]
    theirs = [float(RELEASED["compute_exact"](gold, pred)) for gold, pred in PAIRS]  # type: ignore[arg-type]
    assert ours == theirs
    assert 0.2 < sum(theirs) / len(theirs) < 0.8  # both outcomes are well represented


def _released_em(gold: str, answer: str) -> float:
    """The paper's rule over the released pieces, spelt directly: best of whole answer and split tail."""
    candidates = [answer.strip()] + ([answer.split("ОТВЕТ")[-1].strip()] if "ОТВЕТ" in answer else [])
    return float(max(RELEASED["compute_exact"](gold, c) for c in candidates))  # type: ignore[type-var]


# (gold, answer, MERA's released scorer, the fixed variant) — issue 19's table, in docs/benchmarks/mera.md
ISSUE_CASES = [
    ("да", "Ответ: да", 0.0, 1.0),
    ("B", "ANSWER: B", 0.0, 1.0),
    ("B", "ОТВЕТ — B", 0.0, 1.0),
    ("B", "ОТВЕТ: «B»", 0.0, 1.0),
    ("B", "ОТВЕТB", 1.0, 0.0),
]


@pytest.mark.parametrize(("gold", "answer", "parity", "fixed"), ISSUE_CASES)
def test_marker_cases_parity_and_fixed(gold: str, answer: str, parity: float, fixed: float) -> None:
    assert _released_em(gold, answer) == parity  # the released pieces say so
    assert mera_exact(answer, [gold], strict=False) == parity
    assert mera_exact(answer, [gold], strict=True) == fixed


def test_marker_rule_equals_the_released_pieces_on_generated_answers() -> None:
    rng = random.Random(3)
    markers = ["ОТВЕТ", "ОТВЕТ:", "Ответ:", "ответ", "ANSWER:", "ОТВЕТЫ", "ОТВЕТ —"]
    cases = []
    for gold, pred in PAIRS[:200]:
        head = _phrase(rng)
        cases.append((gold, f"{head} {rng.choice(markers)}{rng.choice(['', ' '])}{pred}"))
    assert [mera_exact(a, [g], strict=False) for g, a in cases] == [_released_em(g, a) for g, a in cases]
