"""omnieval's version, on its own so the stages that record it (results.json, the manifest) need not import
the package root, which reaches the public API (:mod:`omnieval.api`) above them."""

__version__ = "0.1.0"
