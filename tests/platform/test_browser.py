"""Headless Chromium (Playwright, Debian's executable): the submission journey and one annotation."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import CHROMIUM, submission_zip

pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason=f"{CHROMIUM} not installed (make system-deps)"
)


def _click(page: Any, selector: str) -> None:
    """Click a button that submits a form and wait for the page it leads to."""
    with page.expect_navigation():
        page.click(selector)


def _login(page: Any, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    _click(page, "button[type=submit]")


def test_register_upload_publish_review_board(
    server: str, browser: Any, mera_root: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "submission.zip"
    archive.write_bytes(submission_zip(mera_root, right={"ruclevr": 6, "aquaria": 3}))
    user = browser.new_context().new_page()
    user.goto(f"{server}/register")
    user.fill("input[name=username]", "carol")
    user.fill("input[name=password]", "carol-password")
    _click(user, "button[type=submit]")
    user.fill("input[name=model]", "carol-vlm")
    user.set_input_files("input[name=file]", str(archive))
    _click(user, "button[type=submit]")
    user.wait_for_selector("#status:text('scored')", timeout=20_000)
    user.click("details:has(#results) > summary")  # per-task tables start collapsed
    assert "ruclevr" in user.inner_text("#results") and "1.0000" in user.inner_text("#results")
    assert user.inner_text("#publication") == "private"
    user.check("input[value=multi]")
    user.check("input[value=image]")
    user.fill("input[name=parameters]", "7B")
    user.fill("input[name=license]", "Apache-2.0")
    _click(user, "text=Request publication")
    assert user.inner_text("#publication") == "requested"
    anon = browser.new_context().new_page()
    anon.goto(f"{server}/boards/mera/multi")
    assert "carol-vlm" not in anon.inner_text("#board")  # not public before review
    reviewer = browser.new_context().new_page()
    _login(reviewer, server, "reviewer", "password-reviewer")
    reviewer.goto(f"{server}/reviews")
    _click(reviewer, "text=carol-vlm")
    assert "00_run/results.json" in reviewer.content()  # the reviewer sees the logs
    reviewer.fill("textarea[name=comment]", "logs reproduce")
    _click(reviewer, "button[value=approve]")
    anon.goto(f"{server}/boards/mera/multi")
    table = anon.inner_text("#board")
    assert "carol-vlm" in table and "Human Baseline" in table
    _click(anon, "#board a:text('carol-vlm')")  # the chart above names it too
    assert "Apache-2.0" in anon.content() and "ruclevr" in anon.content()
    anon.goto(f"{server}/boards/mera/image?q=nobody")
    assert "carol-vlm" not in anon.inner_text("#board")


def test_annotator_scores_a_triple_with_a_rationale(server: str, browser: Any) -> None:
    page = browser.new_context().new_page()
    admin = browser.new_context().new_page()
    _login(admin, server, "admin", "password-admin")
    triple = {
        "item_id": "n1",
        "criterion": "Креативность",
        "panel": "literature",
        "overlap": 2,
        "instruction": "Напишите стихотворение о море.",
        "answer": "Море шумит...",
        "description": "Оригинальность образов.",
        "rubric": {"0": "шаблонно", "1": "местами", "2": "ярко"},
    }
    token = admin.request.post(
        f"{server}/api/v1/auth/token", data={"username": "admin", "password": "password-admin"}
    ).json()["token"]
    r = admin.request.post(
        f"{server}/api/v1/annotation/items",
        data={"items": [triple]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.ok
    _login(page, server, "annotator", "password-annotator")
    page.goto(f"{server}/annotate")
    assert page.inner_text("#criterion").startswith("Креативность") and "ярко" in page.content()
    page.check("input[name=score][value='1']")
    page.fill("textarea[name=rationale]", "bad")
    _click(page, "button[type=submit]")
    assert "Russian" in page.inner_text("[role=alert]")
    page.check("input[name=score][value='1']")
    page.fill("textarea[name=rationale]", "Образы местами шаблонные")
    _click(page, "button[type=submit]")
    assert page.inner_text("#saved") == "Saved."
    admin.goto(f"{server}/annotation/progress")
    assert "1 / 2" in admin.inner_text("#progress")
    assert '"annotator": "annotator", "score": 1' in admin.request.get(f"{server}/annotation/export").text()
