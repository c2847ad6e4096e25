"""The ``hf`` backend (transformers) and the request building it shares with ``vllm``."""

from omnieval.backends.hf.backend import HFBackend
from omnieval.backends.hf.classifier import HFClassifierBackend

__all__ = ["HFBackend", "HFClassifierBackend"]
