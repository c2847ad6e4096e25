"""VLMEvalKit's rule-based multiple-choice scoring (no judge), shared by MMStar and MMBench.

Registers the parser ``vlmeval.mcq_rule`` (VLMEvalKit's ``can_infer`` under the ``exact_matching`` policy),
the metric ``vlmeval.mcq_hit`` and the aggregation ``vlmeval.circular`` (CircularEval: a question counts
only when every one of its rotations is right). See docs/benchmarks/hub/index.md.
"""

from omnieval.benchmarks.vlmeval import matching, scoring
from omnieval.benchmarks.vlmeval.prompt import mcq_prompt, mcq_variants

__all__ = ["matching", "mcq_prompt", "mcq_variants", "scoring"]
