"""MEGA-Bench's rule-based metrics under their own names, with per-field query scoring.

``megabench.query_score`` reproduces the original evaluator's per-query score (parity, quirks
included); ``megabench.<metric>`` exposes each metric on a single field. See docs/benchmarks/megabench.md.
"""

from omnieval.benchmarks.megabench.metrics.query import PARITY_VERSION, STRICT_VERSION, score_query

__all__ = ["PARITY_VERSION", "STRICT_VERSION", "score_query"]
