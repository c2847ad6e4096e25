"""omnieval.platform (placeholder package; filled by its issue)."""
