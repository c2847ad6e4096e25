"""Bounds that keep one upload cheap: nesting, unknown ids, refused uploads' own rate limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import ENGLISH, make_settings, register, submission_zip, upload, wait_status


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

    settings = make_settings(data_dir, upload_day_limit=(3, 86400.0))
    with TestClient(create_app(settings), headers=ENGLISH) as client:
        headers = register(client, "refused")
        bad = submission_zip(mera_root, right={}, extra={"ruCLEVR.json": "{}"})
        codes = [upload(client, headers, bad).status_code for _ in range(4)]
    assert codes == [422, 422, 422, 429], codes


def test_clients_are_counted_by_network_ipv4_24_and_ipv6_48_by_default() -> None:
    """A /64 is one host's and a free tunnel broker hands out /48s: an IPv6 client is its /48 unless the
    server is told otherwise; IPv4 stays /24."""
    from omnieval.platform.services.submissions import client_network, settings_network

    assert client_network("192.0.2.7") == client_network("192.0.2.250") == "192.0.2.0/24"
    assert client_network("192.0.3.7") != client_network("192.0.2.7")
    assert client_network("2001:db8:1:2::1") == client_network("2001:db8:1:ffff::9") == "2001:db8:1::/48"
    assert client_network("2001:db8:2::1") != client_network("2001:db8:1::1")
    assert client_network("::ffff:192.0.2.9") == "192.0.2.0/24"
    narrow = make_settings(Path("unused"), ipv6_network_prefix=64)
    assert settings_network(narrow, "2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert settings_network(narrow, "2001:db8:1:3::1") != settings_network(narrow, "2001:db8:1:2::1")
    with pytest.raises(ValueError, match=r"ipv6_network_prefix must be 16\.\.128, got 129"):
        make_settings(Path("unused"), ipv6_network_prefix=129)


def test_ipv6_addresses_in_one_48_share_the_network_cap_and_registrations(
    data_dir: Path, mera_root: Path
) -> None:
    """Two /64s of one /48 are one network: the second's upload meets the first's daily cap and its
    registration the first's bucket; another /48 keeps its own."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app
    from omnieval.platform.services.policy import set_policy

    app = create_app(make_settings(data_dir, register_limit=(2, 3600.0)))
    with app.state.db.session() as session:
        set_policy(session, "mera", {"network_daily_cap": 1})
    data = submission_zip(mera_root, right={"ruclevr": 6})
    with TestClient(app, client=("2001:db8:1:2::5", 5000), headers=ENGLISH) as one:
        other_64 = TestClient(app, client=("2001:db8:1:3::9", 5000), headers=ENGLISH)
        other_48 = TestClient(app, client=("2001:db8:2::5", 5000), headers=ENGLISH)
        codes = [upload(c, register(c, f"v6user{k}"), data) for k, c in enumerate((one, other_64, other_48))]
        third = other_64.post(
            "/api/v1/auth/register", json={"username": "v6extra", "password": "password-v6x"}
        )
    assert [r.status_code for r in codes] == [202, 429, 202], [r.text for r in codes]
    assert "IPv6 /48" in codes[1].json()["detail"]
    assert third.status_code == 429, third.text


def test_x_forwarded_for_is_believed_only_from_configured_proxies(tmp_path: Path) -> None:
    from omnieval.platform.serve import uvicorn_options

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
