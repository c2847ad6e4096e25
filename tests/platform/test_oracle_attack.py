"""The attacker of ``benchmarks/oracle_attack.py`` against the default release policy (scaled down), and the
release policy through the API: noise fixed by the answers, the ladder, nothing exact before approval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.platform.conftest import ENGLISH, make_settings, register, submission_zip, upload, wait_status

ROOT = Path(__file__).resolve().parents[2]


def test_the_adaptive_attacker_recovers_no_more_than_chance_plus_10_points_under_the_default_policy() -> None:
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "oracle_attack.py"),
        "--default-policy",
        *("--tasks", "4", "--n", "40", "--accounts", "10", "--cap", "10", "--seeds", "3"),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["exact_split"] > got["chance"] + 0.3, got  # the attacker works on exact scores
    assert got["split"] <= got["chance"] + 0.10, got
    assert got["differential"] <= got["chance"] + 0.10, got
    # the probe detector alone (exact scores, one sample changed per task from other accounts' uploads)
    assert got["exact_differential_detected"] <= got["chance"] + 0.10, got


def test_scores_before_approval_are_released_through_noise_and_the_ladder(
    data_dir: Path, mera_root: Path
) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.settings import Policy

    settings = make_settings(data_dir, policy=Policy())  # the server's default release policy
    with TestClient(create_app(settings), headers=ENGLISH) as client:
        headers = register(client, "honest")
        shown = []
        for right in (3, 4, 3):
            r = upload(client, headers, submission_zip(mera_root, right={"ruclevr": 6, "ruslun": right}))
            shown.append(wait_status(client, headers, r.json()["id"])["results"])
        again = client.get(f"/api/v1/submissions/{r.json()['id']}", headers=headers).json()["results"]
    first = shown[0]["tasks"]["ruslun"]
    assert set(first) <= {"score", "n", "n_scored", "ids", "version", "score_metric"}  # no metrics, no ci95
    assert "breakdowns" not in shown[0] and shown[0]["release"] == {"noise_se": 1.5, "ladder_se": 3.0}
    # the ladder: step 3 x 0.5/sqrt(6) = 0.61; every shown score is a step multiple, never falls, and the
    # third upload (the first's answers again: the same noisy score) cannot beat the best shown so far
    step = 3 * 0.5 / 6**0.5
    scores = [s["tasks"]["ruslun"]["score"] for s in shown]
    assert all(abs(x - round(x / step) * step) < 1e-3 for x in scores), scores
    assert scores[0] <= scores[1] == scores[2], scores
    assert again == shown[2]  # the same submission always shows the same numbers
