"""Multimodal SMIA (MERA Multi §3.4.2, Appendix C): did a model train on a benchmark's items?

For each item (text t, media m): K perturbed neighbours of the text, the model's loss of t and of each
neighbour conditioned on m, and embedding differences. A detector trained on a base model (label 0) and
a deliberately leaked copy (label 1) turns (ΔL, Δe) into a leak probability for any other model.
"""

from omnieval.protect.msmia.detector import Detector, auc_roc, train_detector
from omnieval.protect.msmia.features import ItemFeatures, extract_features
from omnieval.protect.msmia.perturb import perturb

__all__ = ["Detector", "ItemFeatures", "auc_roc", "extract_features", "perturb", "train_detector"]
