"""The models and the migrations describe one schema: ``create_all`` and ``alembic upgrade`` agree."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from tests.platform.conftest import make_settings


def schema_differences(engine: Any) -> list[Any]:
    """Alembic's autogenerate comparison of a database against the models (empty: they agree)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from omnieval.platform.storage.models import Base

    with engine.connect() as conn:
        return list(
            compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
        )


def _sqlite_indexes(path: Path) -> dict[str, str]:
    """Every index of the file by name, with its SQL lower-cased and without spaces or quotes (SQLite
    keeps the statement that made it; autogenerate cannot reflect expression indexes there)."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        return {name: "".join(sql.lower().replace('"', "").split()) for name, sql in rows}


@pytest.mark.filterwarnings("ignore:.*expression-based index")  # SQLite: compared through sqlite_master
def test_models_and_migrations_make_the_same_sqlite_schema(tmp_path: Path) -> None:
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import Base

    migrated = Database(make_settings(tmp_path / "migrated"))
    assert schema_differences(migrated.engine) == []
    migrated.dispose()
    created = create_engine(f"sqlite:///{tmp_path / 'created.db'}")
    Base.metadata.create_all(created)
    created.dispose()
    want = _sqlite_indexes(tmp_path / "migrated" / "platform.db")
    assert "ix_users_username_lower" in want  # the case-insensitive unique username index (issue 20.10)
    assert _sqlite_indexes(tmp_path / "created.db") == want
