"""MMAU (Sakshi et al., 2024), the 1,000-question test-mini split, scored by the authors' rule.

See docs/benchmarks/hub/mmau.md.
"""

from omnieval.benchmarks.mmau import benchmark, scoring

__all__ = ["benchmark", "scoring"]
