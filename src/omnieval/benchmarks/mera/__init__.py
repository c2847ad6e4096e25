"""MERA Multi: the 18 tasks, importer (``--tasks mera:ROOT``), metrics, ``mera`` leaderboard scheme,
submission packer/validator and the ``omnieval mera`` commands. Importing registers them all."""

from omnieval.benchmarks.mera import cli as cli

__all__ = ["cli"]
