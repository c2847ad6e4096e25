"""omnieval: evaluation of text, image, audio and video language models."""

__version__ = "0.1.0"

__all__ = ["__version__"]
