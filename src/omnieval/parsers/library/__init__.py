"""The generic parser library every benchmark uses (registered on import by ``parsers.builtin``)."""
