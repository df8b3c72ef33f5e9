"""Token counting over texts of any length: pieces cut at safe boundaries count exactly."""

from __future__ import annotations

import random

from dream import tokens

_WORDS = ["the", "Dream", "run", "naïve", "café", "数据", "記憶", "🙂", "don't", "we'll", "x=1;",
          "f(a,b)", "{\"k\":", "[1,", "2]}", "12345", "3.14", "--flag", "->", "...", "\t", "  ",
          "\n", "\n\n", " \n", "\r\n", "|", "<|endoftext|>", "ok.", "URL:", "https://e.x/a?b=c"]


def _varied_text(chars: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out, n = [], 0
    while n < chars:
        w = rng.choice(_WORDS)
        sep = rng.choice([" ", " ", " ", "", "\n", "  ", "\t"])
        out.append(w + sep)
        n += len(w) + len(sep)
    return "".join(out)


def test_safe_boundaries_never_change_the_count():
    # Under the tokenizer's limits one encode is the reference; cutting the same text into
    # hundreds of small pieces at safe boundaries must give exactly the same total.
    text = _varied_text(200_000)
    enc = tokens._encoding()
    whole = len(enc.encode_ordinary(text))
    parts = list(tokens.pieces(text, size=700))
    assert len(parts) > 250 and "".join(parts) == text
    assert sum(len(enc.encode_ordinary(p)) for p in parts) == whole
    assert tokens.count(text) == whole


def test_a_multi_megabyte_text_is_counted_and_agrees_with_its_chunks():
    text = _varied_text(3_000_000, seed=11)
    total = tokens.count(text)  # used to raise "Input too long to encode safely"
    # The same text cut by hand at paragraph starts (a newline followed by a word) into
    # chunks of about 300 kB, each counted on its own.
    chunks, start = [], 0
    while start < len(text):
        cut = text.find("\nthe", start + 300_000)
        cut = len(text) if cut < 0 else cut + 1
        chunks.append(text[start:cut])
        start = cut
    assert len(chunks) >= 9 and "".join(chunks) == text
    assert total == sum(tokens.count(c) for c in chunks)
    assert total > 500_000


def test_a_long_span_without_boundaries_is_still_counted():
    blob = "QUJD" * 400_000  # 1.6 MB of base64 with no space or newline
    assert tokens.count(blob) > 0


def test_special_token_text_is_ordinary_text():
    assert tokens.count("a <|endoftext|> b") > 3


def test_truncate_a_multi_megabyte_text():
    text = _varied_text(2_000_000, seed=3)
    head = tokens.truncate(text, 1000)
    assert text.startswith(head[:-8]) and tokens.count(head) <= 1000
    assert tokens.truncate("short text", 1000) == "short text"
