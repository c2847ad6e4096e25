"""omnieval.protect (placeholder package; filled by its issue)."""
