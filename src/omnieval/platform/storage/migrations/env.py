"""Alembic environment: the connection comes from :func:`omnieval.platform.storage.db.migrate`."""

from __future__ import annotations

from alembic import context

from omnieval.platform.storage.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
