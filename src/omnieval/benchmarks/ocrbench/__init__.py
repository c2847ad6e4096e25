"""OCRBench (Liu et al., 2024), the 1,000 questions of echo840/OCRBench, scored as its own script.

See docs/benchmarks/hub/ocrbench.md.
"""

from omnieval.benchmarks.ocrbench import benchmark, scoring

__all__ = ["benchmark", "scoring"]
