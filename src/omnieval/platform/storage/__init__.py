"""What the platform keeps: the database (engine, sessions, Alembic migrations), its models, and the files
in the data dir (uploads and their safety checks)."""
