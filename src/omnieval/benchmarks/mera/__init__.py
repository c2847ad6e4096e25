"""MERA Multi: the 18 tasks, importer (``--tasks mera:ROOT``), metrics, ``mera`` leaderboard scheme,
submission packer/validator and the ``omnieval mera`` commands. Importing registers them all."""

from omnieval.benchmarks.mera import cli as cli
from omnieval.benchmarks.mera import em as em
from omnieval.benchmarks.mera import importer as importer
from omnieval.benchmarks.mera import metrics as metrics
from omnieval.benchmarks.mera import rutie as rutie
from omnieval.benchmarks.mera import scheme as scheme
from omnieval.benchmarks.mera import submission as submission

__all__ = ["cli", "em", "importer", "metrics", "rutie", "scheme", "submission"]
