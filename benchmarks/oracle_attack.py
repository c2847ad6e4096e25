"""An adaptive, colluding attacker against the platform's score release: how many hidden answers can it
recover within a day's caps?

The benchmark is ``--tasks`` tasks of ``--n`` four-option multiple-choice samples with random hidden answers.
The attacker controls ``--accounts`` accounts on ``--networks`` /24 networks (account ``k`` on network
``k % networks``), each account allowed ``--cap`` uploads a day and each network ``Policy.network_daily_cap``
(a day's budget is the smaller total); upload ``j`` of an attack goes to account ``j % accounts`` (so the
first ``accounts`` uploads are each a fresh account's first). Every upload answers every sample (full
uploads) and sees what the platform shows its submitter: per task, the released score (noise fixed by the
answers' forms and the server's key, the ladder its network shares, rounding; nothing before the ladder
released one to the account), or nothing at all when the probe detector held the upload.

Two ways to ask the platform:

* in-process (default): the release functions of ``omnieval.platform.services.policy`` applied as the
  server applies them (fast; many seeds);
* ``--http``: a real ``omnieval serve`` started on SQLite in a temporary data dir (the default policy, open
  registration), a miniature MERA benchmark with random hidden answers added with ``omnieval platform
  add-benchmark``, and every account registered, logged in, uploading and reading its submissions through
  the real routes, each from its own loopback network (127.N.M.1: a /24 per account; ``--networks`` puts
  several accounts on one /24, within the registration limit of 10 per network and hour).

Strategies, each given the whole budget (``accounts x cap`` uploads):

* ``differential``: a base, then the base with one sample (in every task at once) changed to each other
  option; a rise marks the answer. Each probe is one answer per task away from the base, which the probe
  detector flags across accounts.
* ``reformat``: the same differential probes, but every probe writes every answer in a fresh textual form
  the scorer reads alike (``a``, ``(A)``, ``A.``, `` A``), so no two uploads share an answer's text: the
  detector sees no near-identical uploads, and the release noise, seeded by the answers' text, is drawn
  afresh for each probe; each option of a sample is measured ``--repeats`` times and averaged.
* ``split``: split search by regression: each upload answers every sample at random; afterwards each
  sample's answer is the option whose uploads scored highest on average (noise only slows it down).

Printed: per strategy and policy, the answers recovered (accuracy against chance), per upload and per
account beyond chance. Usage: ``python benchmarks/oracle_attack.py [--http] [--tasks 6] [--n 40]
[--accounts 10] [--cap 10] [--seeds 5]``; ``--default-policy`` prints one JSON line (the test reads it).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.platform.services.policy import fingerprint, ladder_step, near_identical, noisy_score
from omnieval.platform.settings import Policy

Answers = list[list[str]]
"""Per task, the answer text of each sample (in the benchmark's sample order)."""
Shown = list[float | None] | None
"""Per task the score shown for a full upload (None before the ladder released any to the account); None
when the probe detector held the upload (nothing shown)."""
Oracle = Callable[[list[Answers]], list[Shown]]
"""A batch of uploads (the attack's next ones, in order) and what each showed."""

LETTERS = ["A", "B", "C", "D"]
MC_TASKS = ("aquaria", "ruenvaqa", "runaturalsciencevqa", "schoolsciencevqa", "rutie_audio", "rutie_image")
"""MERA's four-option multiple-choice tasks without video (the miniature's media are generated)."""
FORMS = ("{}", "{l}", " {}", "{}.", "({})", "{l}.", "{})", " {l} ")
"""Ways of writing one option that the multiple-choice scorer reads alike (checked by the ``--http`` run:
the exact-score attack recovers every answer through them)."""


def written(letter: str, form: int) -> str:
    return FORMS[form % len(FORMS)].format(letter, l=letter.lower())


def letter_of(text: str) -> str:
    return text.strip().strip("().").upper()


@dataclass(frozen=True, kw_only=True)
class Outcome:
    strategy: str
    noise: float
    ladder: float
    uploads: int
    accounts: int
    recovered: int
    samples: int
    chance: float
    held: int = 0

    @property
    def accuracy(self) -> float:
        return self.recovered / self.samples

    @property
    def beyond_chance(self) -> float:
        return self.recovered - self.chance * self.samples


def _by_task(answers: Answers) -> dict[str, dict[str, str]]:
    return {f"t{t}": {str(i): a for i, a in enumerate(row)} for t, row in enumerate(answers)}


def flagged(answers: Answers, network: int, recent: list[tuple[int, Answers]], policy: Policy) -> bool:
    """The server's probe detector (``jobs._probe_flag``): filler answers; near-identical to
    ``probe_min_matches`` uploads of related accounts (here: on the same network), or to any one of the last
    ``probe_cross_lookback`` uploads of other networks (``recent``: oldest first). Answers are compared
    through the server's ``fingerprint``, as the server stores them."""
    from omnieval.platform.services.policy import filler_tasks

    mine = fingerprint(_by_task(answers))
    if filler_tasks(mine, share=policy.filler_share):
        return True

    def near(other: Answers) -> bool:
        return near_identical(mine, fingerprint(_by_task(other)), max_diff=policy.probe_max_diff)

    own = [f for a, f in recent if a == network][-100:]
    if sum(map(near, own)) >= policy.probe_min_matches:
        return True
    if policy.probe_cross_lookback <= 0 or sum(map(len, answers)) < policy.probe_cross_min_answers:
        return False
    others = [f for a, f in recent if a != network][-policy.probe_cross_lookback :]
    return any(map(near, others))


def platform_oracle(
    truth: Answers,
    *,
    noise: float,
    ladder: float,
    digits: int,
    key: bytes,
    accounts: int,
    networks: int,
    detector: bool,
) -> Oracle:
    """What the platform shows a submitter for a full upload (``publication.released_results``): per task,
    the noisy score through the ladder its network shares (a new score only when it beats the network's
    best released so far; otherwise the account's own best, or nothing), rounded; nothing for an upload
    the probe detector holds. Account ``k`` is on network ``k % networks``."""
    uploads = released_uploads = 0
    group: dict[tuple[int, int], float | None] = {}
    own: dict[tuple[int, int], float | None] = {}
    recent: list[tuple[int, Answers]] = []
    policy = Policy()

    def one(answers: Answers) -> Shown:
        nonlocal uploads, released_uploads
        account, uploads = uploads % accounts, uploads + 1
        network = account % networks
        held = detector and flagged(answers, network, recent, policy)
        recent.append((network, answers))  # a held upload's fingerprint is stored and compared too
        if held:
            return None
        budget = policy.release_daily_budget  # one day's uploads: the benchmark's budget of new readings
        off = noise <= 0 and ladder <= 0  # the release policy off: exact scores, no budget
        within, released_uploads = off or not budget or released_uploads < budget, released_uploads + 1
        out = []
        for t, (given, hidden) in enumerate(zip(answers, truth, strict=True)):
            exact = sum(letter_of(a) == h for a, h in zip(given, hidden, strict=True)) / len(hidden)
            prints = fingerprint({"t": {str(i): a for i, a in enumerate(given)}})["t"]
            score = noisy_score(exact, n=len(hidden), key=key + str(t).encode(), answers=prints, scale=noise)
            step = ladder * 0.5 / len(hidden) ** 0.5
            if not within:
                pass  # beyond the budget: the account's own best again
            elif step <= 0:
                own[(account, t)] = score
            elif (released := ladder_step(score, group.get((network, t)), step=step)) != group.get(
                (network, t)
            ):
                group[(network, t)] = own[(account, t)] = released
            shown = own.get((account, t))
            out.append(None if shown is None else round(shown, digits))
        return out

    return lambda batch: [one(a) for a in batch]


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _spend(oracle: Oracle, batch: list[Answers], budget: list[int]) -> list[Shown]:
    """Ask for as much of ``batch`` as the remaining budget allows."""
    batch = batch[: budget[0]]
    budget[0] -= len(batch)
    return oracle(batch) if batch else []


def differential(
    oracle: Oracle, *, tasks: int, n: int, budget: int, rng: random.Random, reformat: bool = False
) -> Answers:
    """Base upload(s), then one sample at a time (in every task at once) changed to each other option; the
    option whose probes scored highest over the base marks the answer. With ``reformat`` every probe is
    written afresh (no text repeats) and each base and probe is measured ``repeats`` times."""
    left = [budget]
    base = [[rng.choice(LETTERS) for _ in range(n)] for _ in range(tasks)]
    form = iter(range(10**9))

    def text(answers: Answers) -> Answers:
        if not reformat:
            return answers
        forms = random.Random(next(form))  # a random form per answer: two probes share few answers' text
        return [[written(a, forms.randrange(len(FORMS))) for a in row] for row in answers]

    probes = [(i, o) for i in range(n) for o in LETTERS if any(base[t][i] != o for t in range(tasks))]
    repeats = max(1, budget // (len(probes) + 1)) if reformat else 1
    base_shown = [s for s in _spend(oracle, [text(base) for _ in range(repeats)], left) if s is not None]
    if not base_shown:
        return base
    base_mean = [_mean([s[t] for s in base_shown]) for t in range(tasks)]
    gain = [[dict.fromkeys(LETTERS, 0.0) for _ in range(n)] for _ in range(tasks)]
    for i, o in probes:
        probe = [row[:] for row in base]
        for t in range(tasks):
            probe[t][i] = o
        shown = [s for s in _spend(oracle, [text(probe) for _ in range(repeats)], left) if s is not None]
        for t in range(tasks):
            mean = _mean([s[t] for s in shown])
            if mean is not None and base_mean[t] is not None and base[t][i] != o:
                gain[t][i][o] = mean - base_mean[t]
    guess = [row[:] for row in base]
    for t in range(tasks):
        for i in range(n):
            o = max(LETTERS, key=lambda o: gain[t][i][o])
            if gain[t][i][o] > 0:
                guess[t][i] = o
    return guess


def split(oracle: Oracle, *, tasks: int, n: int, budget: int, rng: random.Random) -> Answers:
    """Random full uploads, then per sample the option whose uploads scored highest on average."""
    batch = [[[rng.choice(LETTERS) for _ in range(n)] for _ in range(tasks)] for _ in range(budget)]
    totals = [[dict.fromkeys(LETTERS, 0.0) for _ in range(n)] for _ in range(tasks)]
    counts = [[dict.fromkeys(LETTERS, 0) for _ in range(n)] for _ in range(tasks)]
    for answers, shown in zip(batch, oracle(batch), strict=True):
        for t, score in enumerate(shown or []):
            if score is None:
                continue
            for i, a in enumerate(answers[t]):
                totals[t][i][a] += score
                counts[t][i][a] += 1
    return [
        [max(LETTERS, key=lambda o: totals[t][i][o] / max(counts[t][i][o], 1)) for i in range(n)]
        for t in range(tasks)
    ]


STRATEGIES: dict[str, Callable[..., Answers]] = {
    "differential": differential,
    "reformat": lambda oracle, **kw: differential(oracle, reformat=True, **kw),
    "split": split,
}


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


def _outcome(strategy: str, guess: Answers, truth: Answers, **fields: Any) -> Outcome:
    recovered = sum(g == h for gt, ht in zip(guess, truth, strict=True) for g, h in zip(gt, ht, strict=True))
    samples = sum(map(len, truth))
    return Outcome(strategy=strategy, recovered=recovered, samples=samples, chance=1 / len(LETTERS), **fields)


def day_budget(*, accounts: int, cap: int, networks: int) -> int:
    """A day's uploads: every account's daily cap, within every network's (``Policy.network_daily_cap``)."""
    per_network = Policy().network_daily_cap or accounts * cap
    return min(accounts * cap, networks * per_network)


def attack(
    strategy: str,
    *,
    tasks: int,
    n: int,
    accounts: int,
    cap: int,
    noise: float,
    ladder: float,
    networks: int = 0,
    detector: bool = True,
    digits: int = 3,
    seed: int = 0,
) -> Outcome:
    """One in-process attack: random hidden answers, a random server key, the strategy's whole budget."""
    rng = random.Random(seed)
    truth = [[rng.choice(LETTERS) for _ in range(n)] for _ in range(tasks)]
    oracle = platform_oracle(
        truth, noise=noise, ladder=ladder, digits=digits, key=rng.randbytes(32), accounts=accounts,
        networks=networks or accounts, detector=detector,
    )  # fmt: skip
    budget = day_budget(accounts=accounts, cap=cap, networks=networks or accounts)
    guess = STRATEGIES[strategy](oracle, tasks=tasks, n=n, budget=budget, rng=rng)
    return _outcome(strategy, guess, truth, noise=noise, ladder=ladder, uploads=budget, accounts=accounts)


# ---------------------------------------------------------------------------------------------- over HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def network_address(account: int, networks: int) -> str:
    """Account ``account``'s loopback source address: network ``account % networks`` is 127.N.M.0/24."""
    net, host = account % networks, account // networks
    return f"127.{1 + net // 250}.{net % 250}.{2 + host}"


def mera_zip(task_files: list[str], ids: list[list[str]], answers: Answers) -> bytes:
    """A MERA submission answering every sample (and an empty ``logs_public.zip``)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, task_ids, row in zip(task_files, ids, answers, strict=True):
            items = [{"outputs": a, "meta": {"id": int(i)}} for i, a in zip(task_ids, row, strict=True)]
            zf.writestr(f"{name}.json", json.dumps({"data": {"test": items}}, ensure_ascii=False))
        logs = io.BytesIO()
        with zipfile.ZipFile(logs, "w") as inner:
            inner.writestr("00_run/results.json", "{}")
        zf.writestr("logs_public.zip", logs.getvalue())
    return buf.getvalue()


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    """A miniature MERA benchmark with random hidden answers, as the attacker and the judge see it."""

    root: Path
    names: list[str]
    """Task names in the order of ``Answers`` rows."""
    files: list[str]
    ids: list[list[str]]
    truth: Answers

    @classmethod
    def make(cls, root: Path, *, tasks: int, n: int, seed: int) -> Benchmark:
        from omnieval.benchmarks.mera.catalog import catalogue
        from omnieval.benchmarks.mera.mini import hidden_answers, make_mini

        names = list(MC_TASKS[:tasks])
        if len(names) < tasks:
            raise SystemExit(f"--http: at most {len(MC_TASKS)} tasks")
        make_mini(root, n=n, with_answers=True, tasks=names, seed=seed)
        by_name = catalogue().by_name()
        hidden = [hidden_answers(root, by_name[t]) for t in names]
        ids = [sorted(h, key=int) for h in hidden]
        return cls(
            root=root,
            names=names,
            files=[by_name[t].submission for t in names],
            ids=ids,
            truth=[[h[i] for i in task_ids] for h, task_ids in zip(hidden, ids, strict=True)],
        )


class Client:
    """One attacker account: registered and logged in through the API from its own source address."""

    def __init__(self, http: Any, username: str) -> None:
        self.http, self.username, self.headers = http, username, {}

    def login(self) -> None:
        credentials = {"username": self.username, "password": f"pw-{self.username}-x"}
        r = self.http.post("/api/v1/auth/register", json=credentials)
        assert r.status_code == 201, r.text
        r = self.http.post("/api/v1/auth/token", json=credentials)
        assert r.status_code == 200, r.text
        self.headers = {"Authorization": f"Bearer {r.json()['token']}"}

    def upload(self, data: bytes, *, benchmark: str, timeout: float = 120.0) -> dict[str, Any]:
        """Upload, then read the submission until it is scored (what its submitter sees)."""
        r = self.http.post(
            "/api/v1/submissions",
            headers=self.headers,
            data={"benchmark": benchmark, "model": "m"},
            files={"file": ("submission.zip", data, "application/zip")},
        )
        assert r.status_code == 202, r.text
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body: dict[str, Any] = self.http.get(
                f"/api/v1/submissions/{r.json()['id']}", headers=self.headers
            ).json()
            if body["status"] in ("scored", "failed"):
                assert body["status"] == "scored", body
                return body
            time.sleep(0.05)
        raise TimeoutError(f"submission {r.json()['id']} not scored within {timeout} s")


def http_oracle(
    bench: Benchmark, clients: list[Client], *, benchmark: str = "mera", parallel: int = 4
) -> tuple[Oracle, list[int]]:
    """The platform through its API: upload ``j`` goes to ``clients[j % len(clients)]``; what its page shows
    per task (None when held). Also returns a one-item list counting held uploads."""
    uploads, held = [0], [0]

    def one(job: tuple[int, Answers]) -> Shown:
        j, answers = job
        data = mera_zip(bench.files, bench.ids, answers)
        body = clients[j % len(clients)].upload(data, benchmark=benchmark)
        if body["held"]:
            held[0] += 1
            return None
        tasks = body["results"]["tasks"]
        return [tasks[name]["score"] for name in bench.names]

    def oracle(batch: list[Answers]) -> list[Shown]:
        jobs = list(enumerate(batch, start=uploads[0]))
        uploads[0] += len(batch)
        if len(jobs) == 1 or parallel <= 1:
            return [one(job) for job in jobs]
        out: dict[int, Shown] = {}
        for start in range(0, len(jobs), parallel):  # one upload per account at a time
            wave = jobs[start : start + parallel]
            with ThreadPoolExecutor(len(wave)) as pool:
                out |= dict(zip([j for j, _ in wave], pool.map(one, wave), strict=True))
        return [out[j] for j, _ in jobs]

    return oracle, held


@contextmanager
def served(data_dir: Path, bench: Benchmark, *, policy: Policy | None = None) -> Iterator[str]:
    """``omnieval serve`` on SQLite in ``data_dir`` with ``bench`` added (its default policy unless
    ``policy`` overrides the release: ``omnieval platform set-policy``); yields the base URL."""
    env = {**os.environ}
    omnieval = [sys.executable, "-m", "omnieval"]
    run = {"env": env, "check": True, "capture_output": True, "timeout": 300}
    data = ["--data-dir", str(data_dir)]
    subprocess.run([*omnieval, "platform", "add-benchmark", *data, "--name", "mera",
                    "--tasks", f"mera:{bench.root}"], **run)  # fmt: skip
    if policy is not None:
        pairs = [f"score_noise={policy.score_noise:g}", f"score_ladder={policy.score_ladder:g}"]
        subprocess.run([*omnieval, "platform", "set-policy", *data, "--name", "mera",
                        *(x for p in pairs for x in ("--set", p))], **run)  # fmt: skip
    port = _free_port()
    log = (data_dir / "server.log").open("wb")
    server = subprocess.Popen(
        [*omnieval, "serve", *data, "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server exited: {(data_dir / 'server.log').read_text()[-2000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("the server never listened")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def http_clients(url: str, accounts: int, networks: int, tag: str) -> list[Client]:
    """``accounts`` httpx clients, each bound to its account's loopback source address."""
    import httpx

    clients = []
    for k in range(accounts):
        transport = httpx.HTTPTransport(local_address=network_address(k, networks))
        http = httpx.Client(base_url=url, transport=transport, timeout=60.0)
        clients.append(Client(http, f"{tag}{k}"))
    for c in clients:
        c.login()
    return clients


def attack_over_http(
    strategy: str,
    *,
    tasks: int,
    n: int,
    accounts: int,
    networks: int,
    cap: int,
    seed: int,
    policy: Policy | None = None,
) -> Outcome:
    """One attack on a fresh server (new data dir, new key, new random answers)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="oracle-attack-") as tmp:
        bench = Benchmark.make(Path(tmp) / "mera", tasks=tasks, n=n, seed=seed)
        with served(Path(tmp) / "data", bench, policy=policy) as url:
            clients = http_clients(url, accounts, networks, tag=f"{strategy[:3]}{seed}x")
            budget = day_budget(accounts=accounts, cap=cap, networks=networks)
            outcome = attack_through(strategy, clients, bench, budget=budget, rng=rng, policy=policy)
            for c in clients:
                c.http.close()
    return outcome


def attack_through(
    strategy: str,
    clients: list[Client],
    bench: Benchmark,
    *,
    budget: int,
    rng: random.Random,
    policy: Policy | None = None,
    benchmark: str = "mera",
) -> Outcome:
    """``strategy`` through the API with logged-in ``clients`` (any HTTP client: a real connection, or a
    test client bound to an address); ``policy`` names the release the benchmark runs (for the report)."""
    oracle, held = http_oracle(bench, clients, benchmark=benchmark)
    tasks, n = len(bench.truth), len(bench.truth[0])
    guess = STRATEGIES[strategy](oracle, tasks=tasks, n=n, budget=budget, rng=rng)
    release = policy or Policy()
    return _outcome(
        strategy, guess, bench.truth, noise=release.score_noise, ladder=release.score_ladder,
        uploads=budget, accounts=len(clients), held=held[0],
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------- report


def _line(outcomes: list[Outcome]) -> str:
    o = outcomes[0]
    rec = sum(r.recovered for r in outcomes) / len(outcomes)
    above = sum(r.beyond_chance for r in outcomes) / len(outcomes)
    held = sum(r.held for r in outcomes) / len(outcomes)
    return (
        f"{o.strategy:12s}  {o.noise:5.1f}  {o.ladder:6.1f}  {rec:7.1f}/{o.samples:<8d}"
        f"  {rec / o.samples:8.3f}  {o.chance:6.3f}  {rec / o.samples - o.chance:+7.3f}"
        f"  {above / o.uploads:10.3f}  {above / o.accounts:11.2f}  {held:5.1f}"
    )


HEADER = (
    "strategy      noise  ladder  recovered/samples  accuracy  chance   margin  per upload  per account"
    "   held"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--networks", type=int, default=0, help="/24 networks (0: one per account)")
    parser.add_argument("--cap", type=int, default=10)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 1.5])
    parser.add_argument("--ladder", type=float, nargs="+", default=[0.0, 3.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds run from this one on")
    parser.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    parser.add_argument("--http", action="store_true", help="attack a real `omnieval serve` over HTTP")
    parser.add_argument("--default-policy", action="store_true", help="only the default policy, as JSON")
    parser.add_argument("--no-honest", action="store_true", help="skip the honest users' cost table")
    args = parser.parse_args()
    networks = args.networks or args.accounts

    def runs(strategy: str, noise: float, ladder: float) -> list[Outcome]:
        if args.http:
            policy = Policy(score_noise=noise, score_ladder=ladder)
            return [
                attack_over_http(strategy, tasks=args.tasks, n=args.n, accounts=args.accounts,
                                 networks=networks, cap=args.cap, seed=seed, policy=policy)
                for seed in range(args.first_seed, args.first_seed + args.seeds)
            ]  # fmt: skip
        return [
            attack(strategy, tasks=args.tasks, n=args.n, accounts=args.accounts, cap=args.cap,
                   noise=noise, ladder=ladder, networks=networks, seed=seed)
            for seed in range(args.first_seed, args.first_seed + args.seeds)
        ]  # fmt: skip

    def mean_accuracy(outcomes: list[Outcome]) -> float:
        return sum(o.accuracy for o in outcomes) / len(outcomes)

    if args.default_policy:  # the server's default release policy only, one JSON line (the test reads it)
        policy = Policy()
        means = {s: mean_accuracy(runs(s, policy.score_noise, policy.score_ladder)) for s in args.strategies}
        exact = {f"exact_{s}": mean_accuracy(runs(s, 0.0, 0.0)) for s in args.strategies}
        print(json.dumps(means | exact | {"chance": 1 / len(LETTERS)}))
        return
    if not args.no_honest:
        print("honest user, 10 uploads each truly better by G standard errors (0.5/sqrt(n)):")
        print("    n  noise  ladder  G    mean |shown - true|  improvements hidden")
        for n in (40, 1000):
            for noise in args.noise:
                for ladder in args.ladder:
                    for gain in (1.0, 3.0):
                        costs = [
                            honest_cost(n=n, noise=noise, ladder=ladder, gain_se=gain, seed=s)
                            for s in range(20)
                        ]
                        gap = sum(c["mean_gap"] for c in costs) / len(costs)
                        hid = sum(c["hidden"] for c in costs) / len(costs)
                        print(f"{n:5d}  {noise:5.1f}  {ladder:6.1f}  {gain:3.0f}  {gap:19.4f}  {hid:19.2f}")
    where = f"{'over HTTP' if args.http else 'in process'}, {networks} /24 networks"
    print(f"{args.tasks} tasks x {args.n} samples, 4 options; {args.accounts} accounts x {args.cap} uploads;",
          f"{where}; {args.seeds} seeds; the probe detector on")  # fmt: skip
    print(HEADER)
    for strategy in args.strategies:
        for noise in args.noise:
            for ladder in args.ladder:
                print(_line(runs(strategy, noise, ladder)), flush=True)


if __name__ == "__main__":
    main()
