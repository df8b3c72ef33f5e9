"""Secret redaction: every text is passed through :func:`redact` before it reaches the spool,
a store or a model.

A secret is replaced by a stable placeholder ``[REDACTED:<kind>:<8 hex>]`` where the hex is
the start of the SHA-256 of the secret itself, so two mentions of one key still match each
other while the key is gone. Patterns are ours (detect-secrets is a scanner over files with
plugins and baselines, not a text redactor); each has a test in tests/test_redaction.py.

Speed matters (all collected text passes through here): the patterns are compiled once into
a single alternation with named groups, and a cheap literal pre-check skips the regex
entirely for text that cannot hold any secret.
"""

from __future__ import annotations

import hashlib
import re

# (kind, pattern). The part to replace is the named group 's' when the pattern has one
# (so 'PASSWORD=' or 'Bearer ' stays readable), otherwise the whole match.
_PATTERNS: list[tuple[str, str]] = [
    ("private-key",
     r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?"
     r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("aws-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("aws-secret",
     r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
     r"(?P<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    ("bearer-token", r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9_\-\.=~+/]{20,})"),
    ("url-password",
     r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'<>]{1,100}:(?P<s>[^\s@/\"'<>]{1,200})@"
     r"[A-Za-z0-9.\-\[\]]"),
    ("env-secret",
     r"(?m:(?:^|(?<=[\s;,{(\"']))(?:export\s+)?"
     r"(?:[A-Z0-9_.\-]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|"
     r"CREDENTIALS?)[A-Z0-9_]*|[a-z0-9_.\-]*(?:password|passwd|secret|token|api_?key|"
     r"access_?key|private_?key)[a-z0-9_]*)"
     r"[\"']?[ \t]*[=:][ \t]*[\"']?"
     r"(?P<s>(?![0-9.]+(?:[\s\"',;]|$))(?!(?:true|false|null|none)\b)[^\s\"'`,;]{6,}))"),
]

_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z\-]+:[0-9a-f]{8}\]")

# Literal hints: a text containing none of these (case-insensitively) cannot match any
# pattern, so the alternation is skipped. Keep in step with _PATTERNS.
_HINTS = ("-----begin", "sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
          "github_pat_", "xox", "aiza", "akia", "asia", "abia", "acca", "secret", "bearer",
          "://", "passw", "token", "api_key", "apikey", "access_key", "accesskey",
          "private_key", "privatekey", "credential")


def _compile() -> tuple[re.Pattern[str], dict[str, str]]:
    parts, names = [], {}
    for index, (kind, pattern) in enumerate(_PATTERNS):
        group = f"k{index}"
        names[group] = kind
        parts.append(f"(?P<{group}>{pattern.replace('(?P<s>', f'(?P<{group}s>')})")
    return re.compile("|".join(parts)), names


_SECRETS_RE, _KINDS = _compile()
_HINTS_RE = re.compile("|".join(re.escape(h) for h in _HINTS), re.IGNORECASE)


def placeholder(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"[REDACTED:{kind}:{digest}]"


def _replace(match: re.Match[str]) -> str:
    group = match.lastgroup
    assert group is not None
    kind = _KINDS[group]
    inner = match.group(group + "s") if (group + "s") in match.re.groupindex else None
    if inner is None:
        return placeholder(kind, match.group(group))
    secret = inner
    if _PLACEHOLDER_RE.fullmatch(secret) or secret.startswith("[REDACTED:"):
        return match.group(group)
    start, end = match.span(group + "s")
    whole_start = match.start(group)
    text = match.group(group)
    return (text[: start - whole_start] + placeholder(kind, secret)
            + text[end - whole_start:])


def redact(text: str) -> tuple[str, int]:
    """Return ``text`` with every secret replaced by a stable placeholder, and the count."""
    if not text or _HINTS_RE.search(text) is None:
        return text, 0
    count = 0

    def sub(match: re.Match[str]) -> str:
        nonlocal count
        out = _replace(match)
        if out != match.group(0):
            count += 1
        return out

    return _SECRETS_RE.sub(sub, text), count


def kinds() -> list[str]:
    """The secret kinds this module knows, in matching order."""
    return [kind for kind, _ in _PATTERNS]
