"""DocVQA (Mathew et al., 2021), validation split of lmms-lab/DocVQA, scored with ANLS.

See docs/benchmarks/hub/docvqa.md.
"""

from omnieval.benchmarks.docvqa import benchmark, scoring

__all__ = ["benchmark", "scoring"]
