"""What a pass returns: candidate proposals (each with the spool items behind it) and a
journal entry saying what the pass looked at, what it found and what evidence was missing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dream.items import Item
from dream.secrets import redact, strip_placeholders

PASS_NAMES = ("memory", "failures", "tools", "corrections", "codify", "project")
KINDS = ("memory", "code", "instruction")
SIZES = ("S", "M", "L")
RISKS = ("low", "medium", "high")
MAX_REFS = 8


@dataclass
class Candidate:
    """A proposal before its citations are checked and it is stored."""

    slug: str
    pass_name: str
    kind: str                         # memory | code | instruction
    title: str
    size: str
    risk: str
    items: list[Item]                 # the evidence behind it, from the spool
    change: dict[str, Any]
    strength: float                   # how strong the finding is (ranks learned lines)
    finding: str                      # one plain line saying what was found
    replaces: list[str] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)  # extra: commit:<sha>, path:line

    def evidence(self) -> list[str]:
        """Citations: the sessions, then the exact references of the items, then extras."""
        sessions = [f"session:{s}" for s in dict.fromkeys(i.stream for i in self.items)]
        refs = list(dict.fromkeys(i.ref for i in self.items))[:MAX_REFS]
        return sessions + refs + [c for c in self.citations if c not in refs]

    def item_ids(self) -> list[str]:
        return sorted({i.id for i in self.items})


@dataclass
class PassResult:
    name: str
    candidates: list[Candidate] = field(default_factory=list)
    journal: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"                # ok | failed
    error: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0


_SLUG_WORD = re.compile(r"[a-z0-9]+")
_SLUG_SKIP = {"the", "a", "an", "of", "to", "and", "in", "on", "for", "n", "path", "file",
              "hex", "tmp", "uuid", "time", "is", "it", "be", "with"}


def slugify(pass_name: str, text: str, max_words: int = 6) -> str:
    text = strip_placeholders(redact(text)[0])  # a slug is never made from a secret
    words = [w for w in _SLUG_WORD.findall(text.lower()) if w not in _SLUG_SKIP]
    body = "-".join(words[:max_words]) or "finding"
    return f"{pass_name}-{body}"[:60].rstrip("-")


def unique_slugs(candidates: list[Candidate]) -> None:
    """Make slugs unique within one pass result (deterministic suffixes)."""
    seen: dict[str, int] = {}
    for cand in candidates:
        n = seen.get(cand.slug, 0)
        seen[cand.slug] = n + 1
        if n:
            cand.slug = f"{cand.slug}-{n + 1}"


def clip(text: str, limit: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_CITATION = re.compile(
    r"(?<![\w/.-])(session:[\w.@-]+|commit:[0-9a-fA-F]{7,40}|item:[\w-]+"
    r"|(?:[\w.-]+/)*[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,7}:\d+)(?![\w])"
)


def find_citations(text: str) -> list[str]:
    """Citations written in free text (a handoff line): ``session:<id>``, ``commit:<sha>``,
    ``item:<id>`` and ``path:line``."""
    return list(dict.fromkeys(m.group(1) for m in _CITATION.finditer(text or "")))


_HEADING = re.compile(r"^\s*(?:#{1,6}\s*(.+?)\s*#*\s*|([A-Za-z][A-Za-z /-]{2,40}):\s*)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")


def handoff_section(text: str, word: str) -> list[str]:
    """Bullet lines (or plain lines) under the handoff headings that contain ``word``
    (``## User corrections``, ``Memory slugs:`` ...)."""
    out: list[str] = []
    inside = False
    for line in (text or "").splitlines():
        heading = _HEADING.match(line)
        if heading:
            title = (heading.group(1) or heading.group(2) or "").lower()
            inside = word in title
            continue
        if not inside or not line.strip():
            continue
        bullet = _BULLET.match(line)
        out.append((bullet.group(1) if bullet else line).strip())
    return out
