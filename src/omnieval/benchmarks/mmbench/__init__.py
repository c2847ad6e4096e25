"""MMBench (lmms-lab/MMBench, config ``en``, split ``dev``) and MMBench-ru (deepvk/MMBench-ru, ``dev``):
``--tasks mmbench:DIR`` / ``--tasks mmbench_ru:DIR``, scored by VLMEvalKit's rule matching with
CircularEval. See docs/benchmarks/hub/mmbench.md.
"""

from omnieval.benchmarks.mmbench import benchmark

__all__ = ["benchmark"]
