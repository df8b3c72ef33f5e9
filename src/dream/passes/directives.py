"""What users tell agents: corrections, standing requests and things to remember.

Only genuine user statements (the gate's ``kind='statement'``) are read; the assistant's own
prose is never a correction. A statement is split into sentences; a sentence is a
*correction* when it pushes back or sets a standing rule ("no, ...", "don't", "stop",
"I said", "instead", "always", "never", "use X not Y"), and a *memory* sentence when it asks
to be remembered or states a preference ("remember that ...", "I prefer ...",
"from now on ..."). Corrections are grouped by normalised text: two sentences belong to
one group when their content words overlap enough (deterministic, order-independent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dream.passes.evidence import Item

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|(?:\\n)+")
_PASTED = re.compile(r"^(?:[+-]\s*\d|>\s|\d+\s*[│|]|[{}\[\]])|\*\*|```")
_CORRECTION = re.compile(
    r"^(?:no|nope|wrong)\s*[,.!:]|^stop\b|^no\s+\w+(?:\s+\w+)?\s*!"
    r"|(?:^|[,;:]\s*|\bplease\s+|\band\s+)(?:don'?t|do not|never|always|stop|quit)\b"
    r"|\b(?:i said|i told you|i asked you|instead|rather than|not\s+\w+\s*,?\s+but"
    r"|you should(?:n'?t)?|you must(?:n'?t)?|should not|shouldn'?t|must not|no longer"
    r"|(?:must|should)\s+(?:never|always)"
    r"|(?:use|prefer)\s+[\w.+#/-]+\s*,?\s+not)\b",
    re.IGNORECASE,
)
_MEMORY = re.compile(
    r"\b(?:remember(?: that)?|keep in mind|note that|for future reference|from now on"
    r"|i prefer|i'd prefer|i would prefer|i like|i don'?t like|my preference|i always|i never"
    r"|my (?:name|email|timezone|role|team) is|call me)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(r"^(?:what|why|how|when|where|who|which|can|could|would|is|are"
                             r"|do|does)\b", re.IGNORECASE)
_FILLER = {
    "no", "nope", "please", "again", "i", "said", "told", "you", "ok", "okay", "so", "just",
    "the", "a", "an", "to", "and", "of", "it", "this", "that", "is", "be", "for", "in", "on",
    "with", "we", "me", "my", "your", "our", "are", "was", "as", "at", "by", "or", "can",
    "will", "would", "should", "asked", "already", "still", "really", "all", "its", "it's",
}
_NEGATIONS = {"don't": "not", "dont": "not", "do": "", "never": "not", "stop": "not",
              "shouldn't": "not", "quit": "not", "avoid": "not"}
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#/-]*", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    text: str
    item: Item


@dataclass
class Group:
    """Sentences that say the same thing."""

    key: str                                   # normalised text of the first sentence
    words: frozenset[str]
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(s.item.stream for s in self.sentences))

    @property
    def items(self) -> list[Item]:
        return list({s.item.id: s.item for s in self.sentences}.values())

    @property
    def latest(self) -> Sentence:
        return max(self.sentences, key=lambda s: (s.item.said_at or "", s.item.seq))

    @property
    def rule(self) -> str:
        """What the user said most recently, every sentence of it that is in the group."""
        item = self.latest.item
        parts = [plain_rule(s.text).rstrip(".!") for s in self.sentences
                 if s.item.id == item.id]
        return ". ".join(dict.fromkeys(parts)) + "."


def sentences(item: Item) -> list[str]:
    text = (item.text or "").strip()
    if not text or text.startswith("<"):           # command wrappers, system caveats
        return []
    out = []
    for part in _SENTENCE.split(text):
        part = part.strip(" \t-*>\"'")
        if 3 <= len(part) <= 300 and not part.startswith(("$ ", "<")) \
                and not _PASTED.search(part):
            out.append(part)
    return out


_LEAD_IN = re.compile(
    r"^(?:(?:no|nope|ok|okay|again|also|and|so|but|hm+|well|please|btw)\b[\s,.!:;-]*"
    r"|(?:i (?:said|told you|asked you|already said)(?: that)?|as i said)\b[\s,:;-]*"
    r"|(?:please |also |and )?(?:remember|keep in mind|note|for future reference)(?: that)?"
    r"\b[\s,:;-]*)+",
    re.IGNORECASE,
)


def plain_rule(sentence: str) -> str:
    """A sentence without its conversational lead-in ("no,", "I said", "remember that"),
    starting with a capital: what goes into a note or an instructions file."""
    text = _LEAD_IN.sub("", sentence.strip()).strip()
    text = re.sub(r"[\s,]+(?:btw|please|thanks|thank you)([.!]?)$", r"\1", text,
                  flags=re.IGNORECASE)
    if not text:
        return sentence.strip()
    return text[0].upper() + text[1:]


def is_correction(sentence: str) -> bool:
    if sentence.endswith("?") or _QUESTION_START.match(sentence):
        return False
    return bool(_CORRECTION.search(sentence))


def is_memory(sentence: str) -> bool:
    if sentence.endswith("?"):
        return False
    return bool(_MEMORY.search(sentence))


def words(sentence: str) -> frozenset[str]:
    out = set()
    for raw in _WORD.findall(sentence.lower().replace("’", "'")):
        w = raw.strip(".,")
        w = _NEGATIONS.get(w, w)
        if w and w not in _FILLER and len(w) > 1:
            out.add(_stem(w))
    return frozenset(out)


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def ordered_words(sentence: str) -> list[str]:
    """Content words in the order they were said (for readable slugs)."""
    out = []
    for raw in _WORD.findall(sentence.lower().replace("’", "'")):
        w = _NEGATIONS.get(raw.strip(".,"), raw.strip(".,"))
        if w and w not in _FILLER and len(w) > 1 and w not in out:
            out.append(w)
    return out


def normalised(sentence: str) -> str:
    return " ".join(sorted(words(sentence)))


def same(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    inter = len(a & b)
    return inter / len(a | b) >= 0.5 or (inter >= 2 and inter / min(len(a), len(b)) >= 0.75)


def group(found: list[Sentence]) -> list[Group]:
    """Group sentences that say the same thing, in evidence order (deterministic)."""
    groups: list[Group] = []
    for sentence in sorted(found, key=lambda s: s.item.seq):
        w = words(sentence.text)
        if len(w) < 2:
            continue
        target = next((g for g in groups if same(g.words, w)), None)
        if target is None:
            target = Group(key=normalised(sentence.text), words=w)
            groups.append(target)
        target.sentences.append(sentence)
    return groups


def corrections(statements: list[Item]) -> list[Sentence]:
    return [Sentence(s, item) for item in statements for s in sentences(item) if is_correction(s)]


def memories(statements: list[Item]) -> list[Sentence]:
    return [Sentence(s, item) for item in statements for s in sentences(item) if is_memory(s)]


def repeated(groups: list[Group]) -> list[Group]:
    """Groups said at least twice (in two statements)."""
    return [g for g in groups if len(g.items) >= 2]


_REJECTED = [
    re.compile(r"\b(?:instead of|rather than)\s+(?:using\s+)?([\w.+#/-]+(?:\s[\w.+#/-]+)?)", re.IGNORECASE),
    re.compile(r"\b(?:don'?t|do not|never|stop|no longer)\s+(?:use|using|run|running|call"
               r"|calling|add|adding)\s+([\w.+#/-]+)", re.IGNORECASE),
    re.compile(r"\bnot\s+([\w.+#/-]+)\s*$", re.IGNORECASE),
    re.compile(r"\b(?:use|prefer|with|choose)\s+[\w.+#/-]+\s*,?\s+not\s+([\w.+#/-]+)",
               re.IGNORECASE),
]


def rejected_terms(sentence: str) -> list[str]:
    """Terms a sentence tells the agent to stop using ('use pnpm, not npm' -> ['npm'])."""
    out = []
    for pattern in _REJECTED:
        for match in pattern.finditer(sentence.rstrip(".!")):
            term = match.group(1).strip(" .,'\"`").lower()
            if term and term not in _FILLER and len(term) > 1:
                out.append(term.split()[0])
    return list(dict.fromkeys(out))


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
