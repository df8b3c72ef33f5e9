"""Normalised error signatures: the cause of a failing tool result, without the noise.

Two failures have the same cause when their signatures are equal. A signature is the most
telling line of the output (an exception line, an ``error:`` line, a ``FAILED`` line, ...)
with paths, numbers, hex, line numbers, uuids, durations and temporary names replaced by
placeholders, so the same failure in another checkout, at another line or on another day
groups together.
"""

from __future__ import annotations

import re

_PLACEHOLDERS = [
    (re.compile(r"\[REDACTED:[^\]]*\]"), "<secret>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE), "<uuid>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+-]+)+/?"), "<path>"),
    (re.compile(r"\b(?:tmp|temp)[A-Za-z0-9_.-]*", re.IGNORECASE), "<tmp>"),
    (re.compile(r"\b[\w.-]+\.(?:py|js|ts|tsx|jsx|rs|go|rb|ex|exs|java|kt|c|h|cpp|md|json|toml"
                r"|ya?ml|txt|sh|lock|cfg|ini|html|css)\b"), "<file>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.IGNORECASE), "<hex>"),
    (re.compile(r"\b[0-9a-f]{7,}\b", re.IGNORECASE), "<hex>"),
    (re.compile(r"(<(?:path|file)>)(?::\d+)+"), r"\1"),
    (re.compile(r"\bline \d+\b", re.IGNORECASE), "line <n>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|m|min|minutes)\b"), "<time>"),
    (re.compile(r"\b\d+(?:[.,:]\d+)*\b"), "<n>"),
]

_CAUSE_LINE = [
    re.compile(r"^\s*(?:E\s+)?[A-Z][A-Za-z0-9_.]*(?:Error|Exception|Exit|Interrupt)\b.*"),
    re.compile(r"^\s*(?:FAILED|FAIL|ERROR)\b.*"),
    re.compile(r".*\b(?:command not found|No such file or directory|Permission denied"
               r"|not recognized as|cannot find|could not|unable to|failed to|timed out"
               r"|is not defined|undefined|unresolved|refused|denied)\b.*", re.IGNORECASE),
    re.compile(r"^\s*(?:error|fatal|panic)(?:\[[^\]]*\])?\s*[:!].*", re.IGNORECASE),
    re.compile(r".*\b(?:error|failed|failure)\b.*", re.IGNORECASE),
]
_NOISE_LINE = re.compile(r"^\s*(?:Traceback|\^+|~+|at |File \"|\s*$|-+$|=+$|\d+ (?:passed|failed))")
_MAX = 160


def signature(text: str) -> str:
    """The normalised signature of a failing tool result ('' when there is no text)."""
    line = cause_line(text)
    return normalise(line) if line else ""


def cause_line(text: str) -> str:
    lines = [ln.rstrip() for ln in (text or "").splitlines() if ln.strip()]
    if not lines:
        return ""
    if lines[0].startswith("$ "):          # a result that names its command
        lines = lines[1:] or lines
    for pattern in _CAUSE_LINE:
        # the last matching line is usually the cause (a traceback ends with it)
        for line in reversed(lines):
            if len(line) <= 400 and pattern.match(line) and not _NOISE_LINE.match(line):
                return re.sub(r"^\s*E\s+(?=[A-Z])", "", line).strip()
    for line in lines:
        if not _NOISE_LINE.match(line):
            return line.strip()[:400]
    return lines[0].strip()[:400]


_TAG = re.compile(r"</?[A-Za-z][\w-]*>")


def normalise(line: str) -> str:
    out = _TAG.sub(" ", line).strip()          # <tool_use_error>...</tool_use_error>
    for pattern, repl in _PLACEHOLDERS:
        out = pattern.sub(repl, out)
    out = re.sub(r"(<(?:n|hex|path)>)(?:[\s,;:-]*\1)+", r"\1", out)
    out = re.sub(r"\s+", " ", out).strip(" :-")
    return out[:_MAX]


def normalise_command(command: str) -> str:
    """A command with its volatile parts (paths of temp files, numbers, hashes) replaced, so
    ``pytest -k 12`` and ``pytest -k 13`` count as the same manual step."""
    out = command.strip()
    out = re.sub(r"\b(?:tmp|temp)[A-Za-z0-9_.-]*", "<tmp>", out, flags=re.IGNORECASE)
    out = re.sub(r"\b[0-9a-f]{7,40}\b", "<hex>", out, flags=re.IGNORECASE)
    out = re.sub(r"(?<![\w-])\d+(?![\w])", "<n>", out)
    return re.sub(r"\s+", " ", out)[:200]
