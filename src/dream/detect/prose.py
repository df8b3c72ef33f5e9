"""Shared reading of text: what counts as prose (not a paste), content words, coding streams."""

from __future__ import annotations

import re

from dream.items import Item

CODING_SOURCES = {"claude_code", "pi", "codex"}
NOISE_START = ("<", "```", "{", "[", "/", "$ ", "#!", "diff --git", "Caveat:")
STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "for", "with", "is", "it",
        "be", "that", "this", "you", "i", "me", "my", "we", "our", "please", "always",
        "never", "don", "t", "do", "not", "from", "now", "just", "use", "can", "are", "at",
        "as", "by", "if", "so", "but", "when", "what", "should", "would", "will", "make",
        "sure", "remember", "prefer", "like", "no", "yes", "actually", "done", "finished",
        "sent", "completed", "need", "have", "has", "had", "was", "were"}


def clean(text: str) -> str:
    return " ".join(text.split())


def is_prose(sentence: str) -> bool:
    """A sentence of words, not a paste: no markup or prompt at its start, mostly letters."""
    s = sentence.strip()
    if not s or s.startswith(NOISE_START) or len(s) > 300:
        return False
    letters = sum(c.isalpha() or c == " " for c in s)
    return letters / max(1, len(s)) > 0.8


def stems(text: str) -> set[str]:
    """Content words, plural -s dropped: "aisle seats" and "an aisle seat" share two."""
    out = set()
    for w in re.findall(r"[^\W\d_]{3,}", text.lower()):
        if w in STOP:
            continue
        out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w)
    return out


def is_coding(item: Item) -> bool:
    """An item of a coding agent's session (Claude Code, Pi, Codex)."""
    return bool(item.source in CODING_SOURCES or
                str(item.stream or "").startswith(("claude", "pi-", "codex")))
