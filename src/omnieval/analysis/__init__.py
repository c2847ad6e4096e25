"""General-purpose statistics over stored scores: agreement between raters, judge-versus-human
comparisons, rank correlation, reliability coefficients. Pure functions over plain numbers, so any
suite (POLLUX, arenas, human studies) can reuse them; nothing here knows a benchmark."""

from omnieval.analysis.agreement import (
    judge_substitution_vc,
    unique_mode,
    vc_band,
    vc_random_baseline,
    verdict_confidence,
)
from omnieval.analysis.correlation import confusion_matrix, mean_absolute_error, mean_bias, spearman
from omnieval.analysis.judge_agreement import judge_agreement, load_agreement_files

__all__ = [
    "confusion_matrix",
    "judge_agreement",
    "judge_substitution_vc",
    "load_agreement_files",
    "mean_absolute_error",
    "mean_bias",
    "spearman",
    "unique_mode",
    "vc_band",
    "vc_random_baseline",
    "verdict_confidence",
]
