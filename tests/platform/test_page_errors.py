"""Errors by audience: browser pages answer HTML with the real status (anonymous GETs go to the login page
with ``next``), the REST API keeps JSON; neither shows a traceback or an exception's text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import ENGLISH, make_settings, register, token

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _csrf(client: Any) -> str:
    found = CSRF.search(client.get("/login").text)
    assert found is not None
    return found.group(1)


def _page_login(client: Any, username: str, *, next_: str | None = None) -> Any:
    data = {"username": username, "password": f"password-{username}", "csrf": _csrf(client)}
    return client.post(
        "/login", data=data | ({"next": next_} if next_ is not None else {}), follow_redirects=False
    )


def _is_html_error(r: Any, status: int) -> bool:
    return (
        r.status_code == status
        and r.headers["content-type"].startswith("text/html")
        and f"<h1>{status} ·" in r.text
        and 'href="/"' in r.text
        and "Traceback" not in r.text
    )


def test_page_404_is_an_html_page_with_the_status(platform: Any) -> None:
    unrouted = platform.get("/no/such/page")
    assert _is_html_error(unrouted, 404) and "there is no such page" in unrouted.text
    missing = platform.get("/models/999999")  # routed; the service says not found
    assert _is_html_error(missing, 404) and "Page not found" in missing.text


def test_page_403_is_html_and_keeps_the_visitors_nav(platform: Any) -> None:
    register(platform, "alice")
    assert _page_login(platform, "alice").status_code == 303
    r = platform.get("/reviews")
    assert _is_html_error(r, 403) and "only reviewer or admin accounts may open this page" in r.text
    assert "Log out alice" in r.text  # the error page knows who is signed in
    forged = platform.post(
        "/register", data={"username": "mallory", "password": "password-mallory", "csrf": "x"}
    )
    assert _is_html_error(forged, 403) and "CSRF" in forged.text


def test_anonymous_get_of_a_private_page_redirects_to_login_and_back(platform: Any) -> None:
    r = platform.get("/reviews?page=2", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=/reviews%3Fpage%3D2"
    login_form = platform.get(r.headers["location"]).text
    assert 'name="next" value="/reviews?page=2"' in login_form
    back = _page_login(platform, "reviewer", next_="/reviews?page=2")
    assert back.status_code == 303 and back.headers["location"] == "/reviews?page=2"
    assert platform.get("/reviews").status_code == 200


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example"])
def test_login_next_never_leaves_the_site(platform: Any, target: str) -> None:
    r = _page_login(platform, "reviewer", next_=target)
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_anonymous_post_gets_the_401_page_with_a_login_link(platform: Any) -> None:
    r = platform.post(
        "/reviews/1", data={"decision": "approve", "csrf": _csrf(platform)}, follow_redirects=False
    )
    assert _is_html_error(r, 401) and 'href="/login?next=/reviews/1"' in r.text


def test_page_bad_parameter_is_html_without_echoing_it(platform: Any) -> None:
    assert _page_login(platform, "reviewer").status_code == 303
    r = platform.get("/submissions/not-a-number")
    assert _is_html_error(r, 422) and "not-a-number" not in r.text


def test_api_errors_stay_json(platform: Any) -> None:
    reviewer = token(platform, "reviewer")
    for path, headers, status in (
        ("/api/v1/submissions/999999", reviewer, 404),
        ("/api/v1/no/such/route", {}, 404),
        ("/api/v1/submissions/1", {}, 401),
        ("/api/v1/submissions/0", reviewer, 422),
        ("/api/v1/annotation/export", reviewer, 403),
    ):
        r = platform.get(path, headers=headers)
        assert r.status_code == status and r.headers["content-type"] == "application/json", path
        assert "detail" in r.json()


@pytest.fixture
def fragile(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app whose board lookup crashes with a message quoting a (pretend) hidden answer."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services import publication

    def crash(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("hidden answer: Пётр Первый")

    monkeypatch.setattr(publication, "board", crash)
    with TestClient(
        create_app(make_settings(data_dir, worker=False)), raise_server_exceptions=False, headers=ENGLISH
    ) as client:
        yield client


def test_unexpected_failures_are_500_without_their_text(fragile: Any) -> None:
    page = fragile.get("/boards/mera/multi")
    assert _is_html_error(page, 500) and "Пётр" not in page.text and "RuntimeError" not in page.text
    api = fragile.get("/api/v1/boards/mera/multi")
    assert api.status_code == 500 and api.json() == {"detail": "internal error"}


def test_unexpected_failures_never_reach_the_server_log_with_their_text(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """The server (uvicorn) logs whatever the app re-raises, traceback and message: nothing may be
    re-raised."""
    import logging

    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services import publication

    def crash(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("hidden answer: Пётр Первый")

    monkeypatch.setattr(publication, "board", crash)
    caplog.set_level(logging.DEBUG)
    with TestClient(
        create_app(make_settings(data_dir, worker=False)), headers=ENGLISH
    ) as client:  # re-raised errors raise here
        assert client.get("/api/v1/boards/mera/multi").json() == {"detail": "internal error"}
        assert _is_html_error(client.get("/boards/mera/multi"), 500)
    assert "RuntimeError" in caplog.text and "Пётр" not in caplog.text


@pytest.mark.parametrize(
    "path", ["/models/99999999999999999999", "/submissions/9223372036854775808", "/submissions/0"]
)
def test_page_ids_out_of_range_are_a_422_page_not_a_500(platform: Any, path: str) -> None:
    assert _page_login(platform, "reviewer").status_code == 303
    r = platform.get(path)
    assert _is_html_error(r, 422)
    assert path.rsplit("/", 1)[1] not in r.text or path.endswith(
        "/0"
    )  # the value is not echoed ("0" is everywhere)


def test_board_sorted_by_a_non_scalar_column_is_refused_not_a_500(platform: Any, mera_root: Path) -> None:
    from tests.platform.conftest import submission_zip, upload, wait_status

    alice, reviewer = register(platform, "alice"), token(platform, "reviewer")
    for right in (2, 5):  # two rows: sorting must compare values
        sub = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": right})).json()["id"]
        wait_status(platform, alice, sub)
        platform.post(
            f"/api/v1/submissions/{sub}/publish",
            headers=alice,
            json={"boards": ["multi"], "model_info": {"a": right}},
        )
        platform.post(
            f"/api/v1/reviews/{sub}", headers=reviewer, json={"decision": "approve", "comment": "ok"}
        )
    api = platform.get("/api/v1/boards/mera/multi", params={"sort": "model_info"})
    assert api.status_code == 422 and "model_info" not in api.json()["detail"].split("one of")[1]
    assert _is_html_error(platform.get("/boards/mera/multi", params={"sort": "model_info"}), 422)
    ordered = platform.get("/api/v1/boards/mera/multi", params={"sort": "total", "order": "asc"}).json()[
        "rows"
    ]
    assert [r["total"] for r in ordered] == sorted(r["total"] for r in ordered) and len(ordered) == 2
