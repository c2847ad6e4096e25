"""Cascade models: speech and text recognition in front of a text model (``cascade/...``)."""

from omnieval.backends.cascade.backend import WRAPPERS, CascadeBackend, PerceptionCache
from omnieval.backends.cascade.spec import CascadeSpec, parse_cascade

__all__ = ["WRAPPERS", "CascadeBackend", "CascadeSpec", "PerceptionCache", "parse_cascade"]
