"""Token counting with a real BPE tokenizer (cl100k_base) whose tables ship in the wheel."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _encoding():
    import warnings

    with warnings.catch_warnings():  # bpe_openai loads its tables with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding("cl100k_base")


def count(text: str) -> int:
    if not text:
        return 0
    return len(_encoding().encode(text))


def truncate(text: str, max_tokens: int) -> str:
    enc = _encoding()
    ids = enc.encode(text)
    if len(ids) <= max_tokens:
        return text
    return enc.decode(ids[:max_tokens])
