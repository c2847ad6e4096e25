"""Engine, sessions and migrations (Alembic, run on start)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from omnieval.platform.settings import Settings

__all__ = ["Database", "migrate"]

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x6F6D6E69  # any fixed number: the advisory lock that serializes migrations on PostgreSQL


SQLITE_POOL = 48
"""Kept SQLite connections: more than the request threads (anyio's 40) plus the scoring worker, so under
load no request waits for a connection and none is opened and closed per request (each new one pays
the pragmas and a parse of the schema; with 20 kept and 10 more opened at need, the connections that
uploads and scoring hold made the readers' connections churn)."""


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # readers never block the scoring writer
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _engine(url: str) -> Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=SQLITE_POOL,
            max_overflow=SQLITE_POOL,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_size=20, max_overflow=40, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (processes starting together migrate one at a time)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # replicas starting at once: one migrates, the others wait
            conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK})
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


def _owner_only(settings: Settings) -> None:
    """The data dir and the SQLite file (its WAL and shared-memory files follow its mode) are the owner's
    only:
    they hold password hashes and hidden answers."""
    settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    settings.data_dir.chmod(0o700)
    if settings.database_url is None:
        path = settings.data_dir / "platform.db"
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)


class Database:
    """One engine and session factory per app; ``session()`` commits on success, rolls back on error."""

    def __init__(self, settings: Settings) -> None:
        _owner_only(settings)
        self.engine = _engine(settings.url)
        migrate(self.engine)
        self.factory = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self.factory() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()
