"""Token counting with a real BPE tokenizer (cl100k_base) whose tables ship in the wheel.

The tokenizer refuses one encode of a million characters or more, and of more than 200,000
tokens. A text of any length is therefore encoded in pieces cut at **safe boundaries**: just
before a space or tab that follows a non-whitespace character, or just after a newline that is
followed by a non-whitespace character. cl100k's pre-tokenizer never joins the two sides of
such a boundary into one piece (a word takes at most one leading space, punctuation takes only
trailing newlines, a run of whitespace stops at a non-whitespace character), so the count of
the pieces is exactly the count of the whole. Only a span of ``_PIECE`` characters with no such
boundary (a long base64 blob) is cut blind, which can shift its count by a token.

Text is counted as ordinary text: a transcript that quotes ``<|endoftext|>`` is text, not a
special token, and never an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

# At most 4 UTF-8 bytes per character and at least one token per byte bound a piece of this
# many characters to 200,000 tokens, the tokenizer's limit per encode.
_PIECE = 40_000


@lru_cache(maxsize=1)
def _encoding():
    import warnings

    with warnings.catch_warnings():  # bpe_openai loads its tables with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding("cl100k_base")


def _safe_cut(text: str, start: int, end: int) -> int:
    """The last safe boundary in ``text[start+1:end]``, or ``end`` when there is none."""
    for p in range(end - 1, start, -1):
        here, before = text[p], text[p - 1]
        if here in " \t" and not before.isspace():
            return p
        if before == "\n" and not here.isspace():
            return p
    return end


def pieces(text: str, size: int = _PIECE) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, cut at safe boundaries."""
    start = 0
    while len(text) - start > size:
        cut = _safe_cut(text, start, start + size)
        yield text[start:cut]
        start = cut
    if start < len(text):
        yield text[start:]


def count(text: str) -> int:
    if not text:
        return 0
    enc = _encoding()
    return sum(len(enc.encode_ordinary(piece)) for piece in pieces(text))


def truncate(text: str, max_tokens: int) -> str:
    enc = _encoding()
    ids: list[int] = []
    for piece in pieces(text):
        ids.extend(enc.encode_ordinary(piece))
        if len(ids) > max_tokens:
            return enc.decode(ids[:max_tokens])
    return text
