"""Redaction: every text passes through :func:`redact` before it is stored or sent.

A secret is replaced by a stable placeholder ``[REDACTED:<kind>:<8 hex>]``, the hex being
the start of the SHA-256 of the secret itself, so two mentions of one key still match each
other while the key is gone. ``redact`` is idempotent: placeholders are never redacted again.

Order: Dream's rules first (token shapes, then keyword assignments, headers and
statements; see ``rules.py``), then the maintained detector's plugins (``detector.py``) on
what is left, so the detector's catalogue catches every kind Dream's rules do not know.

Speed matters (all collected text passes through here). The pre-pass is one run of an
Aho-Corasick automaton over the lower-cased text, finding every hint of every rule and
plugin and where it is; most text holds none. A woken rule reads only the lines holding
its hints (a multi-line rule, the whole text), and after a replacement the hints are
found again, since positions moved.
"""

from __future__ import annotations

import hashlib
import re

from ahocorasick_rs import AhoCorasick

from dream.jsontext import whole
from dream.secrets import detector
from dream.secrets.rules import RULES, Rule
from dream.terminal import ESCAPE_TAIL

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


# rules are numbered first, then the plugins the detector's hint table names; the table is
# plain data, so the automaton is built without importing the detector
_FIRST_PLUGIN = len(RULES)
_PLUGIN_NAMES = tuple(detector.HINTS)
_GROUPS: list[tuple[str, ...] | None] = [rule.hints for rule in RULES] + \
    [detector.HINTS[name] for name in _PLUGIN_NAMES]
_ALWAYS = frozenset(n for n, hints in enumerate(_GROUPS) if hints is None)  # rules only


class _Detector:
    """The detector's plugins, imported on first need (see ``detector.py``): at once when
    the installed release has plugins the hint table may not name, else when a text holds
    one of the table's hints."""

    numbered: list[detector.Plugin | None] | None = None  # by number - _FIRST_PLUGIN
    always: tuple[detector.Plugin, ...] = ()              # plugins the table does not name

    @classmethod
    def load(cls) -> list[detector.Plugin | None]:
        if cls.numbered is None:
            every = detector.plugins()
            by_name = {plugin.name: plugin for plugin in every}
            cls.always = tuple(p for p in every if p.hints is None)
            cls.numbered = [by_name.get(name) for name in _PLUGIN_NAMES]
        return cls.numbered

    @classmethod
    def loaded(cls) -> bool:
        return cls.numbered is not None


if not detector.catalogue_covered():
    _Detector.load()


def _build() -> tuple[AhoCorasick, list[tuple[str, tuple[tuple[int, bool], ...]]]]:
    """One automaton over every distinct hint, lower-cased; each hint knows the rules and
    plugins it wakes and whether it must match in its own case (``AKIA``)."""
    index: dict[str, dict[str, set[int]]] = {}
    for number, hints in enumerate(_GROUPS):
        for hint in hints or ():
            index.setdefault(hint.lower(), {}).setdefault(hint, set()).add(number)
    entries = []
    for low, forms in sorted(index.items()):
        wakes = {}
        for form, numbers in forms.items():
            for n in numbers:
                wakes[n] = wakes.get(n, True) and form != low  # cased only if every form is
        entries.append((low, tuple(sorted(wakes.items()))))
    return AhoCorasick([low for low, _ in entries]), entries


_AUTOMATON, _ENTRIES = _build()


def _woken(text: str, lowered: str) -> dict[int, list[int]]:
    """Rule or plugin number -> where its hints start in the text (one pass of the
    automaton; a hint that must match in its case is checked against the text)."""
    out: dict[int, list[int]] = {}
    same = len(lowered) == len(text)
    for number, start, end in _AUTOMATON.find_matches_as_indexes(lowered, overlapping=True):
        low, wakes = _ENTRIES[number]
        for n, cased in wakes:
            if cased and same and text[start:end] == low:
                continue  # 'akia' in prose, not 'AKIA'
            out.setdefault(n, []).append(start)
    return out


def _lines_at(text: str, positions: list[int]) -> list[tuple[int, int]]:
    """Spans of the lines holding the given positions, merged and in order."""
    spans: list[tuple[int, int]] = []
    for at in sorted(positions):
        if spans and at <= spans[-1][1]:
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if spans and start <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _apply_lines(rule: Rule, text: str, positions: list[int], exact: bool) -> tuple[str, int]:
    """Apply a one-line rule to the lines holding its hints only."""
    if rule.multiline or not exact or "\n" not in text:
        return _apply(rule, text)
    spans = _lines_at(text, positions)
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


# terminal escape sequences (colours, cursor moves, titles), as the ESC byte writes them
# (dream.terminal's sequences) and as pasted logs spell them out ('\x1b[31m', '\u001b[0m',
# '\033[1m', '^[[31m'), or colour codes whose ESC a copy lost ('[1;31m', '[0m')
_ANSI_RE = re.compile(r"\x1b" + ESCAPE_TAIL +
                      r"|(?:\\x1b|\\u001b|\\033|\^\[)\[[0-?]*[ -/]*[@-~]"
                      r"|\[[0-9;]{0,16}m", re.IGNORECASE)
_ANSI_HINTS = ("\x1b", "\\x1b", "\\u001b", "\\033", "^[[")
_COLOUR_LEFT_RE = re.compile(r"\[[0-9;]{0,16}m")      # a colour code without its ESC


def redact(text: str) -> tuple[str, int]:
    """Return ``text`` with every secret replaced by a stable placeholder, and the count.

    Terminal colour codes are seen through: a text holding escape sequences (pasted
    ``gitleaks`` output colours a key red) is also read without them, and when that shows
    more secrets the text is kept without its escape sequences (which carry no meaning in
    stored evidence), redacted; otherwise the text keeps them."""
    try:
        out, count = _redact(text)
    except UnicodeEncodeError:
        # a lone surrogate: a byte of a file name that is not UTF-8 (Python keeps it as
        # one), half an emoji; no stored text can hold it, so it becomes U+FFFD
        text = whole(text)
        out, count = _redact(text)
    if text and (any(hint in text for hint in _ANSI_HINTS) or
                 ("[" in text and _COLOUR_LEFT_RE.search(text))):
        plain = _ANSI_RE.sub("", text)
        if plain != text:
            plain_out, plain_count = _redact(plain)
            if plain_count > count:
                return plain_out, plain_count
    return out, count


def _redact(text: str) -> tuple[str, int]:
    if not text:
        return text, 0
    lowered = text.lower()
    woken = _woken(text, lowered)
    if not woken and not (_ALWAYS or (_Detector.always and _use_detector)):
        return text, 0  # the common case: nothing to look for
    count = 0
    for number in sorted(n for n in woken if n < _FIRST_PLUGIN):
        positions = woken.get(number)
        if positions is None:
            continue  # its hint was inside a secret already replaced
        new, hits = _apply_lines(RULES[number], text, positions, len(lowered) == len(text))
        if hits:
            text, count, lowered = new, count + hits, new.lower()
            woken = _woken(text, lowered)  # positions moved
    if not _use_detector:
        return text, count
    wanted = sorted(n for n in woken if n >= _FIRST_PLUGIN)
    if not wanted and not _Detector.always:
        return text, count  # no plugin has a hint here, and none reads every text
    numbered = _Detector.load()
    plugins = [(plugin, woken[n]) for n in wanted
               if (plugin := numbered[n - _FIRST_PLUGIN]) is not None]
    plugins += [(plugin, None) for plugin in _Detector.always]
    if plugins:
        found: dict[str, str] = {}
        exact = len(lowered) == len(text)
        for plugin, positions in plugins:
            spans = _lines_at(text, positions) if positions and exact else [(0, len(text))]
            for kind, value in detector.find(plugin, [text[a:b] for a, b in spans]):
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
