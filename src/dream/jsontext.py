"""JSON read so that every string in it is text UTF-8 can hold.

A JavaScript writer (an agent's transcript, an MCP client) that cuts a string inside an
emoji writes ``"\\ud83d"`` alone: JSON reads it, but no UTF-8 text (the spool, the secret
detector, SQLite, git, a note, the MCP server's own stdout) can hold it. :func:`loads`
makes each lone UTF-16 surrogate U+FFFD; a valid pair stays.
"""

from __future__ import annotations

import json
import re
from typing import Any

_ESCAPED_SURROGATE_RE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def whole(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings and keys made U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE_RE.sub("\ufffd", value)
    if isinstance(value, list):
        return [whole(v) for v in value]
    if isinstance(value, dict):
        return {whole(k): whole(v) for k, v in value.items()}
    return value


def loads(raw: bytes | str) -> Any:
    """``json.loads``, with every lone surrogate made U+FFFD (raises ``ValueError`` on
    text that is not JSON, as ``json.loads`` does, and on JSON nested deeper than Python
    can read: a line of 100,000 '[' ended the MCP server with a RecursionError)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
    probe = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    return whole(value) if _ESCAPED_SURROGATE_RE.search(probe) else value
