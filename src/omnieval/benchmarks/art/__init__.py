"""ART — Audio Reasoning Tasks (001_5456aa0f01f8bdee.txt; note art_audio.md): a regenerable audio benchmark.

Importing registers the ``art`` data generator, the ``art:DIR`` importer, the Yes/No protocol
metrics, the ``omnieval art`` command group and the descriptive protocol's judge (``art_descriptive``
protocol and template, ``art.judge_verdict`` / ``art.judge_relevance`` parsers). Templates, truth
tables, voices and editions are data under ``data/``.
"""

from omnieval.benchmarks.art import cli as cli
from omnieval.benchmarks.art import generator as generator
from omnieval.benchmarks.art import importer as importer
from omnieval.benchmarks.art import judge as judge
from omnieval.benchmarks.art import metrics as metrics
from omnieval.benchmarks.art import submission as submission

__all__ = ["cli", "generator", "importer", "judge", "metrics", "submission"]
