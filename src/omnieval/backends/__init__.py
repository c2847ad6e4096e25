"""Backend stage: requests → responses, one registered class per provider."""

from omnieval.backends.base import (
    Backend,
    BackendOptions,
    InProcessBackend,
    accepted_modalities,
    backends,
    check_backend_options,
    create_backend,
    register_backend,
    split_model_spec,
)
from omnieval.backends.breaker import CircuitBreaker, EndpointDown

__all__ = [
    "Backend",
    "BackendOptions",
    "CircuitBreaker",
    "EndpointDown",
    "InProcessBackend",
    "accepted_modalities",
    "backends",
    "check_backend_options",
    "create_backend",
    "register_backend",
    "split_model_spec",
]
