"""A subset of the platform tests on a real PostgreSQL (a throwaway cluster of Debian's binaries)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform import test_annotation, test_api, test_jobs, test_shared_state
from tests.platform.conftest import add_mera, create, make_settings
from tests.platform.pg import BIN, PgCluster, available, postgres_cluster

pytestmark = pytest.mark.skipif(
    not available(), reason=f"PostgreSQL binaries not found in {BIN} (make system-deps)"
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    with postgres_cluster() as c:
        yield c


def _pg_settings(tmp_path: Path, cluster: PgCluster, **overrides: Any) -> Any:
    return make_settings(tmp_path / "data", database_url=cluster.new_database(), **overrides)


@pytest.fixture
def pg_platform(tmp_path: Path, cluster: PgCluster, mera_root: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = _pg_settings(tmp_path, cluster)
    add_mera(settings, mera_root)
    for role in ("reviewer", "annotator", "admin"):
        create(settings, role, role, panel="literature" if role == "annotator" else None)
    with TestClient(create_app(settings)) as client:
        client.settings = settings  # type: ignore[attr-defined]
        yield client


def test_scoring_publication_and_board_on_postgres(pg_platform: Any, mera_root: Path, tmp_path: Path) -> None:
    test_api.test_publication_review_and_board_match_the_leaderboard_command(pg_platform, mera_root, tmp_path)


def test_privacy_on_postgres(pg_platform: Any, mera_root: Path) -> None:
    test_api.test_other_users_submission_is_404_and_bad_token_401(pg_platform, mera_root)


def test_annotation_on_postgres(pg_platform: Any) -> None:
    test_annotation.routing_overlap_rationale_progress_export(pg_platform, pg_platform.settings)


def test_stale_lease_on_postgres(tmp_path: Path, cluster: PgCluster, mera_root: Path) -> None:
    test_jobs.stale_worker_check(_pg_settings(tmp_path, cluster), mera_root)


def _staffed(tmp_path: Path, cluster: PgCluster, mera_root: Path) -> Any:
    settings = _pg_settings(tmp_path, cluster)
    add_mera(settings, mera_root)
    for role in ("reviewer", "admin"):
        create(settings, role, role)
    return settings


def test_two_apps_share_the_login_limit_on_postgres(
    tmp_path: Path, cluster: PgCluster, mera_root: Path
) -> None:
    test_shared_state.shared_login_limit_check(_staffed(tmp_path, cluster, mera_root))


def test_concurrent_attempts_never_exceed_the_limit_on_postgres(tmp_path: Path, cluster: PgCluster) -> None:
    test_shared_state.concurrent_limit_check(_pg_settings(tmp_path, cluster))


def test_board_published_on_one_app_is_visible_on_the_other_on_postgres(
    tmp_path: Path, cluster: PgCluster, mera_root: Path
) -> None:
    test_shared_state.board_visible_everywhere_check(_staffed(tmp_path, cluster, mera_root), mera_root)


MIGRATE = """
import sys
from pathlib import Path
from omnieval.platform import Settings
from omnieval.platform.storage.db import Database
Database(Settings(data_dir=Path(sys.argv[1]), database_url=sys.argv[2])).dispose()
"""


def test_processes_starting_together_migrate_once_on_postgres(tmp_path: Path, cluster: PgCluster) -> None:
    """Replicas starting at once on an empty database: one migrates, the others wait and find the head."""
    import os
    import subprocess
    import sys

    url = cluster.new_database()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE, str(tmp_path / f"data{i}"), url],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors


def test_models_and_migrations_make_the_same_schema_on_postgres(tmp_path: Path, cluster: PgCluster) -> None:
    """PostgreSQL reflects expression indexes: autogenerate compares the lower(username) index too."""
    from omnieval.platform.storage.db import Database
    from tests.platform.test_schema_parity import schema_differences

    db = Database(_pg_settings(tmp_path, cluster))
    try:
        assert schema_differences(db.engine) == []
    finally:
        db.dispose()
