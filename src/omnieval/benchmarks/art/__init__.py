"""ART — Audio Reasoning Tasks. Importing registers the descriptive protocol's judge (the
``art_descriptive`` protocol and template, the ``art.judge_verdict`` / ``art.judge_relevance`` parsers).

Merge note: main's ``art/__init__.py`` (generator, importer, metrics, cli) gains the one ``judge`` line.
"""

from omnieval.benchmarks.art import judge as judge

__all__ = ["judge"]
