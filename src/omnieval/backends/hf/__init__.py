"""The ``hf`` backend (transformers) and the request building it shares with ``vllm``."""

from omnieval.backends.hf.backend import HFBackend

__all__ = ["HFBackend"]
