"""Secret redaction: every text is passed through :func:`redact` before it reaches the spool,
a store or a model.

A secret is replaced by a stable placeholder ``[REDACTED:<kind>:<8 hex>]`` where the hex is
the start of the SHA-256 of the secret itself, so two mentions of one key still match each
other while the key is gone. Patterns are ours (detect-secrets is a scanner over files with
plugins and baselines, not a text redactor); each has a test in tests/test_redaction.py.

Speed matters (all collected text passes through here): the patterns are compiled once,
and each runs only when the text holds one of its literal hints, so text that cannot hold
a secret costs a few substring scans.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

# (kind, hints, pattern). A pattern runs only on text containing one of its hints (checked
# with 'in', at C speed, on the text or on its lower-cased copy for hints in lower case);
# most text contains none, so the regexes rarely run. The part replaced is the named group
# 's' when the pattern has one (so 'PASSWORD=' or 'Bearer ' stays readable), otherwise the
# whole match. Order matters: specific token shapes before generic assignments.
_PATTERNS: list[tuple[str, tuple[str, ...], str]] = [
    ("private-key", ("-----BEGIN",),
     (r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?"
      r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")),
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("slack-token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google-api-key", ("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("aws-key", ("AKIA", "ASIA", "ABIA", "ACCA"), r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("aws-secret", ("secret",),
     (r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
      r"(?P<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])")),
    ("bearer-token", ("bearer",), r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9_\-\.=~+/]{20,})"),
    ("url-password", ("://",),
     r"://[^\s:/@\"'<>]{1,100}:(?P<s>[^\s@/\"'<>]{1,200})@[A-Za-z0-9.\-\[\]]"),
    ("env-secret", ("password", "passwd", "secret", "token", "api_key", "apikey",
                    "access_key", "accesskey", "private_key", "privatekey", "credential"),
     (r"(?:(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
      r"[A-Z0-9_]*|(?:password|passwd|secret|token|api_?key|access_?key|private_?key|"
      r"credentials?)[a-z0-9_]*)[\"']?[ \t]*[=:][ \t]*[\"']?"
      # the value: not a placeholder, a number, or a literal
      r"(?P<s>(?![0-9a-f]{8}\])(?![0-9.]+(?:[\s\"',;]|$))(?!(?:true|false|null|none)\b)"
      r"[^\s\"'`,;]{6,})")),
]

_PLACEHOLDER_PREFIX = "[REDACTED:"


@dataclass(frozen=True)
class _Rule:
    kind: str
    hints: tuple[str, ...]
    lower: bool            # hints are matched against the lower-cased text
    pattern: re.Pattern[str]
    has_group: bool


_RULES = [
    _Rule(kind, hints, all(h == h.lower() for h in hints) and kind not in (
        "anthropic-key", "openai-key", "stripe-key", "github-token", "slack-token",
        "url-password"), re.compile(pattern), "(?P<s>" in pattern)
    for kind, hints, pattern in _PATTERNS
]


# Every hint in lower case, for the first check; a hint containing a shorter one ('sk-ant-'
# holds 'sk-') is left out, since text holding it holds the shorter one too.
_ALL_HINTS = tuple(sorted(
    hint for hint in {h.lower() for rule in _RULES for h in rule.hints}
    if not any(other != hint and other in hint
               for other in {h.lower() for rule in _RULES for h in rule.hints})))


def placeholder(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"[REDACTED:{kind}:{digest}]"


def redact(text: str) -> tuple[str, int]:
    """Return ``text`` with every secret replaced by a stable placeholder, and the count."""
    if not text:
        return text, 0
    lowered: str | None = text.lower()
    for hint in _ALL_HINTS:  # a plain loop: half the cost of any() over a generator
        if hint in lowered:
            break
    else:
        return text, 0  # the common case: nothing to look for
    count = 0
    for rule in _RULES:
        if rule.lower:
            if lowered is None:
                lowered = text.lower()
            haystack = lowered
        else:
            haystack = text
        if not any(h in haystack for h in rule.hints):
            continue
        hits = 0

        def sub(match: re.Match[str], rule: _Rule = rule) -> str:
            nonlocal hits
            if not rule.has_group:
                hits += 1
                return placeholder(rule.kind, match.group(0))
            secret = match.group("s")
            if secret.startswith(_PLACEHOLDER_PREFIX):
                return match.group(0)
            hits += 1
            start, end = match.span("s")
            base = match.start()
            whole = match.group(0)
            return whole[: start - base] + placeholder(rule.kind, secret) + whole[end - base:]

        new = rule.pattern.sub(sub, text)
        if hits:
            text, count, lowered = new, count + hits, None
    return text, count


def kinds() -> list[str]:
    """The secret kinds this module knows, in matching order."""
    return [rule.kind for rule in _RULES]
