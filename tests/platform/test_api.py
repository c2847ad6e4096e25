"""The fixed REST interface end to end: register, token, upload, scored results, publish, review, boards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, token, upload, wait_status


def test_submission_is_scored_on_hidden_answers(platform: Any, mera_root: Path) -> None:
    alice = register(platform, "alice")
    r = upload(
        platform, alice, submission_zip(mera_root, right={"ruclevr": 3, "ruslun": 6}), model="alice-vlm"
    )
    assert r.status_code == 202 and set(r.json()) == {"id"}
    body = wait_status(platform, alice, r.json()["id"])
    assert body["status"] == "scored" and body["id"] == r.json()["id"]
    tasks = body["results"]["tasks"]
    assert set(tasks) == {"ruclevr", "ruslun"}  # unanswered tasks are not attempted
    assert abs(tasks["ruclevr"]["score"] - 0.5) < 1e-9  # 3 of 6 right (EM)
    assert tasks["ruslun"]["states"]["ok"] == 6 and tasks["ruclevr"]["ids"] == {
        "answered": 6,
        "missing": 0,
        "unknown": 0,
    }


def test_missing_ids_count_as_errors_not_dropped(platform: Any, mera_root: Path) -> None:
    import io
    import json
    import zipfile

    from omnieval.platform.services.policy import set_policy

    with platform.app.state.db.session() as session:  # the default policy leaves a partial task not attempted
        set_policy(session, "mera", {"require_complete": False})
    alice = register(platform, "alice")
    data = submission_zip(mera_root, right={"ruclevr": 6})
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        doc = json.loads(zf.read("ruCLEVR.json"))
    doc["data"]["test"] = doc["data"]["test"][:4]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ruCLEVR.json", json.dumps(doc, ensure_ascii=False))
    body = wait_status(platform, alice, upload(platform, alice, buf.getvalue()).json()["id"])
    block = body["results"]["tasks"]["ruclevr"]
    assert block["ids"]["missing"] == 2 and block["states"]["error"] == 2 and block["n"] == 6


def test_publication_review_and_board_match_the_leaderboard_command(
    platform: Any, mera_root: Path, tmp_path: Path
) -> None:
    from omnieval.aggregate import schemes
    from omnieval.registry import load_plugins

    alice, bob = register(platform, "alice"), register(platform, "bob")
    subs = {}
    for who, headers, right in (
        ("alice", alice, {"ruclevr": 6, "ruslun": 3}),
        ("bob", bob, {"ruclevr": 2, "aquaria": 6}),
    ):
        sub_id = upload(
            platform, headers, submission_zip(mera_root, right=right), model=f"{who}-model"
        ).json()["id"]
        subs[who] = wait_status(platform, headers, sub_id)
    info = {"parameters": "7B", "license": "MIT", "hardware": "1xA100", "versions": {"omnieval": "0.1"}}
    for who, headers in (("alice", alice), ("bob", bob)):
        r = platform.post(
            f"/api/v1/submissions/{subs[who]['id']}/publish",
            headers=headers,
            json={"boards": ["multi", "image"], "model_info": info},
        )
        assert r.status_code == 202
    assert platform.get("/api/v1/boards/mera/multi").json()["rows"] == []  # nothing public before review
    reviewer = token(platform, "reviewer")
    queue = platform.get("/api/v1/reviews", headers=reviewer).json()["submissions"]
    assert [s["id"] for s in queue] == [subs["alice"]["id"], subs["bob"]["id"]]
    assert (
        platform.post(
            f"/api/v1/reviews/{subs['alice']['id']}",
            headers=reviewer,
            json={"decision": "approve", "comment": "logs reproduce"},
        ).status_code
        == 200
    )
    assert (
        platform.post(
            f"/api/v1/reviews/{subs['bob']['id']}",
            headers=reviewer,
            json={"decision": "reject", "comment": "no logs"},
        ).status_code
        == 200
    )
    board = platform.get("/api/v1/boards/mera/multi").json()
    assert [r["model"] for r in board["rows"]] == ["alice-model"]
    load_plugins()
    expected = schemes.get("mera")([{**subs["alice"]["results"], "model": "alice-model"}])["rows"][0]
    row = board["rows"][0]
    for key in ("total", "attempted", "coverage", "image", "audio", "video"):
        assert row[key] == expected[key], key
    assert board["human_baseline"]["human"] is True and board["human_baseline"]["total"] > 0
    assert platform.get(f"/api/v1/models/{subs['bob']['id']}").status_code == 404  # rejected: never public
    page = platform.get(f"/api/v1/models/{subs['alice']['id']}").json()
    assert page["model_info"] == info and page["tasks"]["ruclevr"]["score"] == 1.0
    image = platform.get("/api/v1/boards/mera/image").json()["rows"][0]
    assert {"model", "total", "attempted", "coverage"} <= set(image)


def test_other_users_submission_is_404_and_bad_token_401(platform: Any, mera_root: Path) -> None:
    alice, bob = register(platform, "alice"), register(platform, "bob")
    sub_id = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 1})).json()["id"]
    assert platform.get(f"/api/v1/submissions/{sub_id}", headers=bob).status_code == 404
    assert platform.get(f"/api/v1/submissions/{sub_id}").status_code == 401
    assert (
        platform.get(f"/api/v1/submissions/{sub_id}", headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )
    assert (
        platform.post(
            f"/api/v1/submissions/{sub_id}/publish", headers=bob, json={"boards": ["multi"]}
        ).status_code
        == 404
    )


def test_reviewer_reads_the_logs_of_a_publication_request_only(platform: Any, mera_root: Path) -> None:
    alice = register(platform, "alice")
    sub_id = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 1})).json()["id"]
    wait_status(platform, alice, sub_id)
    reviewer = token(platform, "reviewer")
    assert (
        platform.get(f"/api/v1/reviews/{sub_id}/logs", headers=reviewer).status_code == 404
    )  # private still
    assert platform.get(f"/api/v1/submissions/{sub_id}", headers=reviewer).status_code == 404
    platform.post(f"/api/v1/submissions/{sub_id}/publish", headers=alice, json={"boards": ["multi"]})
    files = platform.get(f"/api/v1/reviews/{sub_id}/logs", headers=reviewer).json()["files"]
    assert files == [{"name": "00_run/results.json", "size": 2}]
    r = platform.get(f"/api/v1/reviews/{sub_id}/logs/00_run/results.json", headers=reviewer)
    assert r.status_code == 200 and r.text == "{}"
    assert (
        platform.get(f"/api/v1/reviews/{sub_id}/logs/../../etc/passwd", headers=reviewer).status_code == 404
    )
    assert platform.get(f"/api/v1/reviews/{sub_id}/logs", headers=alice).status_code == 403


def test_registration_accepts_email_names_and_refuses_bad_ones_with_a_reason(platform: Any) -> None:
    assert "Authorization" in register(platform, "ann.lee+eval@example.org")
    for name, password, field in (("a b", "long-enough", "username"), ("ok_name", "short", "password")):
        r = platform.post("/api/v1/auth/register", json={"username": name, "password": password})
        assert r.status_code == 422, r.text
        assert field in r.text
    r = platform.post(
        "/api/v1/auth/register", json={"username": "ann.lee+eval@example.org", "password": "another-pw"}
    )
    assert r.status_code == 409, r.text
