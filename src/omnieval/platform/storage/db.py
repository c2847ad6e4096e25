"""Engine, sessions and migrations (Alembic, run on start)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from omnieval.platform.settings import Settings

__all__ = ["REQUEST_THREADS", "Database", "migrate"]

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x6F6D6E69  # any fixed number: the advisory lock that serializes migrations on PostgreSQL


REQUEST_THREADS = 32
"""Request threads per server process (the event loop's default thread limiter is set to this at start)."""
CONNECTIONS_PER_REQUEST = 2
"""A request's own session plus a rate limiter's short transaction of its own."""
WORKER_CONNECTIONS = 4
"""The scoring worker's claim, read and commit transactions, and start-up housekeeping."""
POOL_SIZE = REQUEST_THREADS * CONNECTIONS_PER_REQUEST + WORKER_CONNECTIONS
"""Connections per server process: every request thread can hold all it needs at once, so no thread ever
waits for a connection that a request waiting for a thread holds (the pool and the threads agree).
Kept open, not opened per request: each new SQLite connection pays the pragmas and a schema parse.
PostgreSQL's ``max_connections`` must allow this many per server process (68; its default is 100)."""


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
            pool_size=POOL_SIZE,
            max_overflow=0,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    kept = 16  # idle connections kept open; the rest, up to POOL_SIZE, are opened at need
    return create_engine(url, pool_size=kept, max_overflow=POOL_SIZE - kept, pool_pre_ping=True)


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
    only: they hold password hashes and hidden answers. A ``--database-url sqlite:///...`` elsewhere too."""
    settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    settings.data_dir.chmod(0o700)
    url = make_url(settings.url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        path = Path(url.database)
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

    @contextmanager
    def request_session(self) -> Iterator[Session]:
        """A request's session: it may commit part-way (each commit ends a transaction and frees the
        connection; the next use begins another), whatever is left is committed at the end, and an error
        rolls back."""
        with self.factory() as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise
            session.commit()

    def dispose(self) -> None:
        self.engine.dispose()
