"""Redaction: every text passes through :func:`redact` before it is stored or sent.

A secret is replaced by a stable placeholder ``[REDACTED:<kind>:<8 hex>]``, the hex being
the start of the SHA-256 of the secret itself, so two mentions of one key still match each
other while the key is gone. ``redact`` is idempotent: placeholders are never redacted again.

Order: Dream's rules first (token shapes, then keyword assignments, headers and
statements; see ``rules.py``), then the maintained detector's plugins (``detector.py``) on
what is left, so the detector's catalogue catches every kind Dream's rules do not know.

Speed matters (all collected text passes through here). The pre-pass looks for any hint
of any rule or plugin with ``in`` (at C speed, on the text and its lower-cased copy); most
text holds none and costs a few substring scans. The rest runs only where its hints are.
"""

from __future__ import annotations

import hashlib
import re

from dream.secrets import detector
from dream.secrets.rules import RULES, Rule

PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9\-]+:[0-9a-f]{8}\]")
_PLACEHOLDER_PREFIX = "[REDACTED:"
_use_detector = True


def use_detector(on: bool) -> None:
    """Turn the maintained detector off or on (benchmarks compare the two; Dream never
    turns it off)."""
    global _use_detector
    _use_detector = on


def placeholder(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"[REDACTED:{kind}:{digest}]"


def _case(hints: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (tuple(h for h in hints if h == h.lower()), tuple(h for h in hints if h != h.lower()))


_RULE_HINTS = [(rule, *_case(rule.hints)) for rule in RULES]
_PLUGINS = detector.plugins()
_PLUGIN_ALWAYS = frozenset(len(RULES) + n for n, p in enumerate(_PLUGINS) if p.hints is None)


def _index(groups: list[tuple[str, ...] | None]) -> tuple[tuple[str, frozenset[int]], ...]:
    """Each distinct hint, lower-cased, with the numbers of the rules and plugins it wakes
    (one ``in`` per hint on the lower-cased text; a rule's own pattern checks the case)."""
    index: dict[str, set[int]] = {}
    for number, hints in enumerate(groups):
        for hint in hints or ():
            index.setdefault(hint.lower(), set()).add(number)
    return tuple((h, frozenset(n)) for h, n in sorted(index.items()))


# rules are numbered first, then the detector's plugins
_INDEX = _index([rule.hints for rule in RULES] + [plugin.hints for plugin in _PLUGINS])
_FIRST_PLUGIN = len(RULES)


def _woken(lowered: str) -> set[int]:
    """Numbers of the rules and plugins whose hints the text holds."""
    out: set[int] = set()
    for hint, numbers in _INDEX:  # a plain loop: half the cost of any() over a generator
        if hint in lowered:
            out |= numbers
    return out


def _lines_with(text: str, lowered: str, lower: tuple[str, ...],
                cased: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of the lines of ``text`` holding a hint, merged and in order (found with
    ``str.find``, so a long tool output costs a few scans, not a regex over all of it)."""
    found: list[tuple[int, int]] = []
    for hints, hay in ((lower, lowered), (cased, text)):
        for hint in hints:
            at = hay.find(hint)
            while at >= 0:
                start = hay.rfind("\n", 0, at) + 1
                end = hay.find("\n", at + len(hint))
                end = len(hay) if end < 0 else end
                found.append((start, end))
                at = hay.find(hint, end)
    found.sort()
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _apply_lines(rule: Rule, text: str, lowered: str, lower: tuple[str, ...],
                 cased: tuple[str, ...]) -> tuple[str, int]:
    """Apply a one-line rule to the lines holding its hints only."""
    if rule.multiline or "\n" not in text or len(lowered) != len(text):
        return _apply(rule, text)
    spans = _lines_with(text, lowered, lower, cased)
    if len(spans) == 1 and spans[0] == (0, len(text)):
        return _apply(rule, text)
    parts: list[str] = []
    done = hits = 0
    for start, end in spans:
        new, found = _apply(rule, text[start:end])
        if found:
            parts += [text[done:start], new]
            done, hits = end, hits + found
    if not hits:
        return text, 0
    parts.append(text[done:])
    return "".join(parts), hits


def _apply(rule: Rule, text: str) -> tuple[str, int]:
    hits = 0
    # placeholders already in the text are never matched again, in part or whole
    taken = [m.span() for m in PLACEHOLDER_RE.finditer(text)] \
        if _PLACEHOLDER_PREFIX in text else []

    def sub(match: re.Match[str]) -> str:
        nonlocal hits
        if taken:
            start, end = match.span("s") if rule.grouped and match.group("s") else match.span()
            if any(a < end and start < b for a, b in taken):
                return match.group(0)
        if not rule.grouped:
            if rule.check is not None and not rule.check(match.group(0)):
                return match.group(0)
            hits += 1
            return placeholder(rule.kind, match.group(0))
        secret = match.group("s")
        if secret is None or secret.startswith(_PLACEHOLDER_PREFIX) or "[REDACTED:" in secret:
            return match.group(0)
        if rule.check is not None and not rule.check(secret):
            return match.group(0)
        hits += 1
        start, end = match.span("s")
        base = match.start()
        whole = match.group(0)
        return whole[: start - base] + placeholder(rule.kind, secret) + whole[end - base:]

    return rule.pattern.sub(sub, text), hits


def redact(text: str) -> tuple[str, int]:
    """Return ``text`` with every secret replaced by a stable placeholder, and the count."""
    if not text:
        return text, 0
    lowered = text.lower()
    woken = _woken(lowered)
    if _use_detector:
        woken |= _PLUGIN_ALWAYS
    if not woken:
        return text, 0  # the common case: nothing to look for
    count = 0
    plugins: list[detector.Plugin] = []
    for number in sorted(woken):
        if number >= _FIRST_PLUGIN:
            plugins.append(_PLUGINS[number - _FIRST_PLUGIN])
            continue
        rule, lower, cased = _RULE_HINTS[number]
        if cased and not lower and not any(h in text for h in cased):
            continue  # the hint was there in another case only
        new, hits = _apply_lines(rule, text, lowered, lower, cased)
        if hits:
            text, count, lowered = new, count + hits, new.lower()
    if plugins and _use_detector:
        found: dict[str, str] = {}
        for kind, value in detector.find(text, lowered, plugins):
            found.setdefault(value, kind)
        for value in sorted(found, key=len, reverse=True):  # longer first: no half-replaced
            if value in text:
                count += text.count(value)
                text = text.replace(value, placeholder(found[value], value))
    return text, count


def redact_all(values: list[str]) -> tuple[list[str], int]:
    out, total = [], 0
    for value in values:
        new, hits = redact(value)
        out.append(new)
        total += hits
    return out, total


# a placeholder whose brackets and colons were already dropped by a slugger ('redacted
# slack webhook 8c35d6c2'), up to its hash or, when clipped, the end
_WORDED = re.compile(r"\bredacted\b.*?(?:\b[0-9a-f]{8}\b|$)", re.IGNORECASE | re.DOTALL)


def strip_placeholders(text: str) -> str:
    """``text`` without its placeholders, whole or already cut into words, for building
    names and slugs: a file name or a slug is never built from a redacted span."""
    if _PLACEHOLDER_PREFIX in text:
        text = PLACEHOLDER_RE.sub(" ", text)
    if "redacted" in text.lower():
        text = _WORDED.sub(" ", text)
    return text


def has_secret(text: str) -> bool:
    """True when ``text`` holds something :func:`redact` would replace."""
    return redact(text)[1] > 0


def kinds() -> list[str]:
    """The kinds Dream's own rules know, in matching order (the detector adds its own,
    named ``ds-<secret type>``)."""
    return [rule.kind for rule in RULES]
