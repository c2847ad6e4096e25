"""Bounds that keep one upload cheap: nesting, unknown ids, refused uploads' own rate limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, upload, wait_status


def test_outputs_nested_2000_deep_are_refused_at_upload(platform: Any, mera_root: Path) -> None:
    """They were accepted and failed scoring three times with a RecursionError."""
    headers = register(platform, "nester")
    deep = "[" * 2000 + "]" * 2000
    body = '{"data": {"test": [{"outputs": ' + deep + ', "meta": {"id": 0}}]}}'
    r = upload(platform, headers, submission_zip(mera_root, right={}, extra={"ruCLEVR.json": body}))
    assert r.status_code == 422, r.text
    assert "nested deeper than 16 levels" in json.dumps(r.json())


def test_unknown_sample_ids_are_counted_never_stored(platform: Any, mera_root: Path) -> None:
    from omnieval.platform.storage.models import Submission

    headers = register(platform, "stranger")
    extra = json.dumps({"data": {"test": [{"outputs": "x", "meta": {"id": 10_000 + i}} for i in range(50)]}})
    r = upload(
        platform, headers, submission_zip(mera_root, right={"ruclevr": 6}, extra={"ruSLUn.json": extra})
    )
    assert r.status_code == 202, r.text
    body = wait_status(platform, headers, r.json()["id"])
    assert body["results"]["tasks"]["ruclevr"]["ids"]["unknown"] == 0
    with platform.app.state.db.session() as session:
        row = session.get(Submission, r.json()["id"])
        stored = row.fingerprint or {}
    assert stored and all(len(ids) <= 6 for ids in stored.values()), {k: len(v) for k, v in stored.items()}


def test_refused_uploads_count_toward_a_daily_attempt_limit(data_dir: Path, mera_root: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from tests.platform.conftest import ENGLISH, make_settings

    settings = make_settings(data_dir, upload_day_limit=(3, 86400.0))
    with TestClient(create_app(settings), headers=ENGLISH) as client:
        headers = register(client, "refused")
        bad = submission_zip(mera_root, right={}, extra={"ruCLEVR.json": "{}"})
        codes = [upload(client, headers, bad).status_code for _ in range(4)]
    assert codes == [422, 422, 422, 429], codes


def test_clients_are_counted_by_network_ipv4_24_and_ipv6_64() -> None:
    from omnieval.platform.services.submissions import client_network

    assert client_network("192.0.2.7") == client_network("192.0.2.250") == "192.0.2.0/24"
    assert client_network("192.0.3.7") != client_network("192.0.2.7")
    assert client_network("2001:db8:1:2::1") == client_network("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_network("2001:db8:1:3::1") != client_network("2001:db8:1:2::1")
    assert client_network("::ffff:192.0.2.9") == "192.0.2.0/24"


def test_x_forwarded_for_is_believed_only_from_configured_proxies(tmp_path: Path) -> None:
    from omnieval.platform.serve import uvicorn_options
    from tests.platform.conftest import make_settings

    plain = uvicorn_options(make_settings(tmp_path))
    assert plain["proxy_headers"] is False  # uvicorn's default believed it from 127.0.0.1
    behind = uvicorn_options(make_settings(tmp_path, trusted_proxies=("10.0.0.5",)))
    assert behind["proxy_headers"] is True and behind["forwarded_allow_ips"] == ["10.0.0.5"]


def test_filler_answers_are_told_apart_from_a_model_s() -> None:
    from omnieval.platform.services.policy import filler_tasks, fingerprint

    probe = {str(i): ("B" if i == 7 else "zz") for i in range(40)}  # one probed sample, the rest filler
    model = {str(i): "ABCD"[i % 4] for i in range(40)}
    few = {str(i): "zz" for i in range(5)}
    prints = fingerprint({"probe": probe, "model": model, "few": few})
    assert filler_tasks(prints, share=0.9) == ["probe"]
    assert filler_tasks(prints, share=1.5) == []  # turned off
