"""The score oracle: partial answers score nothing, daily caps and registration limits bound the uploads,
scores are rounded, and near-identical probes from related accounts reach the reviewers' queue."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.mera.catalog import catalogue
from tests.platform.conftest import (
    TASKS,
    answers_of,
    make_settings,
    register,
    submission_zip,
    token,
    upload,
    wait_status,
)


def _partial_zip(root: Path, picks: dict[str, dict[str, str]]) -> bytes:
    """A MERA zip answering only the given ids of each task."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, given in picks.items():
            items = [{"outputs": text, "meta": {"id": int(sid)}} for sid, text in given.items()]
            zf.writestr(
                f"{catalogue().by_name()[name].submission}.json", json.dumps({"data": {"test": items}})
            )
    return buf.getvalue()


@pytest.fixture
def app(data_dir: Path) -> Any:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = make_settings(data_dir, upload_limit=(1000, 60.0))
    with TestClient(create_app(settings)) as client:
        yield client


def _attack(client: Any, root: Path, *, accounts: int) -> tuple[set[tuple[str, str]], int, list[int]]:
    """The audit's attack: one answer per task per upload (right or wrong), from several fresh accounts.

    Returns the (task, id) pairs whose answer the scores confirmed, how many answers were tried, and the
    status codes of the refused uploads."""
    truth = {name: sorted(answers_of(root, name).items(), key=lambda kv: int(kv[0])) for name in TASKS}
    confirmed: set[tuple[str, str]] = set()
    tried, refused, k = 0, [], 0
    for a in range(accounts):
        headers = register(client, f"prober{a}")
        while True:
            right = k % 2 == 0  # half the guesses are the hidden answer, half are not
            picks = {
                n: {truth[n][k % len(truth[n])][0]: truth[n][k % len(truth[n])][1] if right else "zz"}
                for n in TASKS
            }
            r = upload(client, headers, _partial_zip(root, picks))
            if r.status_code != 202:
                refused.append(r.status_code)
                break
            tried += len(TASKS)
            body = wait_status(client, headers, r.json()["id"])
            for name, given in picks.items():
                score = (body["results"].get("tasks") or {}).get(name, {}).get("score")
                if score:  # a positive task score from one answer: that answer is the hidden one
                    confirmed |= {(name, sid) for sid in given}
            k += 1
    return confirmed, tried, refused


def test_the_oracle_attack_recovers_nothing(app: Any, mera_root: Path) -> None:
    confirmed, tried, refused = _attack(app, mera_root, accounts=3)
    assert confirmed == set()  # no better than guessing: the scores said nothing about any answer
    from omnieval.platform.settings import Policy

    # the three accounts share one client network: its daily cap stops them all (each alone may upload 10)
    cap = Policy().network_daily_cap
    assert cap < 3 * Policy().daily_cap
    assert tried == cap * len(TASKS) and refused == [429, 429, 429]


def test_a_partly_answered_task_is_not_attempted(app: Any, mera_root: Path) -> None:
    alice = register(app, "alice")
    truth = answers_of(mera_root, "ruclevr")
    picks = {"ruclevr": dict(list(truth.items())[:5]), "ruslun": answers_of(mera_root, "ruslun")}
    body = wait_status(app, alice, upload(app, alice, _partial_zip(mera_root, picks)).json()["id"])
    assert body["status"] == "scored"
    assert set(body["results"]["tasks"]) == {"ruslun"} and body["results"]["not_attempted"] == ["ruclevr"]


def test_scores_shown_are_rounded_and_never_per_sample(app: Any, mera_root: Path) -> None:
    alice = register(app, "alice")
    body = wait_status(
        app, alice, upload(app, alice, submission_zip(mera_root, right={"ruclevr": 1})).json()["id"]
    )
    block = body["results"]["tasks"]["ruclevr"]
    assert block["score"] == 0.167  # 1 of 6, at the documented 3 decimals
    assert "records" not in body["results"] and "samples" not in json.dumps(body)


def test_registration_is_limited_per_client(data_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    with TestClient(create_app(make_settings(data_dir, register_limit=(3, 3600.0)))) as client:
        codes = [
            client.post(
                "/api/v1/auth/register", json={"username": f"u{i}xx", "password": "password-x"}
            ).status_code
            for i in range(5)
        ]
    assert codes == [201, 201, 201, 429, 429]


def test_approval_mode_keeps_new_accounts_out_until_approved(data_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services.accounts import approve_user

    with TestClient(create_app(make_settings(data_dir, registration="approval"))) as client:
        assert (
            client.post(
                "/api/v1/auth/register", json={"username": "bob", "password": "password-bob"}
            ).status_code
            == 201
        )
        r = client.post("/api/v1/auth/token", json={"username": "bob", "password": "password-bob"})
        assert r.status_code == 403 and "approval" in r.json()["detail"]
        with client.app.state.db.session() as session:
            approve_user(session, username="bob")
        token(client, "bob")


def test_near_identical_probes_from_related_accounts_are_flagged(app: Any, mera_root: Path) -> None:
    truth = {n: answers_of(mera_root, n) for n in ("ruclevr", "ruslun")}
    flips = [None, *sorted(truth["ruclevr"])[:3]]
    ids = []
    for i, flip in enumerate(flips):  # four accounts from one client, each changing one ruclevr answer
        headers = register(app, f"acct{i}")
        picks = {
            n: {sid: ("zz" if (n, sid) == ("ruclevr", flip) else text) for sid, text in given.items()}
            for n, given in truth.items()
        }
        ids.append(
            wait_status(app, headers, upload(app, headers, _partial_zip(mera_root, picks)).json()["id"])["id"]
        )
    queue = app.get("/api/v1/reviews", headers=token(app, "reviewer")).json()["submissions"]
    flagged = {s["id"]: s["flag"] for s in queue}
    assert set(flagged) == set(ids[2:])  # the third and fourth have two or more near-identical predecessors
    assert "near-identical" in flagged[ids[3]] and "4 related account(s)" in flagged[ids[3]]
    # a flagged submission's scores are not shown to its submitter, nor to a reviewer (never published)
    mine = app.get(f"/api/v1/submissions/{ids[3]}", headers=token(app, "acct3")).json()
    assert mine["status"] == "scored" and mine["results"] == {} and "flagged" in mine["held"]
    assert all(s["results"] == {} for s in queue)
    reviewer = token(app, "reviewer")
    assert app.get(f"/api/v1/reviews/{ids[3]}/logs", headers=reviewer).status_code == 404
    assert app.get(f"/api/v1/submissions/{ids[3]}", headers=reviewer).status_code == 404
    unflagged = app.get(f"/api/v1/submissions/{ids[0]}", headers=token(app, "acct0")).json()
    assert unflagged["results"]["tasks"] and unflagged["held"] is None


def test_daily_cap_is_per_benchmark_policy(app: Any, mera_root: Path) -> None:
    from omnieval.platform.services.policy import set_policy

    with app.app.state.db.session() as session:
        set_policy(session, "mera", {"daily_cap": 2})
    alice = register(app, "alice")
    data = submission_zip(mera_root, right={"ruclevr": 6})
    codes = [upload(app, alice, data).status_code for _ in range(3)]
    assert codes == [202, 202, 429]


def test_accounts_on_one_network_share_its_daily_cap(data_dir: Path, mera_root: Path) -> None:
    """Fresh accounts are cheap (10 an hour per network): the network's cap counts all its accounts'
    uploads, and another /24 keeps its own; ``set-policy`` takes the float release keys too."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services.policy import parse_overrides, set_policy

    overrides = parse_overrides(["network_daily_cap=3", "score_noise=2.5", "score_ladder=0"])
    assert overrides == {"network_daily_cap": 3, "score_noise": 2.5, "score_ladder": 0.0}
    app = create_app(make_settings(data_dir))
    with app.state.db.session() as session:
        set_policy(session, "mera", overrides)
    data = submission_zip(mera_root, right={"ruclevr": 6})
    with TestClient(app, client=("10.1.1.5", 5000)) as here:
        near = TestClient(app, client=("10.1.1.77", 5000))  # the same /24
        far = TestClient(app, client=("10.1.2.5", 5000))
        order = (here, near, here, near, far)
        codes = [upload(c, register(c, f"user{k}"), data) for k, c in enumerate(order)]
    assert [r.status_code for r in codes] == [202, 202, 202, 429, 202], [r.text for r in codes]
    assert "daily limit of your network" in codes[3].json()["detail"]


def test_near_identical_answers_from_unrelated_networks_are_flagged(data_dir: Path, mera_root: Path) -> None:
    """Colluding accounts on different /24s: the second's answers, two samples from the first's, are
    flagged and not scored back; a third account whose answers are far from both is not. (12 answers: the
    comparison's floor lowered from the default 100, under which the related-accounts test's second upload,
    one answer from another account's 12, stays unflagged.)"""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.settings import Policy

    policy = Policy(score_noise=0.0, score_ladder=0.0, probe_cross_min_answers=12)
    app = create_app(make_settings(data_dir, policy=policy))
    with TestClient(app, client=("10.1.1.5", 5000)) as first:
        second = TestClient(app, client=("10.2.2.5", 5000))
        third = TestClient(app, client=("172.16.3.5", 5000))
        ids = []
        for client, name, right in (
            (first, "alpha", {"ruclevr": 6, "ruslun": 6}),
            (second, "bravo", {"ruclevr": 4, "ruslun": 6}),  # two answers apart from alpha's
            (third, "charlie", {"ruclevr": 0, "ruslun": 0}),  # 10 and 12 apart
        ):
            headers = register(client, name)
            sub = upload(client, headers, submission_zip(mera_root, right=right)).json()["id"]
            ids.append(wait_status(client, headers, sub))
        queue = first.get("/api/v1/reviews", headers=token(first, "reviewer")).json()["submissions"]
    flagged = {s["id"]: s["flag"] for s in queue}
    alpha, bravo, charlie = ids
    assert set(flagged) == {bravo["id"]}
    assert f"({alpha['id']})" in flagged[bravo["id"]] and "1 other account(s)" in flagged[bravo["id"]]
    assert bravo["results"] == {} and "flagged" in bravo["held"]
    assert alpha["results"]["tasks"] and charlie["results"]["tasks"] and charlie["held"] is None


def test_near_identical_counts_differences_per_task() -> None:
    """A probe changing one sample in each of six tasks (six differences) is near-identical: it reads six
    task scores at once; four changes in one task are not, nor are identical answers."""
    from omnieval.platform.services.policy import near_identical

    base = {f"t{t}": {str(i): "A" for i in range(40)} for t in range(6)}
    one_each = {t: given | {"0": "B"} for t, given in base.items()}
    four_in_one = base | {"t0": base["t0"] | {str(i): "C" for i in range(4)}}
    assert near_identical(one_each, base, max_diff=3)
    assert not near_identical(four_in_one, base, max_diff=3)
    assert not near_identical(base, base, max_diff=3)
