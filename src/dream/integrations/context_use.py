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

The window is what the client recorded (the payload's ``context_window``; Codex's
``model_context_window``); else the window of the model the transcript names (Claude Code
``message.model``, Pi ``model``), looked up in :data:`MODEL_WINDOWS` extended by
``[automations.context_windows]`` in config.toml (model name prefix -> tokens; the longest
prefix wins). The table holds the *largest* window each model is sold with (Claude Code
records ``claude-opus-4-8`` for a ``claude-opus-4-8[1m]`` session), so a threshold never
fires early; a name ending in ``[1m]`` is 1,000,000. A model the table does not know gets
``[automations] context_window`` (default 200,000 tokens).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_WINDOW = 200_000
# model name prefix -> the largest context window the model is sold with (tokens)
MODEL_WINDOWS: dict[str, int] = {
    "claude-opus-4": 1_000_000,       # 4.6 and later are sold with 1M ([1m] variants)
    "claude-opus-4-0": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4-2025": 200_000,    # claude-opus-4-20250514 (4.0)
    "claude-opus-4-5": 200_000,
    "claude-sonnet-4": 1_000_000,     # 1M variants since Sonnet 4
    "claude-haiku-4": 200_000,
    "claude-3": 200_000,
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}


def window_for(model: str | None, table: dict[str, int] | None = None) -> int | None:
    """The context window of a model by name (longest matching prefix), or None."""
    if not model:
        return None
    name = model.strip().lower()
    if name.endswith("[1m]"):
        return 1_000_000
    windows = {**MODEL_WINDOWS, **(table or {})}
    best = max((p for p in windows if name.startswith(p.lower())), key=len, default=None)
    return int(windows[best]) if best else None
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


def _usage_tokens(record: dict[str, Any]) -> tuple[int, int | None, str | None] | None:
    """(tokens in context, window or None, model or None) from one transcript record, or
    None."""
    if record.get("type") == "event_msg":                       # Codex
        payload = record.get("payload") or {}
        if payload.get("type") == "token_count" and payload.get("info"):
            info = payload["info"]
            last = info.get("last_token_usage") or {}
            tokens = int(last.get("input_tokens") or 0) + int(last.get("output_tokens") or 0)
            window = info.get("model_context_window")
            return (tokens, int(window) if window else None, None) if tokens else None
        return None
    if record.get("isSidechain"):                              # a Claude Code subagent
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    model = message.get("model") if isinstance(message.get("model"), str) else None
    if "input_tokens" in usage or "cache_read_input_tokens" in usage:   # Claude Code
        tokens = sum(int(usage.get(k) or 0) for k in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
            "output_tokens"))
        return (tokens, None, model) if tokens else None
    if "totalTokens" in usage or "cacheRead" in usage or "input" in usage:  # Pi
        total = usage.get("totalTokens")
        tokens = int(total) if total else sum(int(usage.get(k) or 0) for k in (
            "input", "output", "cacheRead", "cacheWrite"))
        return (tokens, None, model) if tokens else None
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


def from_transcript(path: Path, window: int, table: dict[str, int] | None = None
                    ) -> ContextUse | None:
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
            tokens, rec_window, model = found
            win = rec_window or window_for(model, table) or window
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


def measure(payload: dict[str, Any], transcript: Path | None, window: int = DEFAULT_WINDOW,
            table: dict[str, int] | None = None) -> ContextUse:
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    window = window_for(model, table) or window
    found = from_payload(payload, window)
    if found:
        return found
    if transcript is not None and transcript.is_file() and os.access(transcript, os.R_OK):
        found = from_transcript(transcript, window, table) or from_count(transcript, window)
        if found:
            return found
    return ContextUse(None, window, None, "none")
