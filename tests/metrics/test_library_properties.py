"""Property: no library metric leaves [0, 1] or raises, whatever the model writes."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omnieval.metrics import metrics
from omnieval.types import ScoringInput

TARGETS: dict[str, tuple[object, ...]] = {
    "exact_match": ("Москва", "42"),
    "contains": ("Москва",),
    "numeric_match": ("3,5", 7),
    "token_f1": ("столица России — Москва",),
    "rouge_l": ("мама мыла раму",),
    "bleu": ("кошка сидит на коврике",),
    "chrf": ("кошка сидит на коврике",),
    "wer": ("кот сидит на ковре",),
    "mc_strict_accuracy": ("B",),
    "mc_lenient_accuracy": ("B",),
    "format_compliance": ("B",),
}
CHOICES = ("Москва", "Париж", "Лондон", "Рим")
# Text biased towards the shapes parsers look for: letters of both scripts, digits, markers, LaTeX.
ALPHABET = st.sampled_from(
    [
        *list("ABCDabcdАБВГДЕЁабвгдеё0123456789 .,:;%-−/\\{}()[]*\n\t$^"),
        "ОТВЕТ:",
        "Answer:",
        "\\frac{1}{2}",
        "\\boxed{",
        "1 000",
    ]
)
TEXTS = st.one_of(st.text(max_size=200), st.lists(ALPHABET, max_size=60).map("".join))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(response=TEXTS, prediction=st.one_of(st.none(), TEXTS, st.floats(allow_nan=True), st.integers()))
def test_every_library_metric_stays_in_unit_interval(response: str, prediction: object) -> None:
    for name, targets in TARGETS.items():
        inp = ScoringInput(response=response, prediction=prediction, targets=targets, choices=CHOICES)
        value = metrics.get(name).fn(inp)
        values = value.values() if isinstance(value, dict) else [value]
        for v in values:
            assert isinstance(v, float) and not math.isnan(v), (name, v)
            assert 0.0 <= v <= 1.0, (name, response, v)
