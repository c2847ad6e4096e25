"""MWS-Vision-Bench (MTS AI, 2025): Russian business-document OCR, public validation set.

Five task types scored by the authors' released metrics (``mts-ai/MWS-Vision-Bench``,
``src/evaluation``); the overall score is the mean of the five type means. See
docs/benchmarks/hub/mws_vision.md.
"""

from omnieval.benchmarks.mws_vision import benchmark, imagefolder, scoring

__all__ = ["benchmark", "imagefolder", "scoring"]
