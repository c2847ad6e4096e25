"""MMStar (Lin-Chen/MMStar, val, 1,500 rows): ``--tasks mmstar:DIR``, scored by VLMEvalKit's rule matching.

The published ``mmstar.parquet`` writes the options into the question (``Options: A: …, B: …``); they are
split out and the question is asked with VLMEvalKit's MCQ prompt. Sample ids are row positions (item 4 of
issue 36: the dataset's ``index`` is not one of the named id columns). See docs/benchmarks/hub/mmstar.md.
"""

from omnieval.benchmarks.mmstar import benchmark

__all__ = ["benchmark"]
