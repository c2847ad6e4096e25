"""ART — Audio Reasoning Tasks. Importing registers the descriptive protocol's judge: the
``art_descriptive`` protocol and template and the ``art.judge_verdict`` / ``art.judge_relevance`` parsers."""

from omnieval.benchmarks.art import judge as judge

__all__ = ["judge"]
