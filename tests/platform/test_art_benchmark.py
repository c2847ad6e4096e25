"""A generated ART set as a platform benchmark: pack, upload, score on hidden answers, publish, board."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import make_settings, register, token, upload, wait_status


@pytest.fixture
def art_platform(tmp_path: Path) -> Any:
    if shutil.which("espeak-ng") is None:
        pytest.skip("ART speech needs espeak-ng")
    from fastapi.testclient import TestClient

    from omnieval.benchmarks.art.generator import generate_art
    from omnieval.platform.app import create_app
    from omnieval.platform.services.benchmarks import add_benchmark
    from omnieval.platform.storage.db import Database

    art = tmp_path / "art"
    generate_art(art, n=4, seed=2, workers=1)
    settings = make_settings(tmp_path / "data")
    db = Database(settings)
    with db.session() as session:
        add_benchmark(session, settings, name="art", tasks_spec=f"art:{art}")
    db.dispose()
    from omnieval.platform.services.accounts import create_user

    db = Database(settings)
    with db.session() as session:
        create_user(session, username="reviewer", password="password-reviewer", role="reviewer", panel=None)
    db.dispose()
    with TestClient(create_app(settings)) as client:
        client.art = art  # type: ignore[attr-defined]
        yield client


def test_art_set_scored_published_and_on_the_audio_board(art_platform: Any, tmp_path: Path) -> None:
    art = art_platform.art
    run = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "run",
            "--tasks",
            f"art:{art}?tasks=AA",
            "--model",
            "baseline/oracle",
            "--output",
            str(run),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "omnieval",
            "pack",
            str(run),
            "--format",
            "art",
            "--output",
            str(tmp_path / "sub.zip"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    alice = register(art_platform, "alice")
    r = upload(art_platform, alice, (tmp_path / "sub.zip").read_bytes(), model="oracle", benchmark="art")
    assert r.status_code == 202, r.text
    body = wait_status(art_platform, alice, r.json()["id"])
    tasks = body["results"]["tasks"]
    assert set(tasks) == {"art.AA"} and tasks["art.AA"]["score"] == 1.0
    assert "Yes" not in json.dumps(body)  # the hidden answers (Yes/No) never come back
    assert (
        art_platform.post(
            f"/api/v1/submissions/{r.json()['id']}/publish",
            headers=alice,
            json={"boards": ["audio"], "model_info": {}},
        ).status_code
        == 202
    )
    assert (
        art_platform.post(
            f"/api/v1/reviews/{r.json()['id']}",
            headers=token(art_platform, "reviewer"),
            json={"decision": "approve", "comment": "ok"},
        ).status_code
        == 200
    )
    row = art_platform.get("/api/v1/boards/art/audio").json()["rows"][0]
    assert row["model"] == "oracle" and row["attempted"] == 1.0
    assert abs(row["total"] - 1 / 9) < 1e-9 and abs(row["coverage"] - 1 / 9) < 1e-9  # 1 of ART's 9 tasks


def test_art_archive_with_a_bad_line_is_refused(art_platform: Any, tmp_path: Path) -> None:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("art.AA.jsonl", '{"sample_id": "AA-00001", "response": "Yes"}\nnot json\n')
    alice = register(art_platform, "alice")
    r = upload(art_platform, alice, buf.getvalue(), benchmark="art")
    assert r.status_code in (400, 422) and "line 2" in r.text
