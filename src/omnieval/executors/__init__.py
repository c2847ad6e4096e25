"""omnieval.executors (placeholder package; filled by its issue)."""
