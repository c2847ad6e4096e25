"""Schemathesis over the OpenAPI schema: no input makes the API answer 500 (bounded: a few examples each)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.platform.conftest import register, submission_zip, upload


def test_no_500_under_schemathesis(platform: Any, mera_root: Path) -> None:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    alice = register(platform, "alice")
    upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 2}))
    schema = schemathesis.openapi.from_asgi("/openapi.json", platform.app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    failures: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy(), signed_in=st.booleans())
        @settings(max_examples=5, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case: Any, signed_in: bool) -> None:
            response = case.call(headers=alice if signed_in else {})
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        check()
    assert failures == []
