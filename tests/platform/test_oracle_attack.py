"""The attacker of ``benchmarks/oracle_attack.py`` against the default release policy (scaled down), and the
release policy through the API: noise fixed by the answers, the ladder, nothing exact before approval."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from tests.platform.conftest import ENGLISH, make_settings, register, submission_zip, upload, wait_status

ROOT = Path(__file__).resolve().parents[2]


def _attacker() -> Any:
    spec = importlib.util.spec_from_file_location("oracle_attack", ROOT / "benchmarks" / "oracle_attack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["oracle_attack"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_adaptive_attacker_over_http_recovers_no_more_than_chance_plus_10_points(tmp_path: Path) -> None:
    """``benchmarks/oracle_attack.py``'s strategies through the real routes (register, token, upload, read),
    each account from its own /24, on a small benchmark with random hidden answers and a fixed server key:
    with the defences off split search recovers answers well beyond chance; under the default policy it
    gets no more than chance + 10 points."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services.benchmarks import add_benchmark
    from omnieval.platform.services.policy import set_policy
    from omnieval.platform.settings import Policy
    from omnieval.platform.storage.db import Database

    oa = _attacker()
    bench = oa.Benchmark.make(tmp_path / "mera", tasks=3, n=40, seed=0)
    settings = make_settings(tmp_path / "data", policy=Policy())  # the server's default release policy
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "secret.key").write_text("a fixed key: the noise is the same every run")
    db = Database(settings)
    with db.session() as session:
        for name in ("mera", "exact"):
            add_benchmark(session, settings, name=name, tasks_spec=f"mera:{bench.root}")
        no_defence = {"score_noise": 0.0, "score_ladder": 0.0, "probe_min_matches": 10**6}
        set_policy(session, "exact", no_defence)  # exact scores, no probe detector
    db.dispose()
    app = create_app(settings)
    with TestClient(app):  # the lifespan: the scoring worker
        clients = [
            oa.Client(TestClient(app, client=(oa.network_address(k, 9), 50000)), f"attacker{k}")
            for k in range(9)
        ]
        for c in clients:
            c.login()

        def run(strategy: str, benchmark: str) -> Any:
            rng = random.Random(0)
            return oa.attack_through(strategy, clients, bench, budget=30, rng=rng, benchmark=benchmark)

        exact = run("split", "exact")
        assert exact.accuracy >= exact.chance + 0.2, exact  # the oracle is real: undefended scores leak
        got = run("split", "mera")  # the strongest strategy (the script measures the others)
        assert got.uploads == 30 and got.accuracy <= got.chance + 0.10, got


def test_scores_before_approval_are_released_through_noise_and_the_ladder(
    data_dir: Path, mera_root: Path
) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.settings import Policy

    # the server's default release policy, on a 6-sample task (the default shows none below 30 samples)
    settings = make_settings(data_dir, policy=Policy(release_min_samples=0))
    with TestClient(create_app(settings), headers=ENGLISH) as client:
        headers = register(client, "honest")
        shown = []
        for right in (3, 4, 3):
            r = upload(client, headers, submission_zip(mera_root, right={"ruclevr": 6, "ruslun": right}))
            shown.append(wait_status(client, headers, r.json()["id"])["results"])
        again = client.get(f"/api/v1/submissions/{r.json()['id']}", headers=headers).json()["results"]
    first = shown[0]["tasks"]["ruslun"]
    assert set(first) <= {"score", "n", "n_scored", "ids", "version", "score_metric"}  # no metrics, no ci95
    assert "breakdowns" not in shown[0] and shown[0]["release"] == {"noise_se": 1.5, "ladder_se": 4.0}
    # the ladder: step 4 x 0.5/sqrt(6) = 0.82; every shown score is a step multiple, never falls, and the
    # third upload (the first's answers again: the same noisy score) cannot beat the best shown so far
    step = 4 * 0.5 / 6**0.5
    scores = [s["tasks"]["ruslun"]["score"] for s in shown]
    assert all(abs(x - round(x / step) * step) < 1e-3 for x in scores), scores
    assert scores[0] <= scores[1] == scores[2], scores
    assert again == shown[2]  # the same submission always shows the same numbers


def test_the_ladder_is_shared_by_the_accounts_of_one_network(data_dir: Path, mera_root: Path) -> None:
    """A fresh account on the network of an account already shown a high score sees no score for a lower
    one (it would be one more reading for a Sybil); the same answers from another /24 are shown."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.settings import Policy

    app = create_app(make_settings(data_dir, policy=Policy(score_noise=0.0, release_min_samples=0)))
    good, poor = (submission_zip(mera_root, right={"ruclevr": k}) for k in (6, 1))
    shown = []
    with TestClient(app, client=("10.1.1.5", 5000)) as first:
        same = TestClient(app, client=("10.1.1.6", 5000))
        other = TestClient(app, client=("10.9.9.5", 5000))
        for client, name, data in ((first, "first", good), (same, "same", poor), (other, "other", poor)):
            headers = register(client, name)
            body = wait_status(client, headers, upload(client, headers, data).json()["id"])
            shown.append(body["results"]["tasks"]["ruclevr"]["score"])
    step = 4 * 0.5 / 6**0.5  # the ladder's step on 6 samples (no noise): 1.0 shows as one step, 1/6 as 0
    assert shown == [round(step, 3), None, 0.0], shown


def test_new_scores_stop_at_the_benchmark_s_daily_release_budget(data_dir: Path, mera_root: Path) -> None:
    """Networks are cheap, so each network's first reading is bounded for the benchmark as a whole: past the
    budget of the last 24 hours a fresh account on a fresh network sees no score (nothing is lost: it comes
    with approval), and an account with an earlier reading sees that one again."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.settings import Policy

    policy = Policy(score_noise=0.0, release_min_samples=0, release_daily_budget=2)
    app = create_app(make_settings(data_dir, policy=policy))
    poor, good = (submission_zip(mera_root, right={"ruclevr": k}) for k in (1, 6))
    shown = []
    with TestClient(app, client=("10.1.1.5", 5000)) as first:
        clients = [first, *(TestClient(app, client=(f"10.{k}.1.5", 5000)) for k in (2, 3))]
        accounts = [register(client, f"user{k}") for k, client in enumerate(clients)]
        for client, headers, data in zip(clients, accounts, (good, good, good), strict=True):
            body = wait_status(client, headers, upload(client, headers, data).json()["id"])
            shown.append(body["results"]["tasks"]["ruclevr"]["score"])
        client, headers = clients[0], accounts[0]  # within its network's ladder, past the budget
        body = wait_status(client, headers, upload(client, headers, poor).json()["id"])
        shown.append(body["results"]["tasks"]["ruclevr"]["score"])
    step = round(4 * 0.5 / 6**0.5, 3)  # the ladder's step on 6 samples (no noise): 1.0 shows as one step
    assert shown == [step, step, None, step], shown
