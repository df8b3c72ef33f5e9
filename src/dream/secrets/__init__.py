"""Secrets: found and replaced by placeholders before any text is stored or sent.

``redact(text) -> (text, count)`` is the one redaction every door uses (collect, notes,
corrections, review, handoffs, hooks, prompts); ``strip_placeholders`` keeps names and slugs
free of redacted spans. See ``redactor.py`` for the contract, ``rules.py`` for Dream's
rules and ``detector.py`` for the maintained detector they add to.
"""

from dream.secrets.redactor import (
    PLACEHOLDER_RE,
    has_secret,
    kinds,
    placeholder,
    redact,
    redact_all,
    strip_placeholders,
    use_detector,
)

__all__ = ["PLACEHOLDER_RE", "has_secret", "kinds", "placeholder", "redact", "redact_all",
           "strip_placeholders", "use_detector"]
