"""A user's re-upload of the same answer files (whatever the zip's dates): warned about by default (the
submission page links the earlier one), refused with 409 under ``duplicate_uploads: refuse`` (the form
keeps its values); the summary says how long scoring took."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, upload, wait_status

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _page_login(client: Any, username: str) -> None:
    csrf = CSRF.search(client.get("/login").text)
    assert csrf is not None
    data = {"username": username, "password": f"password-{username}", "csrf": csrf.group(1)}
    assert client.post("/login", data=data, follow_redirects=False).status_code == 303


def _rezipped(data: bytes) -> bytes:
    """The same members with other dates and compression: other zip bytes, the same answer files."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=(2001, 2, 3, 4, 5, 6)), src.read(info))
    assert out.getvalue() != data
    return out.getvalue()


def test_an_identical_reupload_is_accepted_with_a_warning_and_scored_once_more(
    platform: Any, mera_root: Path
) -> None:
    alice, bob = register(platform, "alice"), register(platform, "bob")
    data = submission_zip(mera_root, right={"ruclevr": 3})
    first = upload(platform, alice, data).json()["id"]
    second = upload(platform, alice, _rezipped(data)).json()["id"]  # new dates: other bytes, same answers
    other = upload(platform, bob, data).json()["id"]
    changed = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 4})).json()["id"]
    for sub_id, headers in ((first, alice), (second, alice), (other, bob), (changed, alice)):
        body = wait_status(platform, headers, sub_id)
        assert body["status"] == "scored"
    views = {
        i: platform.get(f"/api/v1/submissions/{i}", headers=h).json()
        for i, h in ((first, alice), (second, alice), (other, bob), (changed, alice))
    }
    assert views[second]["duplicate_of"] == first
    assert views[first]["duplicate_of"] is None, "the first upload is no duplicate"
    assert views[other]["duplicate_of"] is None, "another user's identical zip is theirs"
    assert views[changed]["duplicate_of"] is None
    assert all(v["scoring_s"] is not None and v["scoring_s"] >= 0 for v in views.values())
    _page_login(platform, "alice")
    page = platform.get(f"/submissions/{second}").text
    assert 'id="duplicate"' in page and f'href="/submissions/{first}"' in page
    assert 'id="scoring-time"' in page and "Scored in" in page
    assert 'id="duplicate"' not in platform.get(f"/submissions/{first}").text


def test_refused_when_the_policy_says_so_api_409_and_the_form_keeps_its_values(
    platform: Any, mera_root: Path
) -> None:
    app = platform.app
    app.state.settings = dataclasses.replace(
        app.state.settings,
        policy=dataclasses.replace(app.state.settings.policy, duplicate_uploads="refuse"),
    )
    alice = register(platform, "alice")
    data = submission_zip(mera_root, right={"ruclevr": 2})
    first = upload(platform, alice, data)
    assert first.status_code == 202
    again = upload(platform, alice, data, model="renamed")
    assert again.status_code == 409
    assert "same answer files" in again.json()["detail"] and str(first.json()["id"]) in again.json()["detail"]
    uploads = list((platform.settings.data_dir / "uploads").glob("*.zip"))
    assert len(uploads) == 1, "nothing is kept for the refused upload"
    _page_login(platform, "alice")
    csrf = CSRF.search(platform.get("/submit").text)
    assert csrf is not None
    page = platform.post(
        "/submit",
        data={"benchmark": "mera", "model": "kept-name", "csrf": csrf.group(1)},
        files={"file": ("submission.zip", data, "application/zip")},
    )
    assert page.status_code == 409 and "same answer files" in page.text and 'value="kept-name"' in page.text
    russian = platform.post(
        "/submit?lang=ru",
        data={"benchmark": "mera", "model": "kept-name", "csrf": csrf.group(1)},
        files={"file": ("submission.zip", data, "application/zip")},
    )
    assert russian.status_code == 409 and "те же файлы ответов" in russian.text, (
        "the refusal in the page's language"
    )
