"""Schemathesis over the OpenAPI schema: no input makes the API answer 5xx, and every answer (status code,
content type, headers, body) matches what the schema documents for its route (bounded: a few examples
each, about a minute)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, upload


def test_no_5xx_and_no_schema_violation_under_schemathesis(platform: Any, mera_root: Path) -> None:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
    ]
    alice = register(platform, "alice")
    upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 2}))
    schema = schemathesis.openapi.from_asgi("/openapi.json", platform.app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    operations.sort(key=lambda op: op.method.upper() == "DELETE")  # last: they may log alice out
    failures: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy(), signed_in=st.booleans())
        @settings(max_examples=5, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case: Any, signed_in: bool) -> None:
            response = case.call(headers=alice if signed_in else {})
            try:
                case.validate_response(response, checks=checks)
            except (Exception, BaseExceptionGroup) as exc:  # one error naming every failed check
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: {str(exc)[:300]}"
                )

        check()
    assert failures == []


def test_an_empty_benchmark_field_says_so(platform: Any, mera_root: Path) -> None:
    alice = register(platform, "alice")
    r = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 6}), benchmark="")
    assert r.status_code == 422 and "benchmark field is empty" in r.json()["detail"], r.text


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "1", path)


def test_every_body_parse_failure_is_a_documented_400(platform: Any) -> None:
    """The operations that read a body answer 400 for one they cannot parse; each documents it."""
    alice = register(platform, "alice")
    with_body = [
        (path, method, op)
        for path, item in platform.app.openapi()["paths"].items()
        for method, op in item.items()
        if "requestBody" in op
    ]
    assert len(with_body) == 7
    for path, method, op in with_body:
        assert "400" in op["responses"], (method, path)
        if "application/json" in op["requestBody"]["content"]:
            body, content_type = b'{"a": "\xff\xfe"}', "application/json"
        else:
            body, content_type = b"--x\r\n", "multipart/form-data"  # no boundary
        r = platform.request(
            method, _concrete(path), content=body, headers=alice | {"content-type": content_type}
        )
        assert r.status_code == 400, (method, path, r.status_code, r.text)


def test_a_405_allows_exactly_the_methods_of_its_path(platform: Any) -> None:
    paths = platform.app.openapi()["paths"]
    shared = [p for p, item in paths.items() if len(item) > 1]
    assert "/api/v1/auth/tokens" in shared and "/api/v1/submissions" in shared
    for path, item in paths.items():
        r = platform.request("OPTIONS", _concrete(path))
        assert r.status_code == 405, (path, r.status_code)
        documented = {m.upper() for m in item}  # FastAPI's GET routes do not take HEAD
        assert set(r.headers["allow"].split(", ")) == documented, (path, r.headers["allow"])
    r = platform.request("PUT", "/login")  # the pages too: GET and POST /login are two routes
    assert set(r.headers["allow"].split(", ")) == {"GET", "POST"}
