"""ChartQA (Masry et al., 2022) as lmms-eval publishes and scores it: relaxed accuracy.

The authors publish no scorer; lmms-eval's ``relaxed_correctness`` (taken from Qwen-VL) is the rule
model cards report. See docs/benchmarks/hub/chartqa.md.
"""

from omnieval.benchmarks.chartqa import benchmark, scoring

__all__ = ["benchmark", "scoring"]
