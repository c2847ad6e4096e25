"""An adaptive, colluding attacker against the platform's score release: how many hidden answers can it
recover within a day's caps?

The benchmark is ``--tasks`` tasks of ``--n`` multiple-choice samples (``--options`` choices, random hidden
answers). The attacker controls ``--accounts`` accounts, each on its own network (so per-network limits and
the probe detector's "related accounts" never join them), each allowed ``--cap`` uploads a day (the daily
cap). Every upload answers every sample (full uploads: ``require_complete`` scores it), and sees what the
platform shows a submitter: per task, ``publication.released_results``'s score (the release noise of
``Policy.score_noise`` drawn by ``policy.noisy_score`` from the answers' fingerprint and the server's key,
then rounded to ``score_digits``). Two strategies, each given the whole budget:

* ``differential``: adaptive queries one answer apart (a base, then the base with one sample changed to
  each other option): exact on an exact oracle, fooled by noise. Each query differs from the base in one
  place of each task; every query comes from a fresh account and network, the attacker's best case, which
  the probe detector's cross-account rule still flags (``--detector`` models it: a flagged upload shows
  nothing).
* ``split``: split search by regression: each upload answers every sample at random; afterwards each
  sample's answer is the option whose uploads scored highest on average (noise only slows it down).

Printed: per strategy and policy, the answers recovered (accuracy against chance), per upload and per
account. Usage: ``python benchmarks/oracle_attack.py [--tasks 6] [--n 40] [--accounts 10] [--cap 10]
[--noise 0 1 2] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from omnieval.platform.services.policy import fingerprint, ladder_step, near_identical, noisy_score
from omnieval.platform.settings import Policy

Oracle = Callable[[list[list[str]]], list[float] | None]
"""Per task the score shown for a full upload; None when the probe detector flagged it (nothing shown)."""


@dataclass(frozen=True, kw_only=True)
class Outcome:
    strategy: str
    noise: float
    ladder: float
    detector: bool
    uploads: int
    accounts: int
    recovered: int
    samples: int
    chance: float

    @property
    def accuracy(self) -> float:
        return self.recovered / self.samples


def _by_task(answers: list[list[str]]) -> dict[str, dict[str, str]]:
    return {f"t{t}": {str(i): a for i, a in enumerate(row)} for t, row in enumerate(answers)}


def flagged(
    answers: list[list[str]], account: int, recent: list[tuple[int, list[list[str]]]], policy: Policy
) -> bool:
    """The server's probe detector (``jobs._probe_flag``) on an attacker whose accounts are each on their
    own network: near-identical to ``probe_min_matches`` of the same account's uploads, or to any one of
    the last ``probe_cross_lookback`` uploads of other accounts (``recent``: oldest first)."""

    def near(other: list[list[str]]) -> bool:
        return near_identical(_by_task(answers), _by_task(other), max_diff=policy.probe_max_diff)

    own = [f for a, f in recent if a == account][-100:]
    if sum(map(near, own)) >= policy.probe_min_matches:
        return True
    if policy.probe_cross_lookback <= 0 or sum(map(len, answers)) < policy.probe_cross_min_answers:
        return False
    others = [f for a, f in recent if a != account][-policy.probe_cross_lookback :]
    return any(map(near, others))


def platform_oracle(
    truth: list[list[str]],
    *,
    noise: float,
    ladder: float,
    digits: int,
    key: bytes,
    cap: int,
    detector: Policy | None = None,
) -> Oracle:
    """What the platform shows a submitter for a full upload: per task, the released score (noisy, then
    through the account's ladder, rounded); with ``detector``, nothing for an upload its probe detector
    flags. Uploads are spread over accounts ``cap`` at a time."""
    uploads = 0
    best: dict[tuple[int, int], float | None] = {}
    recent: list[tuple[int, list[list[str]]]] = []

    def shown(answers: list[list[str]]) -> list[float] | None:
        nonlocal uploads
        account, uploads = uploads // cap, uploads + 1
        held = detector is not None and flagged(answers, account, recent, detector)
        recent.append((account, answers))  # a flagged upload's fingerprint is stored and compared too
        if held:
            return None
        out = []
        for t, (given, hidden) in enumerate(zip(answers, truth, strict=True)):
            exact = sum(a == h for a, h in zip(given, hidden, strict=True)) / len(hidden)
            prints = fingerprint({"t": {str(i): a for i, a in enumerate(given)}})["t"]
            score = noisy_score(exact, n=len(hidden), key=key + str(t).encode(), answers=prints, scale=noise)
            previous = best.get((account, t))
            score = ladder_step(score, previous, step=ladder * 0.5 / len(hidden) ** 0.5)
            best[(account, t)] = score
            out.append(round(score, digits))
        return out

    return shown


def differential(
    oracle: Oracle, *, tasks: int, n: int, options: list[str], budget: int, rng: random.Random
) -> list[list[str]]:
    """Base upload, then one sample at a time changed to each other option; a rise marks the answer."""
    base = [[rng.choice(options) for _ in range(n)] for _ in range(tasks)]
    base_score = oracle(base)
    assert base_score is not None, "a first upload is never near-identical to an earlier one"
    guess = [row[:] for row in base]
    best = [[base_score[t]] * n for t in range(tasks)]
    used = 1
    for i in range(n):
        for o in options:
            if used >= budget:
                return guess
            if all(base[t][i] == o for t in range(tasks)):
                continue
            probe = [row[:] for row in base]
            for t in range(tasks):
                probe[t][i] = o
            scores = oracle(probe)
            used += 1
            if scores is None:  # flagged: nothing learnt
                continue
            for t in range(tasks):
                if base[t][i] != o and scores[t] > best[t][i]:
                    best[t][i], guess[t][i] = scores[t], o
    return guess


def split(
    oracle: Oracle, *, tasks: int, n: int, options: list[str], budget: int, rng: random.Random
) -> list[list[str]]:
    """Random full uploads, then per sample the option whose uploads scored highest on average."""
    totals = [[dict.fromkeys(options, 0.0) for _ in range(n)] for _ in range(tasks)]
    counts = [[dict.fromkeys(options, 0) for _ in range(n)] for _ in range(tasks)]
    for _ in range(budget):
        answers = [[rng.choice(options) for _ in range(n)] for _ in range(tasks)]
        for t, score in enumerate(oracle(answers) or []):
            for i, a in enumerate(answers[t]):
                totals[t][i][a] += score
                counts[t][i][a] += 1
    return [
        [max(options, key=lambda o: totals[t][i][o] / max(counts[t][i][o], 1)) for i in range(n)]
        for t in range(tasks)
    ]


STRATEGIES = {"differential": differential, "split": split}


def honest_cost(
    *, n: int, noise: float, ladder: float, gain_se: float, uploads: int = 10, seed: int = 0
) -> dict[str, float]:
    """An honest user on one task of ``n`` samples whose every upload truly improves by ``gain_se``
    worst-case standard errors (0.5/sqrt(n)), from 0.4: the mean distance between the shown and the true
    score, and the share of the real improvements that the release hides."""
    rng, key = random.Random(seed), secrets.token_bytes(32)
    se, true, best = 0.5 / n**0.5, 0.4, None
    gaps, hidden, before = [], 0, None
    for _ in range(uploads):
        prints = {str(i): f"{rng.random():.12f}" for i in range(n)}  # new answers each time
        score = noisy_score(true, n=n, key=key, answers=prints, scale=noise)
        best = ladder_step(score, best, step=ladder * se)
        gaps.append(abs(best - true))
        hidden += before is not None and best <= before
        before, true = best, min(1.0, true + gain_se * se)
    return {"mean_gap": sum(gaps) / len(gaps), "hidden": hidden / (uploads - 1)}


def attack(
    strategy: str,
    *,
    tasks: int,
    n: int,
    options: int,
    accounts: int,
    cap: int,
    noise: float,
    ladder: float,
    detector: bool = False,
    digits: int = 3,
    seed: int = 0,
) -> Outcome:
    rng = random.Random(seed)
    letters = [chr(ord("A") + k) for k in range(options)]
    truth = [[rng.choice(letters) for _ in range(n)] for _ in range(tasks)]
    key, policy = rng.randbytes(32), Policy() if detector else None
    oracle = platform_oracle(
        truth, noise=noise, ladder=ladder, digits=digits, key=key, cap=cap, detector=policy
    )
    budget = accounts * cap
    guess = STRATEGIES[strategy](oracle, tasks=tasks, n=n, options=letters, budget=budget, rng=rng)
    recovered = sum(g == h for gt, ht in zip(guess, truth, strict=True) for g, h in zip(gt, ht, strict=True))
    return Outcome(
        strategy=strategy,
        noise=noise,
        ladder=ladder,
        detector=detector,
        uploads=budget,
        accounts=accounts,
        recovered=recovered,
        samples=tasks * n,
        chance=1 / options,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--options", type=int, default=4)
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--cap", type=int, default=10)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--ladder", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--default-policy", action="store_true", help="only the default policy, as JSON")
    parser.add_argument(
        "--detector", action="store_true", help="model the server's probe detector (default Policy) too"
    )
    args = parser.parse_args()

    def runs(strategy: str, noise: float, ladder: float, detector: bool | None = None) -> list[Outcome]:
        detector = args.detector if detector is None else detector
        return [
            attack(strategy, tasks=args.tasks, n=args.n, options=args.options, accounts=args.accounts,
                   cap=args.cap, noise=noise, ladder=ladder, detector=detector, seed=seed)
            for seed in range(args.seeds)
        ]  # fmt: skip

    def mean_accuracy(outcomes: list[Outcome]) -> float:
        return sum(o.accuracy for o in outcomes) / len(outcomes)

    if args.default_policy:  # the server's default release policy only, one JSON line (the test reads it)
        policy = Policy()
        means = {s: mean_accuracy(runs(s, policy.score_noise, policy.score_ladder)) for s in STRATEGIES}
        exact = mean_accuracy(runs("split", 0.0, 0.0))  # the same attacker on exact scores: it works
        # the differential attacker on exact scores against the probe detector alone
        detected = mean_accuracy(runs("differential", 0.0, 0.0, detector=True))
        print(
            json.dumps(
                means
                | {"exact_split": exact, "exact_differential_detected": detected, "chance": 1 / args.options}
            )
        )
        return
    print("honest user, 10 uploads each truly better by G standard errors (0.5/sqrt(n)):")
    print("    n  noise  ladder  G    mean |shown - true|  improvements hidden")
    for n in (40, 1000):
        for noise in args.noise:
            for ladder in args.ladder:
                for gain in (1.0, 3.0):
                    costs = [
                        honest_cost(n=n, noise=noise, ladder=ladder, gain_se=gain, seed=s) for s in range(20)
                    ]
                    gap = sum(c["mean_gap"] for c in costs) / len(costs)
                    hid = sum(c["hidden"] for c in costs) / len(costs)
                    print(f"{n:5d}  {noise:5.1f}  {ladder:6.1f}  {gain:3.0f}  {gap:19.4f}  {hid:19.2f}")
    print(f"{args.tasks} tasks x {args.n} samples, {args.options} options;", end=" ")
    print(
        f"{args.accounts} accounts x {args.cap} uploads{'; the probe detector on' if args.detector else ''}"
    )
    print("strategy      noise  ladder  recovered/samples  accuracy  chance  per upload  per account")
    for strategy in STRATEGIES:
        for noise in args.noise:
            for ladder in args.ladder:
                outcomes = runs(strategy, noise, ladder)
                rec = sum(r.recovered for r in outcomes) / len(outcomes)
                o = outcomes[0]
                above = rec - o.chance * o.samples  # answers recovered beyond guessing
                print(
                    f"{strategy:12s}  {noise:5.1f}  {ladder:6.1f}  {rec:7.1f}/{o.samples:<8d}"
                    f"  {rec / o.samples:8.3f}  {o.chance:6.3f}  {above / o.uploads:10.3f}"
                    f"  {above / o.accounts:11.2f}"
                )


if __name__ == "__main__":
    main()
