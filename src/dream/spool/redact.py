"""Redaction as the spool knows it: :mod:`dream.secrets` is where it lives (the store, the
notes and the model providers use it too, and the store may not import the spool)."""

from dream.secrets import kinds, placeholder, redact

__all__ = ["kinds", "placeholder", "redact"]
