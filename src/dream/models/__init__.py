"""Model providers behind one narrow interface (see :mod:`dream.models.base`)."""

from dream.models.base import (
    ModelRequest,
    ModelResponse,
    Provider,
    get_provider,
    register_provider,
)

__all__ = ["ModelRequest", "ModelResponse", "Provider", "get_provider", "register_provider"]
