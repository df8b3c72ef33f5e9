"""The words of a user's sentence, as the rules and the review compare them.

- a statement's sentences, without command wrappers or pasted lines (:func:`split`);
- a sentence without its conversational lead-in ("no,", "I said", "remember that"), as it
  goes into a note (:func:`plain_rule`);
- its content words, negations folded to "not" and lightly stemmed (:func:`words`), and
  whether two sets of them say the same thing (:func:`same`);
- the terms it tells the agent to stop using (:func:`rejected_terms`).
"""

from __future__ import annotations

import re

from dream.detect import rule_lang
from dream.items import Item

# a sentence ends after ".", "!" or "?", not after an abbreviation said inside one ("e.g.",
# "i.e.", "vs.", German "bzw.", "z.B.", "d.h.", French "p.ex.", Dutch "bijv.", Swedish "t.ex.")
_ABBREVIATION = "".join(rf"(?<!\b{re.escape(a)})" for a in (
    "e.g.", "i.e.", "vs.", "cf.", "bzw.", "z.B.", "d.h.", "u.a.", "p.ex.", "p.ej.", "bijv.",
    "t.ex.", "np."))
# a ";" before "..." is inside code whose middle is left out ("BEGIN; ... COMMIT;"): no split
_SENTENCE = re.compile(r"(?<=[.!?])" + _ABBREVIATION + r"(?<!; \.\.\.)\s+|(?<=;)\s+(?!\.\.\.)"
                       r"|\n+|(?:\\n)+")
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_PASTED = re.compile(r"^(?:[+-]\s*\d|>\s|\d+\s*[│|]|[{}\[\]])|\*\*|```")
FILLER = {
    "no", "nope", "please", "again", "i", "said", "told", "you", "ok", "okay", "so", "just",
    "the", "a", "an", "to", "and", "of", "it", "this", "that", "is", "be", "for", "in", "on",
    "with", "we", "me", "my", "your", "our", "are", "was", "as", "at", "by", "or", "can",
    "will", "would", "should", "asked", "already", "still", "really", "its", "it's",
    "want", "wanted", "like", "need", "have", "has", "think", "re", "ll", "ve",
}
_NEGATIONS = {"don't": "not", "dont": "not", "do": "", "never": "not", "stop": "not",
              "shouldn't": "not", "quit": "not", "avoid": "not",
              # German, French and Spanish ones (their other frequent words are filler)
              "nie": "not", "niemals": "not", "nicht": "not", "kein": "not", "keine": "not",
              "keinen": "not", "jamais": "not", "pas": "not", "nunca": "not", "jamás": "not",
              "immer": "always", "toujours": "always", "siempre": "always", "stets": "always",
              # Italian, Portuguese, Dutch, Swedish and Polish ones
              "non": "not", "mai": "not", "niente": "not", "não": "not", "niet": "not",
              "nooit": "not", "geen": "not", "inte": "not", "aldrig": "not", "ingen": "not",
              "inget": "not", "inga": "not", "nigdy": "not", "sempre": "always",
              "altijd": "always", "alltid": "always", "zawsze": "always",
              # Czech ones
              "nikdy": "not", "vždy": "always", "vždycky": "always"}
_WORD = re.compile(r"[^\W_][\w.+#/-]*")
# filler in every language read (:mod:`dream.detect.rule_lang`), negations kept
_STOP = frozenset(FILLER | (rule_lang.stop_words() - set(_NEGATIONS)))


def is_filler(word: str) -> bool:
    """A word that says nothing of a rule's content, in English or a language
    :mod:`dream.detect.rule_lang` reads."""
    return word in _STOP


def sentences(item: Item) -> list[str]:
    """The sentences of a statement a review reads: no command wrappers or pasted lines."""
    return split(item.text)


def split(text: str) -> list[str]:
    """Sentences of a text, without command wrappers or pasted lines."""
    text = (text or "").strip()
    if not text or text.startswith("<"):           # command wrappers, system caveats
        return []
    spans: list[str] = []           # code in backticks is one piece: "`a; b`" never splits

    def hide(m: re.Match[str]) -> str:
        spans.append(m[0])
        return f"\x00{len(spans) - 1}\x00"

    out = []
    for part in _SENTENCE.split(_CODE_SPAN.sub(hide, text)):
        part = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m[1])], part)
        # a bullet or quote around it goes, a flag at its start stays ("--packages-up-to x")
        part = re.sub(r"^(?:[ \t*>\"']|-(?!-?[a-zA-Z]))+", "", part).rstrip(" \t-*>\"'")
        if 3 <= len(part) <= 300 and not part.startswith(("$ ", "<")) \
                and not _PASTED.search(part):
            out.append(part)
    return out


_LEAD_IN = re.compile(
    # "no" as a reply ("no, ...", "no that's not it"), never the "no" of "no more console.log"
    # nor the "no" of a flag ("no --push from here")
    r"^(?:(?:no(?=\s*(?:[,.!:;—–](?![\w(])|-(?![-\w]))|\s+(?:no|it|that|this|the|you|we|i|just|not|actually|wait|use|run"
    r"|don'?t|do|stop|please|instead|why|what)\b)|nope|ok|okay|again|also|and|so|but|hm+|well"
    r"|please|btw|all good|looks good"
    r"|great|perfect|sure|yes|yep|alright|ah|oh|right|good|(?:just )?fyi|ugh|sigh|argh|whoa"
    r"|actually(?=\s*,|\s+no\s*[,.!:;—–])"
    r"|(?:quick |friendly |a )?reminder|heads[- ]up)\b"
    r"[\s,.!:;—–-]*"
    r"|(?:you keep forgetting|you forgot(?: again)?|like i said|for the (?:\w+ )?time"
    r"|wrong again|next time|from now on|from here on(?: out)?|going forward|moving forward"
    r"|in (?:the )?future)\b[\s,.!:;—–-]*"
    r"|(?:(?:like |as )?i (?:said|say|told you|asked you|already said|mentioned)"
    r"(?: (?:it|this|that|so))?(?: (?:before|already|earlier|last \w+|yesterday|twice|again))*"
    r"(?: that)?|as i said)\b[\s,.!:;-]*"
    # "same as last time:", "one thing:", "third time now."
    r"|(?:same as (?:before|last time|last week|yesterday)|(?:one|another|one more|one last)"
    r" thing|(?:second|third|fourth|\w+th) time(?: now)?)\b[\s,.!:;—–-]*"
    r"|(?:please |also |and )?(?:remember|keep in mind|note|for future reference)(?: that)?"
    r"\b[\s,:;-]*)+",
    re.IGNORECASE,
)


def without_lead_in(sentence: str) -> str:
    """The sentence without its conversational lead-in (possibly nothing)."""
    return _LEAD_IN.sub("", sentence.strip()).strip()


def plain_rule(sentence: str) -> str:
    """A sentence without its conversational lead-in ("no,", "I said", "remember that"),
    starting with a capital: what goes into a note or an instructions file."""
    text = _LEAD_IN.sub("", sentence.strip()).strip()
    text = re.sub(r"[\s,]+(?:btw|please|thanks|thank you)([.!]?)$", r"\1", text,
                  flags=re.IGNORECASE)
    if not text:
        return sentence.strip()
    if re.match(r"[a-z]+[A-Z]", text):
        return text                 # an identifier keeps its case ("setTheme should ...")
    return text[0].upper() + text[1:]


def words(sentence: str) -> frozenset[str]:
    out = set()
    for raw in _WORD.findall(sentence.lower().replace("’", "'")):
        w = raw.strip(".,")
        w = _NEGATIONS.get(w, w)
        if w and w not in _STOP and len(w) > 1:
            out.add(_stem(w))
    return frozenset(out)


# words that say the same thing in a rule: "the whole suite", "the full run", "all tests"
# scope words of "run only what you touch" / "not the whole suite" are one idea
_SAME_WORD = {"always": "every",    # "before push always X" / "X before every push"
              "whole": "scope", "full": "scope", "entire": "scope", "all": "scope",
              "only": "scope", "just": "scope", "target": "scope", "complete": "scope",
              "suite": "test", "specs": "test", "spec": "test", "tests": "test"}


def _stem(word: str) -> str:
    word = _SAME_WORD.get(word, word)
    if len(word) > 5 and word.endswith("ies"):
        return word[:-3] + "y"                  # "applies" -> "apply"
    if word.endswith("es") and not word.endswith(("ses", "xes", "zes", "ches", "shes")) or \
            re.search(r"(?:[^s]|[aeiou]u)ses$", word) and not re.search(r"[^aeiou]uses$", word):
        # "changes" -> "change", "releases" -> "release", like the singular; not "passes"
        # nor "statuses" (their "es" is the plural's)
        word = word[:-1]
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2]:
                word = word[:-1]                # "running" -> "run"
            return word
    return word


def ordered_words(sentence: str) -> list[str]:
    """Content words in the order they were said (for readable slugs)."""
    out = []
    for raw in _WORD.findall(sentence.lower().replace("’", "'")):
        w = _NEGATIONS.get(raw.strip(".,"), raw.strip(".,"))
        if w and w not in _STOP and len(w) > 1 and w not in out:
            out.append(w)
    return out


def normalised(sentence: str) -> str:
    return " ".join(sorted(words(sentence)))


def same(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    inter = len(a & b)
    return inter / len(a | b) >= 0.5 or (inter >= 2 and inter / min(len(a), len(b)) >= 0.75) \
        or (inter >= 4 and inter / min(len(a), len(b)) >= 0.5)


def core(rule: str) -> str:
    """A rule without the reason kept after it ("Use X; the Y needs Z." -> "Use X")."""
    return rule.split("; ", 1)[0]


# a program's subcommand is part of what is rejected: "don't use npm test" rejects `npm test`,
# not npm
_SUBCOMMAND = r"(?:\s+(?:test|run|install|build|start|exec|lint|format|ci|add|publish|serve|dev"
_SUBCOMMAND += r"|check)\b)?"
_REJECTED = [
    re.compile(r"\b(?:instead of|rather than)\s+(?:using\s+)?([\w.+#/-]+(?:\s[\w.+#/-]+)?)",
               re.IGNORECASE),
    re.compile(r"\b(?:don'?t|do not|never|stop|no longer)\s+(?:use|using|run|running|call"
               r"|calling|add|adding)\s+([\w.+#/:-]+" + _SUBCOMMAND + r"(?:\s*(?:,|\bor\b|\band\b"
               r"|\bnor\b)\s*[\w.+#/:-]+" + _SUBCOMMAND + r")*)", re.IGNORECASE),
    re.compile(r"\bnot\s+(?:(?:plain|bare|just|the|a|raw|direct|a\s+bare)\s+)?([\w.+#/-]+)"
               r"(?:\s+directly)?\s*$", re.IGNORECASE),

    re.compile(r"\b(?:use|prefer|with|choose)\s+[\w.+#/-]+\s*,?\s+not\s+([\w.+#/-]+)",
               re.IGNORECASE),
]


# "avoid console logs", "no console logs!": the whole phrase is what to leave out
_REJECTED_PHRASE = re.compile(r"^(?:avoid|no)\s+([\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s*[!.]?$",
                              re.IGNORECASE)
_REJECTED.append(_REJECTED_PHRASE)


def rejected_terms(sentence: str) -> list[str]:
    """Terms a sentence tells the agent to stop using ('use pnpm, not npm' -> ['npm'])."""
    out = []
    for pattern in _REJECTED:
        for match in pattern.finditer(sentence.rstrip(".!")):
            for term in re.split(r"\s*(?:,|\bor\b|\band\b|\bnor\b)\s*", match.group(1)):
                term = term.strip(" .,'\"`!").lower()
                if term and term not in FILLER and term not in ("here", "it", "them") and \
                        len(term) > 1:
                    # "no console logs!": the phrase; "don't use npm here": its first word
                    # ("npm test": the program and its subcommand)
                    words = term.split()
                    two = len(words) > 1 and re.fullmatch(_SUBCOMMAND, " " + words[1], re.I)
                    out.append(term if pattern is _REJECTED_PHRASE else
                               " ".join(words[:2]) if two else words[0])
    return list(dict.fromkeys(out))
