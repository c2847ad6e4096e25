"""The authorization matrix: every API endpoint × every role (anonymous, owner, another user, staff)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, token, upload, wait_status

ROLES = ("anonymous", "owner", "other", "reviewer", "annotator", "admin")


def _matrix(sub: int) -> list[tuple[str, str, dict[str, Any] | None, tuple[int, ...]]]:
    """(method, path, json body, expected status per role in ROLES order); rows run in this order."""
    publish = {"boards": ["multi"], "model_info": {"parameters": "1B"}}
    review = {"decision": "approve", "comment": "reproducible"}
    return [
        ("GET", "/api/v1/me", None, (401, 200, 200, 200, 200, 200)),
        ("GET", "/api/v1/benchmarks", None, (200,) * 6),
        ("GET", "/api/v1/submissions", None, (401, 200, 200, 200, 200, 200)),
        ("GET", f"/api/v1/submissions/{sub}", None, (401, 200, 404, 200, 404, 200)),
        ("GET", "/api/v1/submissions/999999", None, (401, 404, 404, 404, 404, 404)),
        ("POST", f"/api/v1/submissions/{sub}/publish", publish, (401, 202, 404, 404, 404, 404)),
        ("GET", "/api/v1/reviews", None, (401, 403, 403, 200, 403, 200)),
        ("POST", f"/api/v1/reviews/{sub}", review, (401, 403, 403, 200, 403, 200)),
        ("GET", f"/api/v1/reviews/{sub}/logs", None, (401, 403, 403, 200, 403, 200)),
        ("GET", f"/api/v1/reviews/{sub}/logs/00_run/results.json", None, (401, 403, 403, 200, 403, 200)),
        ("GET", "/api/v1/boards/mera/multi", None, (200,) * 6),
        ("GET", f"/api/v1/models/{sub}", None, (200,) * 6),
        ("GET", "/api/v1/annotation/next", None, (401, 403, 403, 403, 200, 200)),
        ("GET", "/api/v1/annotation/progress", None, (401, 403, 403, 403, 403, 200)),
        ("GET", "/api/v1/annotation/export", None, (401, 403, 403, 403, 403, 200)),
        ("POST", "/api/v1/annotation/items", {"items": []}, (401, 403, 403, 403, 403, 200)),
    ]


def test_every_endpoint_for_every_role(platform: Any, mera_root: Path) -> None:
    owner = register(platform, "owner")
    headers = {"anonymous": {}, "owner": owner, "other": register(platform, "other")}
    headers |= {role: token(platform, role) for role in ("reviewer", "annotator", "admin")}
    sub = upload(platform, owner, submission_zip(mera_root, right={"ruclevr": 4})).json()["id"]
    wait_status(platform, owner, sub)
    got, want = {}, {}
    for method, path, body, expected in _matrix(sub):
        for role, code in zip(ROLES, expected, strict=True):
            r = platform.request(method, path, headers=headers[role], json=body)
            got[(method, path, role)], want[(method, path, role)] = r.status_code, code
    assert got == want
    for role in ROLES[1:]:  # uploads: any signed-in account may submit; anonymous may not
        assert upload(platform, headers[role], submission_zip(mera_root, right={"ruclevr": 1})).status_code == 202
    assert upload(platform, {}, submission_zip(mera_root, right={"ruclevr": 1})).status_code == 401
