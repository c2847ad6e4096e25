"""Video-MME (lmms-lab/Video-MME, config ``videomme``, split ``test``): ``--tasks videomme:DIR``, scored as
the authors' ``eval_your_results.py`` (its last released version) does. See docs/benchmarks/hub/videomme.md.
"""

from omnieval.benchmarks.videomme import benchmark, scoring

__all__ = ["benchmark", "scoring"]
