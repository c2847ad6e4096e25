"""MMMU (MMMU/MMMU, one config per subject, split ``validation``): ``--tasks mmmu:DIR``, parsed and scored
as the authors' ``mmmu/utils/eval_utils.py`` does. See docs/benchmarks/hub/mmmu.md.
"""

from omnieval.benchmarks.mmmu import benchmark, scoring

__all__ = ["benchmark", "scoring"]
