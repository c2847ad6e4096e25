"""The ``omnieval`` command line (typer): thin wrappers over :mod:`omnieval.api`."""

from omnieval.cli.app import app, main

__all__ = ["app", "main"]
