"""The authorization matrix: every endpoint (API and pages) × every role (anonymous, owner, another user,
staff).

Each test also checks that its matrix names every route the app has, so a new endpoint cannot go unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, token, upload, wait_status
from tests.platform.test_annotation import triple

ROLES = ("anonymous", "owner", "other", "reviewer", "annotator", "admin")
Body = dict[str, Any] | Callable[[str], dict[str, Any]] | None
RATIONALE = "Текст в целом связный"


def _matrix(sub: int) -> list[tuple[str, str, Body, tuple[int, ...]]]:
    """(method, path, json body or body per role, expected status per role in ROLES order); rows run in
    order."""
    publish = {"boards": ["multi"], "model_info": {"parameters": "1B"}}
    review = {"decision": "approve", "comment": "reproducible"}
    items = {"items": [triple("t1", "Связность", "literature"), triple("t2", "Связность", "literature")]}
    return [
        (
            "POST",
            "/api/v1/auth/register",
            lambda role: {"username": f"new-{role}", "password": "password-new"},
            (201,) * 6,
        ),
        ("POST", "/api/v1/auth/token", {"username": "new-owner", "password": "password-new"}, (200,) * 6),
        ("GET", "/api/v1/me", None, (401, 200, 200, 200, 200, 200)),
        ("GET", "/api/v1/benchmarks", None, (200,) * 6),
        ("GET", "/api/v1/submissions", None, (401, 200, 200, 200, 200, 200)),
        (
            "GET",
            f"/api/v1/submissions/{sub}",
            None,
            (401, 200, 404, 404, 404, 200),
        ),  # private: not the reviewer's
        ("GET", f"/api/v1/reviews/{sub}/logs", None, (401, 403, 403, 404, 403, 200)),
        ("GET", "/api/v1/submissions/999999", None, (401, 404, 404, 404, 404, 404)),
        ("POST", f"/api/v1/submissions/{sub}/publish", publish, (401, 202, 404, 404, 404, 404)),
        (
            "GET",
            f"/api/v1/submissions/{sub}",
            None,
            (401, 200, 404, 200, 404, 200),
        ),  # under review: the reviewer's
        ("GET", "/api/v1/reviews", None, (401, 403, 403, 200, 403, 200)),
        ("POST", f"/api/v1/reviews/{sub}", review, (401, 403, 403, 200, 403, 200)),
        ("GET", f"/api/v1/reviews/{sub}/logs", None, (401, 403, 403, 200, 403, 200)),
        ("GET", f"/api/v1/reviews/{sub}/logs/00_run/results.json", None, (401, 403, 403, 200, 403, 200)),
        ("GET", "/api/v1/boards/mera/multi", None, (200,) * 6),
        ("GET", f"/api/v1/models/{sub}", None, (200,) * 6),
        ("POST", "/api/v1/annotation/items", items, (401, 403, 403, 403, 403, 200)),
        ("GET", "/api/v1/annotation/next", None, (401, 403, 403, 403, 200, 200)),
        (
            "POST",
            "/api/v1/annotation/items/1/scores",
            {"score": 1, "rationale": RATIONALE},
            (401, 403, 403, 403, 201, 201),
        ),
        ("GET", "/api/v1/annotation/progress", None, (401, 403, 403, 403, 403, 200)),
        ("GET", "/api/v1/annotation/export", None, (401, 403, 403, 403, 403, 200)),
        ("GET", "/api/v1/auth/tokens", None, (401, 200, 200, 200, 200, 200)),
        ("DELETE", "/api/v1/auth/tokens/999999", None, (401, 404, 404, 404, 404, 404)),
        (
            "DELETE",
            "/api/v1/auth/tokens",
            None,
            (401, 200, 200, 200, 200, 200),
        ),  # last: everyone is logged out
        ("GET", "/api/v1/me", None, (401,) * 6),
    ]


def _routes(*, api: bool) -> set[tuple[str, str]]:
    """(method, path template) of every API route (``api``) or every page route, from the app's routers."""
    from omnieval.platform.routes import api as api_module
    from omnieval.platform.routes import api_annotation, pages

    routers = (api_module.router, api_annotation.router) if api else (pages.router,)
    return {
        (method, route.path.replace("{name:path}", "{name}"))
        for router in routers
        for route in router.routes
        for method in route.methods
        if method != "HEAD"
    }


def _template(path: str) -> str:
    """A concrete path as its route template (ids become ``{...}``), to compare with the app's routes."""
    path = re.sub(r"/(submissions|reviews|models)/\d+", r"/\1/{submission_id}", path)
    path = re.sub(r"/items/\d+", "/items/{item_pk}", path)
    path = re.sub(r"/tokens/\d+", "/tokens/{token_id}", path)
    path = re.sub(r"/annotate/\d+", "/annotate/{item_pk}", path)
    path = re.sub(r"/logs/.+", "/logs/{name}", path)
    return re.sub(r"/boards/\w+/\w+", "/boards/{benchmark}/{board}", path)


def test_every_api_endpoint_for_every_role(platform: Any, mera_root: Path) -> None:
    owner = register(platform, "owner")
    headers = {"anonymous": {}, "owner": owner, "other": register(platform, "other")}
    headers |= {role: token(platform, role) for role in ("reviewer", "annotator", "admin")}
    sub = upload(platform, owner, submission_zip(mera_root, right={"ruclevr": 4})).json()["id"]
    wait_status(platform, owner, sub)
    got, want = {}, {}
    for row, (method, path, body, expected) in enumerate(_matrix(sub)):
        for role, code in zip(ROLES, expected, strict=True):
            r = platform.request(
                method, path, headers=headers[role], json=body(role) if callable(body) else body
            )
            got[(row, method, path, role)], want[(row, method, path, role)] = r.status_code, code
    assert got == want
    headers |= {
        role: token(platform, role) for role in ("reviewer", "annotator", "admin")
    }  # logged out above
    headers |= {role: token(platform, role, f"password-{role}") for role in ("owner", "other")}
    for role in ROLES[1:]:  # uploads (multipart): any signed-in account may submit; anonymous may not
        assert (
            upload(platform, headers[role], submission_zip(mera_root, right={"ruclevr": 1})).status_code
            == 202
        )
    assert upload(platform, {}, submission_zip(mera_root, right={"ruclevr": 1})).status_code == 401
    covered = {(m, _template(p)) for m, p, _, _ in _matrix(sub)} | {("POST", "/api/v1/submissions")}
    assert _routes(api=True) == covered


CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _page_clients(platform: Any) -> dict[str, Any]:
    """One browser-like client (its own cookies) per role, signed in through the login form."""
    from fastapi.testclient import TestClient

    clients = {}
    for role in ROLES:
        client = TestClient(platform.app)
        if role != "anonymous":
            name = role if role in ("reviewer", "annotator", "admin") else f"page-{role}"
            form = {"username": name, "password": f"password-{name}", "csrf": _csrf(client)}
            assert client.post("/login", data=form, follow_redirects=False).status_code == 303
        clients[role] = client
    return clients


def _csrf(client: Any) -> str:
    found = CSRF.search(client.get("/login").text)
    assert found is not None
    return found.group(1)


def _page_matrix(sub: int, item: int) -> list[tuple[str, str, dict[str, Any] | None, tuple[int, ...]]]:
    """(method, path, form, expected status per role). Anonymous GETs of private pages go to the login (303);
    a successful form answers 303 to the next page."""
    return [
        ("GET", "/", None, (200,) * 6),
        ("GET", "/register", None, (200,) * 6),
        ("GET", "/login", None, (200,) * 6),
        ("GET", "/submit", None, (303, 200, 200, 200, 200, 200)),
        ("GET", "/submissions", None, (303, 200, 200, 200, 200, 200)),
        ("GET", f"/submissions/{sub}", None, (303, 200, 404, 404, 404, 200)),  # private: not the reviewer's
        ("GET", f"/submissions/{sub}/logs/00_run/results.json", None, (303, 403, 403, 404, 403, 200)),
        ("POST", f"/submissions/{sub}/publish", {"boards": "multi"}, (401, 303, 404, 404, 404, 404)),
        ("GET", f"/submissions/{sub}", None, (303, 200, 404, 200, 404, 200)),  # under review: the reviewer's
        ("GET", f"/submissions/{sub}/logs/00_run/results.json", None, (303, 403, 403, 200, 403, 200)),
        ("GET", "/reviews", None, (303, 403, 403, 200, 403, 200)),
        ("POST", f"/reviews/{sub}", {"decision": "approve", "comment": "ok"}, (401, 403, 403, 303, 403, 303)),
        ("GET", "/boards/mera/multi", None, (200,) * 6),
        ("GET", f"/models/{sub}", None, (200,) * 6),
        ("GET", "/annotate", None, (303, 403, 403, 403, 200, 200)),
        ("POST", f"/annotate/{item}", {"score": "1", "rationale": RATIONALE}, (401, 403, 403, 403, 303, 303)),
        ("GET", "/annotation/progress", None, (303, 403, 403, 403, 403, 200)),
        ("GET", "/annotation/export", None, (303, 403, 403, 403, 403, 200)),
    ]


def test_every_page_for_every_role(platform: Any, mera_root: Path) -> None:
    owner = register(platform, "page-owner")
    register(platform, "page-other")
    admin = token(platform, "admin")
    loaded = platform.post(
        "/api/v1/annotation/items", headers=admin, json={"items": [triple("p1", "Связность", "literature")]}
    )
    assert loaded.json() == {"loaded": 1}
    sub = upload(platform, owner, submission_zip(mera_root, right={"ruclevr": 4})).json()["id"]
    wait_status(platform, owner, sub)
    clients = _page_clients(platform)
    got, want = {}, {}
    for row, (method, path, form, expected) in enumerate(_page_matrix(sub, item=1)):
        for role, code in zip(ROLES, expected, strict=True):
            client = clients[role]
            data = None if form is None else {**form, "csrf": _csrf(client)}
            r = client.request(method, path, data=data, follow_redirects=False)
            got[(row, method, path, role)], want[(row, method, path, role)] = r.status_code, code
    assert got == want
    zip_file = {"file": ("s.zip", submission_zip(mera_root, right={"ruclevr": 1}), "application/zip")}
    for role, code in zip(ROLES, (401, 303, 303, 303, 303, 303), strict=True):  # uploads through the page
        form = {"benchmark": "mera", "csrf": _csrf(clients[role])}
        assert (
            clients[role].post("/submit", data=form, files=zip_file, follow_redirects=False).status_code
            == code
        ), role
    # login, logout and register need no role (their CSRF checks: test_security, test_page_errors)
    covered = {(m, _template(p)) for m, p, _, _ in _page_matrix(sub, 1)} | {("POST", "/submit")}
    covered |= {("POST", "/login"), ("POST", "/logout"), ("POST", "/register")}
    assert _routes(api=False) == covered
