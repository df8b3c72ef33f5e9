"""Spelling: a word the user mistyped, written as the session spells it.

Users type fast; a rule kept in memory should not carry "conosle" when the session's own
output says ``console`` dozens of times. Only words of five letters or more are looked at,
and only when the session never spells them that way but spells a neighbour (two letters
swapped, one letter fewer or one more) at least five times.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def vocabulary(texts: Sequence[str]) -> Counter[str]:
    """How often each word (five letters or more) occurs in ``texts``."""
    return Counter(w for t in texts for w in re.findall(r"[a-z]{5,}", (t or "").lower()))


def respell(text: str, vocab: Counter[str]) -> str:
    """``text`` with each word the session never spells that way, but spells at least five
    times with two letters swapped, one letter fewer or one more, written that way ("no
    conosle logs" in a session full of ``console``)."""
    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if vocab.get(low) or not low.isalpha():
            return word
        near = {low[:i] + low[i + 1] + low[i] + low[i + 2:] for i in range(len(low) - 1)}
        near |= {low[:i] + low[i + 1:] for i in range(len(low))}
        near |= {low[:i] + c + low[i:] for i in range(len(low) + 1) for c in _LETTERS}
        best = max(near, key=lambda w: (vocab.get(w, 0), w))
        if vocab.get(best, 0) < 5:
            return word
        return best.capitalize() if word[0].isupper() else best
    return re.sub(r"\b[A-Za-z]{5,}\b", fix, text)
