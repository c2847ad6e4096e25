"""MEGA-Bench (TIGER-Lab, ICLR 2025): importer, prompt renderer, parser and leaderboard scheme.

``--tasks megabench:ROWS`` imports rows in the HF dataset schema; scoring uses the
``megabench.query_score`` metric from :mod:`omnieval.benchmarks.megabench.metrics`.
See docs/benchmarks/megabench.md.
"""

from omnieval.benchmarks.megabench import importer, judge, judge_protocol, metrics, parser, prompt, scheme

__all__ = ["importer", "judge", "judge_protocol", "metrics", "parser", "prompt", "scheme"]
