"""The platform as a site (issue 26), in headless Chromium: both languages, phone width, axe-core on every
page, titles and ``lang``, the submission summary above the fold, and the error and empty states.

Screenshots of every page land in ``build/screenshots/`` (kept as CI artefacts)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.platform.conftest import register, submission_zip, token, upload, wait_status
from tests.platform.test_browser import _click, _login

AXE = Path(__file__).with_name("vendor") / "axe.min.js"
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
PHONE = {"width": 390, "height": 844}


def _scored(client: Any, user: dict[str, str], mera_root: Path, *, right: dict[str, int], model: str) -> int:
    """Upload a MERA zip with ``right`` correct answers per task and wait until it is scored; its id."""
    sub_id: int = upload(client, user, submission_zip(mera_root, right=right), model=model).json()["id"]
    wait_status(client, user, sub_id)
    return sub_id


@pytest.fixture
def site(server: str, mera_root: Path) -> Iterator[dict[str, Any]]:
    """A server with one published, approved submission and one private one of another user."""
    with httpx.Client(base_url=server, timeout=30) as client:
        alice = register(client, "alice")
        sub_id = _scored(client, alice, mera_root, right={"ruclevr": 6, "aquaria": 3}, model="alice-vlm")
        info = {"parameters": "7B", "license": "Apache-2.0"}
        r = client.post(
            f"/api/v1/submissions/{sub_id}/publish",
            headers=alice,
            json={"boards": ["multi", "image"], "model_info": info},
        )
        assert r.status_code == 202, r.text
        r = client.post(
            f"/api/v1/reviews/{sub_id}", headers=token(client, "reviewer"), json={"decision": "approve"}
        )
        assert r.status_code == 200, r.text
        yield {"base": server, "published": sub_id}


def _pages(site: dict[str, Any]) -> dict[str, str]:
    """Every page a visitor or a submitter opens, by name: path."""
    n = site["published"]
    return {
        "home": "/",
        "board": "/boards/mera/multi",
        "board-image": "/boards/mera/image",
        "empty-board": "/boards/mera/video",
        "model": f"/models/{n}",
        "login": "/login",
        "register": "/register",
        "upload": "/submit",
        "submission": f"/submissions/{n}",
        "submissions": "/submissions",
        "not-found": "/no/such/page",
    }


def _signed_in(
    browser: Any, base: str, *, viewport: dict[str, int] | None = None, locale: str = "en-US"
) -> Any:
    size = viewport or {"width": 1280, "height": 900}
    page = browser.new_context(
        viewport=size, locale=locale, bypass_csp=True
    ).new_page()  # axe is injected inline
    _login(page, base, "alice", "password-alice")
    return page


def _axe(page: Any) -> list[dict[str, Any]]:
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_page_has_viewport_title_lang_and_passes_axe(
    site: dict[str, Any], browser: Any, language: str
) -> None:
    page = _signed_in(browser, site["base"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in _pages(site).items():
        page.goto(f"{site['base']}{path}?lang={language}")
        assert page.evaluate("document.documentElement.lang") == language, name
        assert page.locator("meta[name=viewport]").count() == 1, name
        title = page.title()
        assert title.strip() not in ("omnieval", "") and "·" in title, (name, title)
        serious = _axe(page)
        assert not serious, (
            name,
            language,
            json.dumps([(v["id"], v["help"], len(v["nodes"])) for v in serious]),
        )
        page.screenshot(path=str(SHOTS / f"{name}-{language}.png"), full_page=True)


def test_language_follows_accept_language_and_the_choice_is_remembered(
    site: dict[str, Any], browser: Any
) -> None:
    russian = browser.new_context(locale="ru-RU").new_page()
    russian.goto(f"{site['base']}/")
    assert russian.evaluate("document.documentElement.lang") == "ru"
    assert "Бенчмарки" in russian.title()
    english = browser.new_context(locale="en-GB").new_page()
    english.goto(f"{site['base']}/")
    assert english.evaluate("document.documentElement.lang") == "en" and "Benchmarks" in english.title()
    english.goto(f"{site['base']}/?lang=ru")
    english.goto(f"{site['base']}/boards/mera/multi")  # the cookie keeps the choice
    assert english.evaluate("document.documentElement.lang") == "ru"
    assert "Рейтинг" in english.title()


@pytest.mark.parametrize("language", ["ru", "en"])
def test_phone_width_has_no_horizontal_scroll_and_total_is_above_the_fold(
    site: dict[str, Any], browser: Any, language: str
) -> None:
    page = _signed_in(browser, site["base"], viewport=PHONE)
    for name in ("home", "board", "submission", "model", "login", "register", "upload"):
        page.goto(f"{site['base']}{_pages(site)[name]}?lang={language}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (name, width)
        page.screenshot(path=str(SHOTS / f"phone-{name}-{language}.png"), full_page=True)
    page.goto(f"{site['base']}/submissions/{site['published']}?lang={language}")
    box = page.locator("#kpi-total").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 900
    assert re.fullmatch(r"\d\.\d{3}", page.inner_text("#kpi-total .value"))


def test_bad_zip_lists_each_error_on_its_own_line_and_keeps_the_form(
    site: dict[str, Any], browser: Any, mera_root: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "bad.zip"
    good = submission_zip(mera_root, right={"ruclevr": 6})
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(archive, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith(".json") and item.filename != "logs_public.zip":
                body = json.loads(data)
                body["data"]["test"][0]["meta"]["id"] = 999_999  # an id the task does not have
                body["data"]["test"].append(body["data"]["test"][1])  # a duplicate id
                data = json.dumps(body).encode()
            dst.writestr(item, data)
    page = _signed_in(browser, site["base"])
    page.goto(f"{site['base']}/submit?lang=en")
    page.fill("input[name=model]", "my-broken-model")
    page.set_input_files("input[name=file]", str(archive))
    _click(page, "button[type=submit]")
    lines = page.locator("#error li").all_inner_texts()
    assert lines, page.inner_text("#error")
    assert all(line.strip() and '"errors": []' not in line for line in lines)
    assert page.input_value("input[name=model]") == "my-broken-model"
    assert page.locator("details pre").count() == 1  # the full JSON report is there, folded away


def test_publish_without_a_board_keeps_the_form_and_says_why(
    site: dict[str, Any], browser: Any, mera_root: Path
) -> None:
    with httpx.Client(base_url=site["base"], timeout=30) as client:
        alice = token(client, "alice")
        sub_id = _scored(client, alice, mera_root, right={"ruclevr": 2}, model="alice-second")
    page = _signed_in(browser, site["base"])
    page.goto(f"{site['base']}/submissions/{sub_id}?lang=en")
    page.fill("input[name=parameters]", "13B")
    _click(page, "text=Request publication")
    assert "at least one board" in page.inner_text("#error")
    assert page.input_value("input[name=parameters]") == "13B"
    assert page.inner_text("#publication") == "private"


def test_review_confirms_and_empty_states_say_what_to_do(
    site: dict[str, Any], browser: Any, mera_root: Path
) -> None:
    with httpx.Client(base_url=site["base"], timeout=30) as client:
        bob = register(client, "bob")
        sub_id = _scored(client, bob, mera_root, right={"ruclevr": 3}, model="bob-vlm")
        client.post(f"/api/v1/submissions/{sub_id}/publish", headers=bob, json={"boards": ["image"]})
    reviewer = browser.new_context(locale="en-US").new_page()
    _login(reviewer, site["base"], "reviewer", "password-reviewer")
    reviewer.goto(f"{site['base']}/submissions/{sub_id}")
    assert reviewer.locator("button[value=approve]").bounding_box()["y"] < 1200  # actions before the tables
    reviewer.fill("textarea[name=comment]", "logs reproduce")
    _click(reviewer, "button[value=approve]")
    assert "Approved" in reviewer.inner_text("#flash")
    assert "No publication request" in reviewer.inner_text("#empty")
    anon = browser.new_context(locale="en-US").new_page()
    anon.goto(f"{site['base']}/boards/mera/video")
    assert "No models yet" in anon.inner_text("#empty")
    fresh = browser.new_context(locale="en-US").new_page()
    with httpx.Client(base_url=site["base"], timeout=30) as client:
        register(client, "carol")
    _login(fresh, site["base"], "carol", "password-carol")
    fresh.goto(f"{site['base']}/submissions")
    assert "no submission yet" in fresh.inner_text("#empty")


def test_model_page_shows_info_as_a_list_a_chart_and_history(site: dict[str, Any], browser: Any) -> None:
    page = browser.new_context(locale="en-US").new_page()
    page.goto(f"{site['base']}/models/{site['published']}")
    terms = page.locator("#model-info dt").all_inner_texts()
    assert terms == ["Parameters", "Licence"] and "{" not in page.inner_text("#model-info")
    assert page.locator("svg#task-chart rect.bar").count() == 2
    assert page.locator("#history li").count() == 1
    page.goto(f"{site['base']}/boards/mera/multi")
    assert page.locator("svg#total-chart rect.bar").count() == 2  # the model and the human baseline
    page.goto(f"{site['base']}/")
    modalities = dict(
        zip(
            page.locator("dl.info dt").all_inner_texts()[:2],
            page.locator("dl.info dd").all_inner_texts()[:2],
            strict=True,
        )
    )
    assert modalities == {"Image": "ruclevr, rucommonvqa", "Audio": "aquaria, ruslun"}
    assert "1. alice-vlm" in page.inner_text("section.card")


def test_the_russian_catalogue_translates_every_message() -> None:
    from omnieval.platform.routes.i18n import message_ids, translator
    from omnieval.platform.routes.page_errors import TITLES
    from omnieval.platform.routes.pages import FLASHES, PAGE_MESSAGES

    singles, plurals = message_ids(*FLASHES.values(), *TITLES.values(), *PAGE_MESSAGES)
    russian = translator("ru").messages
    missing = sorted(m for m in singles if not russian.get(m)) + sorted(
        s for s, _ in plurals if not russian.get(s)
    )
    assert not missing
    assert translator("ru").ngettext("%(num)d task.", "%(num)d tasks.", 5) == "5 задач."
    assert translator("ru").ngettext("%(num)d task.", "%(num)d tasks.", 22) == "22 задачи."
    assert translator("en").ngettext("%(num)d task.", "%(num)d tasks.", 1) == "1 task."


@pytest.mark.parametrize("language", ["ru", "en"])
def test_reviewer_queue_shows_info_logs_and_decision_side_by_side(
    site: dict[str, Any], browser: Any, mera_root: Path, language: str
) -> None:
    with httpx.Client(base_url=site["base"], timeout=30) as client:
        dora = register(client, "dora")
        sub_id = _scored(client, dora, mera_root, right={"ruclevr": 4}, model="dora-vlm")
        info = {"parameters": "2B", "license": "MIT"}
        client.post(
            f"/api/v1/submissions/{sub_id}/publish",
            headers=dora,
            json={"boards": ["image"], "model_info": info},
        )
    wide = browser.new_context(locale="en-US", bypass_csp=True).new_page()
    _login(wide, site["base"], "reviewer", "password-reviewer")
    wide.goto(f"{site['base']}/reviews?lang={language}")
    assert "dora-vlm" in wide.inner_text("#submissions")
    boxes = [wide.locator(f"#review-{part}").bounding_box() for part in ("info", "logs", "decision")]
    assert all(boxes) and len({round(b["y"]) for b in boxes}) == 1, "side by side on a wide screen"
    assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"]
    assert "MIT" in wide.inner_text("#review-info") and "00_run/results.json" in wide.inner_text(
        "#review-logs"
    )
    assert not _axe(wide), language
    wide.screenshot(path=str(SHOTS / f"reviews-{language}.png"), full_page=True)
    phone = browser.new_context(locale="en-US", viewport=PHONE, bypass_csp=True).new_page()
    _login(phone, site["base"], "reviewer", "password-reviewer")
    phone.goto(f"{site['base']}/reviews?id={sub_id}&lang={language}")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    stacked = [phone.locator(f"#review-{part}").bounding_box() for part in ("info", "logs", "decision")]
    assert stacked[0]["y"] < stacked[1]["y"] < stacked[2]["y"], "stacked on a phone"
    phone.screenshot(path=str(SHOTS / f"phone-reviews-{language}.png"), full_page=True)
    phone.fill("textarea[name=comment]", "ok")
    _click(phone, "button[value=approve]")
    assert phone.locator("#flash").count() == 1 and "dora-vlm" not in phone.content()


def _triples(base: str, n: int) -> None:
    items = [
        {
            "item_id": f"k{i}",
            "criterion": "Креативность",
            "panel": "literature",
            "overlap": 1,
            "instruction": "Напишите стихотворение о море. " * 20,
            "answer": "Море шумит и поёт, волна за волной. " * 30,
            "description": "Оригинальность образов.",
            "rubric": {"0": "шаблонно", "1": "местами", "2": "ярко"},
        }
        for i in range(n)
    ]
    with httpx.Client(base_url=base, timeout=30) as client:
        r = client.post("/api/v1/annotation/items", json={"items": items}, headers=token(client, "admin"))
        assert r.status_code in (200, 201), r.text


@pytest.mark.parametrize("language", ["ru", "en"])
def test_annotation_page_by_keyboard_with_progress_on_a_phone_and_axe_clean(
    site: dict[str, Any], browser: Any, language: str
) -> None:
    _triples(site["base"], 2)
    page = browser.new_context(locale="en-US", viewport=PHONE, bypass_csp=True).new_page()
    _login(page, site["base"], "annotator", "password-annotator")
    page.goto(f"{site['base']}/annotate?lang={language}")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert re.search(r"\b2\b.*\b0\b", page.inner_text("#progress")), page.inner_text("#progress")
    assert not _axe(page), language
    page.screenshot(path=str(SHOTS / f"phone-annotate-{language}.png"), full_page=True)
    page.locator("h1").click()
    page.keyboard.press("2")
    assert page.is_checked("input[name=score][value='2']"), "a digit picks the score"
    page.fill("textarea[name=rationale]", "bad")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert page.locator("[role=alert]").count() == 1
    assert page.input_value("textarea[name=rationale]") == "bad", "the form keeps what was typed"
    assert page.is_checked("input[name=score][value='2']")
    page.fill("textarea[name=rationale]", "Образы яркие, но местами повторяются")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    page.wait_for_selector("#saved")
    assert re.search(r"\b1\b.*\b1\b", page.inner_text("#progress")), "one left, one scored by you"
    wide = browser.new_context(locale="en-US", bypass_csp=True).new_page()
    _login(wide, site["base"], "annotator", "password-annotator")
    wide.goto(f"{site['base']}/annotate?lang={language}")
    material, form = (wide.locator(s).bounding_box() for s in (".material", "#annotation-form"))
    assert material["x"] < form["x"], "the answer and the scoring side by side on a wide screen"
    assert not _axe(wide), language
    wide.screenshot(path=str(SHOTS / f"annotate-{language}.png"), full_page=True)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_annotation_progress_page_passes_axe_and_reflows(
    site: dict[str, Any], browser: Any, language: str
) -> None:
    _triples(site["base"], 1)
    for viewport in (PHONE, {"width": 1280, "height": 900}):
        page = browser.new_context(locale="en-US", viewport=viewport, bypass_csp=True).new_page()
        _login(page, site["base"], "admin", "password-admin")
        page.goto(f"{site['base']}/annotation/progress?lang={language}")
        assert page.locator("meta[http-equiv=refresh]").count() == 0, "no timed reload (axe: meta-refresh)"
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        assert not _axe(page), (language, viewport)
        page.screenshot(path=str(SHOTS / f"progress-{viewport['width']}-{language}.png"), full_page=True)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_whole_flow_at_phone_width(
    server: str, browser: Any, mera_root: Path, tmp_path: Path, language: str
) -> None:
    """register → upload → scored → publish → review → board, at 390 px, axe on every page, screenshots."""
    archive = tmp_path / "submission.zip"
    archive.write_bytes(submission_zip(mera_root, right={"ruclevr": 6, "aquaria": 3}))
    SHOTS.mkdir(parents=True, exist_ok=True)

    def check(page: Any, step: str) -> None:
        assert page.evaluate("document.documentElement.lang") == language, step
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], step
        serious = _axe(page)
        assert not serious, (step, json.dumps([(v["id"], v["help"]) for v in serious]))
        page.screenshot(path=str(SHOTS / f"flow-{step}-{language}.png"), full_page=True)

    user = browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=True).new_page()
    user.goto(f"{server}/register?lang={language}")
    check(user, "1-register")
    user.fill("input[name=username]", "erin")
    user.fill("input[name=password]", "erin-password")
    _click(user, "button[type=submit]")
    user.goto(f"{server}/submit")
    check(user, "2-upload")
    user.fill("input[name=model]", "erin-vlm")
    user.set_input_files("input[name=file]", str(archive))
    _click(user, "button[type=submit]")
    user.wait_for_selector("#status:text('scored')", timeout=30_000)
    check(user, "3-scored")
    assert user.locator("#scoring-time").count() == 1
    user.check("input[value=image]")
    user.fill("input[name=parameters]", "7B")
    _click(user, "#publish-title ~ form button[type=submit]")
    assert user.inner_text("#publication") == "requested"
    check(user, "4-requested")
    reviewer = browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=True).new_page()
    _login(reviewer, server, "reviewer", "password-reviewer")
    reviewer.goto(f"{server}/reviews?lang={language}")
    assert "erin-vlm" in reviewer.inner_text("#request-title")
    check(reviewer, "5-review")
    reviewer.fill("textarea[name=comment]", "logs reproduce")
    _click(reviewer, "button[value=approve]")
    assert reviewer.locator("#flash").count() == 1 and reviewer.locator("#empty").count() == 1
    check(reviewer, "6-approved")
    anon = browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=True).new_page()
    anon.goto(f"{server}/boards/mera/image?lang={language}")
    assert "erin-vlm" in anon.inner_text("#board")
    check(anon, "7-board")
