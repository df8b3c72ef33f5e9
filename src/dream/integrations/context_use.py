"""How full an agent's context is, from a hook payload or from its transcript.

Order of preference:

1. the payload itself: ``context_fraction`` (0..1), ``context_percent`` (0..100), or
   ``context_tokens`` with ``context_window`` (an agent or a wrapper script may send these);
2. the transcript's last usage record, read from the end of the file (when a compaction
   marker comes after it - Claude Code ``compact_boundary``, Pi ``compaction``, Codex
   ``compacted`` - the token count of the marker and everything after it instead):
   - Claude Code: ``message.usage`` of the last main-chain assistant record;
     tokens = input + cache_creation_input + cache_read_input + output;
   - Pi: ``message.usage``; tokens = totalTokens, or input + output + cacheRead + cacheWrite;
   - Codex: the last ``token_count`` event; tokens = last_token_usage.input + output,
     window = ``model_context_window`` from the record;
3. otherwise the token count (cl100k) of the transcript's text, for files under 2 MB.

The window, when the record does not carry one, is ``[automations] context_window`` in
config.toml (default 200,000 tokens).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_WINDOW = 200_000
TAIL_BYTES = 4 * 1024 * 1024
COUNT_LIMIT = 2 * 1024 * 1024


@dataclass
class ContextUse:
    tokens: int | None
    window: int | None
    fraction: float | None
    source: str            # payload | usage | count | none


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().rstrip("%"))
        except ValueError:
            return None
    return None


def from_payload(payload: dict[str, Any], window: int) -> ContextUse | None:
    frac = _num(payload.get("context_fraction"))
    if frac is not None and 0 <= frac <= 1.5:
        return ContextUse(None, window, frac, "payload")
    pct = _num(payload.get("context_percent"))
    if pct is not None and 0 <= pct <= 150:
        return ContextUse(None, window, pct / 100, "payload")
    tokens = _num(payload.get("context_tokens"))
    win = _num(payload.get("context_window")) or window
    if tokens is not None and win:
        return ContextUse(int(tokens), int(win), tokens / win, "payload")
    return None


def _usage_tokens(record: dict[str, Any]) -> tuple[int, int | None] | None:
    """(tokens in context, window or None) from one transcript record, or None."""
    if record.get("type") == "event_msg":                       # Codex
        payload = record.get("payload") or {}
        if payload.get("type") == "token_count" and payload.get("info"):
            info = payload["info"]
            last = info.get("last_token_usage") or {}
            tokens = int(last.get("input_tokens") or 0) + int(last.get("output_tokens") or 0)
            window = info.get("model_context_window")
            return (tokens, int(window) if window else None) if tokens else None
        return None
    if record.get("isSidechain"):                              # a Claude Code subagent
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    if "input_tokens" in usage or "cache_read_input_tokens" in usage:   # Claude Code
        tokens = sum(int(usage.get(k) or 0) for k in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
            "output_tokens"))
        return (tokens, None) if tokens else None
    if "totalTokens" in usage or "cacheRead" in usage or "input" in usage:  # Pi
        total = usage.get("totalTokens")
        tokens = int(total) if total else sum(int(usage.get(k) or 0) for k in (
            "input", "output", "cacheRead", "cacheWrite"))
        return (tokens, None) if tokens else None
    return None


def _tail_lines(path: Path) -> list[bytes]:
    size = path.stat().st_size
    with path.open("rb") as fh:
        if size > TAIL_BYTES:
            fh.seek(size - TAIL_BYTES)
            fh.readline()                    # drop the partial first line
        return fh.read().splitlines()


def _is_compaction(raw: bytes, record: dict[str, Any]) -> bool:
    if b"compact" not in raw:
        return False
    return (record.get("subtype") == "compact_boundary"          # Claude Code
            or record.get("type") in ("compaction", "compacted"))  # Pi, Codex


def from_transcript(path: Path, window: int) -> ContextUse | None:
    try:
        lines = _tail_lines(path)
    except OSError:
        return None
    for index in range(len(lines) - 1, -1, -1):
        raw = lines[index]
        if b"usage" not in raw and b"token_count" not in raw and b"compact" not in raw:
            continue
        try:
            record = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(record, dict):
            continue
        if _is_compaction(raw, record):
            # compacted since the last usage record: the context now holds the summary and
            # what came after it, so count that
            from dream import tokens as tok

            rest = b"\n".join(lines[index:])[:COUNT_LIMIT].decode("utf-8", "replace")
            n = tok.count(rest)
            return ContextUse(n, window, n / window, "compaction")
        found = _usage_tokens(record)
        if found:
            tokens, rec_window = found
            win = rec_window or window
            return ContextUse(tokens, win, tokens / win, "usage")
    return None


def from_count(path: Path, window: int) -> ContextUse | None:
    try:
        if path.stat().st_size > COUNT_LIMIT:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    from dream import tokens as tok

    n = tok.count(text)
    return ContextUse(n, window, n / window, "count")


def measure(payload: dict[str, Any], transcript: Path | None, window: int = DEFAULT_WINDOW
            ) -> ContextUse:
    found = from_payload(payload, window)
    if found:
        return found
    if transcript is not None and transcript.is_file() and os.access(transcript, os.R_OK):
        found = from_transcript(transcript, window) or from_count(transcript, window)
        if found:
            return found
    return ContextUse(None, window, None, "none")
