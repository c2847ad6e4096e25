"""TextVQA (Singh et al., 2019), validation split of lmms-lab/textvqa, scored with VQA accuracy.

See docs/benchmarks/hub/textvqa.md.
"""

from omnieval.benchmarks.textvqa import benchmark, scoring

__all__ = ["benchmark", "scoring"]
