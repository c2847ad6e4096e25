"""omnieval.analysis (placeholder package; filled by its issue)."""
