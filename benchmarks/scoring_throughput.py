"""Scoring throughput of the generic metric library.

Scores N (default 100,000) synthetic samples, a third each of exact-match (MERA ANSWER rule),
multiple-choice (strict + lenient accuracy + format compliance) and numeric scoring, through the
registered metric functions, and checks the whole pass takes at most 5 s. Then times every library
metric on 1,000 samples and lists the slowest.

Usage: .venv/bin/python benchmarks/scoring_throughput.py [--n 100000] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from omnieval.metrics import metrics
from omnieval.types import ScoringInput

BUDGET_S = 5.0
CITIES = ("Москва", "Санкт-Петербург", "Казань", "Новосибирск", "Ёшкар-Ола", "Владивосток")
CHOICES = ("Суворов", "Кутузов", "Багратион", "Барклай-де-Толли")


def _em_input(rng: random.Random) -> ScoringInput:
    gold = rng.choice(CITIES)
    said = rng.choice(CITIES)
    shape = rng.choice(
        ("{a}", "ОТВЕТ: {a}", "Думаю, что это {a}. Ответ: {a}!", "  {a}.  ", "Рассуждаю долго... {a}")
    )
    return ScoringInput(response=shape.format(a=said), targets=(gold,))


def _mc_input(rng: random.Random) -> ScoringInput:
    gold = rng.choice("ABCD")
    said = rng.choice("ABCDВС")
    shape = rng.choice(
        ("{a}", "{a}.", "Ответ: {a}", "({a}) вариант", "The answer is **{a}**", "Думаю, Кутузов")
    )
    return ScoringInput(response=shape.format(a=said), targets=(gold,), choices=CHOICES)


def _num_input(rng: random.Random) -> ScoringInput:
    value = rng.choice((3.5, 1000000, 0.25, 12, -7.5))
    shape = rng.choice(("Ответ: {v}", "v = 2 м/с, значит {v} м/с", "\\boxed{{{v}}}", "{v}", "не знаю"))
    said = str(value).replace(".", ",") if rng.random() < 0.5 else str(value)
    return ScoringInput(response=shape.format(v=said), targets=(str(value),))


KINDS: dict[
    str, tuple[Callable[[random.Random], ScoringInput], tuple[tuple[str, dict[str, object]], ...]]
] = {
    "exact": (_em_input, (("exact_match", {"answer_marker": True}),)),
    "mc": (_mc_input, (("mc_strict_accuracy", {}), ("mc_lenient_accuracy", {}), ("format_compliance", {}))),
    "numeric": (_num_input, (("numeric_match", {}),)),
}


def _fn(name: str) -> Callable[..., object]:
    return metrics.get(name).fn


def main_pass(n: int, seed: int) -> float:
    """Score ``n`` samples spread over the three kinds; return seconds spent inside metrics."""
    rng = random.Random(seed)
    per_kind = n // len(KINDS)
    total = 0.0
    for kind, (make, metric_list) in KINDS.items():
        inputs = [make(rng) for _ in range(per_kind)]
        bound = [(_fn(name), opts) for name, opts in metric_list]
        for fn, opts in bound:  # warm caches (punctuation table, regex compile, lazy imports)
            fn(inputs[0], **opts)
        started = time.perf_counter()
        for inp in inputs:
            for fn, opts in bound:
                fn(inp, **opts)
        spent = time.perf_counter() - started
        total += spent
        print(f"  {kind:8s} {per_kind:>7,} samples  {spent:6.2f} s  {per_kind / spent:>10,.0f} samples/s")
    return total


def per_metric(seed: int, n: int = 1000) -> list[tuple[str, float]]:
    """Milliseconds per 1,000 samples for every library metric."""
    rng = random.Random(seed)
    text_inputs = [_em_input(rng) for _ in range(n)]
    mc_inputs = [_mc_input(rng) for _ in range(n)]
    num_inputs = [_num_input(rng) for _ in range(n)]
    plan = {
        "exact_match": text_inputs,
        "contains": text_inputs,
        "token_f1": text_inputs,
        "rouge_l": text_inputs,
        "bleu": text_inputs,
        "chrf": text_inputs,
        "wer": text_inputs,
        "numeric_match": num_inputs,
        "mc_strict_accuracy": mc_inputs,
        "mc_lenient_accuracy": mc_inputs,
        "format_compliance": mc_inputs,
    }
    timings = []
    for name, inputs in plan.items():
        fn = _fn(name)
        fn(inputs[0])
        started = time.perf_counter()
        for inp in inputs:
            fn(inp)
        timings.append((name, (time.perf_counter() - started) * 1000 * 1000 / n))
    return sorted(timings, key=lambda t: -t[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"scoring {args.n:,} samples (exact / MC / numeric, a third each):")
    total = main_pass(args.n, args.seed)
    verdict = "OK" if total <= BUDGET_S else "OVER BUDGET"
    print(f"total {total:.2f} s, {args.n / total:,.0f} samples/s, budget {BUDGET_S:.0f} s: {verdict}")
    print("ms per 1,000 samples, slowest first:")
    for name, ms in per_metric(args.seed):
        print(f"  {name:20s} {ms:8.1f}")


if __name__ == "__main__":
    main()
