"""Schemathesis over the OpenAPI schema: no input makes the API answer 5xx, and every answer (status code,
content type, headers, body) matches what the schema documents for its route (bounded: a few examples
each, about a minute)."""

from __future__ import annotations

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
