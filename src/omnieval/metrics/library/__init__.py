"""The generic metric library every benchmark uses (registered on import by ``metrics.builtin``)."""
