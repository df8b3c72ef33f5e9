"""Directives and corrections: what a user tells an agent to do, and how they push back.

One classification serves the dream run and the review (:func:`classify`):

- a **correction** pushes back on what the assistant just did: the first sentence of a
  statement right after an assistant turn that starts "no, ...", "wrong", "that's not
  right", "actually ..."; and, in a coding session, any sentence that says the agent was
  told before or should do something else ("I told you ...", "stop ...", "instead, ...",
  "rather than ...", "use Y, not X");
- a **directive** is a standing instruction: "from now on", "going forward", an imperative
  about how to work ("always run ...", "never drop ...", "don't use ...", "make sure to
  ..."), a rule ("you must always ...", "you have to X before Y"); in a coding session also
  "don't"/"never"/"always" after a comma and "you should", "must not", "no longer";
- a **preference** (:mod:`dream.detect.preferences`) is checked between the two.

Questions are never corrections or directives in a coding session. In a conversation with
other people (a stream with someone else's messages) imperatives are said to them, not to
an agent, so only the strong markers and stated preferences count there.

The review also groups sentences that say the same thing (:func:`group`): two sentences are
one rule when their content words overlap enough (deterministic, order-independent).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from dream.detect import preferences
from dream.items import Item

INSTRUCTION_VERBS = _INSTRUCTION_VERBS = (
    r"use|run|write|add|put|call|commit|push|pull|format|ask|check|include|keep|reply|answer|"
    r"respond|book|send|remind|tell|mention|start|test|deploy|merge|rebase|delete|drop|edit|"
    r"touch|change|create|install|update|rename|document|log|print|wrap|sort|name|prefer|"
    r"open|close|print|explain|show|give|write|read|copy|move|skip|leave|store|save|import")
# strong markers: a standing instruction whatever the sentence looks like
STRONG = re.compile(r"\b(from now on|going forward|from here on|in (?:the )?future,|for future|"
                    r"please remember|remember to always|note for next time)\b", re.I)
# "next time, check the lockfile first": said to an agent, a rule for every later session
NEXT_TIME = re.compile(r"^(?:and\s+|so\s+)?next time\b", re.I)
# an imperative about how to work: "Always run ...", "Never drop ...", "Make sure to ..."
IMPERATIVE = re.compile(
    r"^(?:please\s+|and\s+|also,?\s+|great\.?\s+|ok(?:ay)?,?\s+)?(?:(?:always|never)\s+(?:"
    + _INSTRUCTION_VERBS + r")\b|(?:don'?t|do not|avoid)\s+(?:ever\s+)?(?:" + _INSTRUCTION_VERBS
    + r")\b|make sure (?:to|you)\b|remember that\b)", re.I)
RULE = re.compile(r"\b(?:must|should)\s+(?:always|never)\b|\b(?:always|never)\s+(?:"
                  + _INSTRUCTION_VERBS + r")\b|"
                  # "you have to start the db before the tests": a standing order of steps
                  r"\byou (?:have to|need to|must|should) \w+\b[^?]{0,100}\b(?:before|first|"
                  r"every time|each time|whenever)\b", re.I)
# the first sentence after an assistant turn, pushing back on it
REPLY_CORRECTION = re.compile(r"^(?:no(?:\s+no)*[,.!:]|nope\b|no that|wrong\b|that'?s (?:wrong|not right|"
                              r"incorrect|not what)|actually[, ]|not quite|incorrect|"
                              r"you'?re wrong|i said\b|i meant\b|that is (?:wrong|not))", re.I)
# pushback anywhere in a coding session: the agent was told before, or should do otherwise
PUSHBACK = re.compile(
    r"^(?:no|nope|wrong)\s*[,.!:]|^stop\b|^no\s+\w+(?:\s+\w+)?\s*!"
    r"|(?:^|[,;:]\s*|\bplease\s+|\band\s+)(?:stop|quit)\b"
    r"|\b(?:i said|i told you|i asked you|instead|rather than|not\s+\w+\s*,?\s+but"
    r"|no longer|(?:use|prefer)\s+[\w.+#/-]+\s*,?\s+not)\b"
    r"|\b(?:use|prefer|keep)\b[^.!?]{1,60},\s*(?:not|no|never)\s+\w"
    r"|^`?[\w./-]+(?:\s+[\w./=-]+){0,4}`?,\s*(?:not|never)\s+(?:\w+\s+)?`?[\w./-]+`?\W*$"
    r"|\b(?:lives?|is|are|goes|go|belongs?|sits?)\s+(?:in|under|at)\s+\S+,?\s+not\s+\S+"
    r"|^not\s+`?[\w./@-]+`?\s*[—–-]+\s*\S|^it'?s\s+`?[\w./@-]+`?\s+(?:here|in this repo),?\s+not\s"
    # "linting is standardrb here, not rubocop", "one commit per change please, not one big one"
    r"|\b(?:is|are)\s+`?[\w./@:-]+`?\s+(?:here|in this (?:repo|project)),?\s+not\s+\S"
    r"|\bplease,?\s+not\s+\w",
    re.I)
# a standing rule anywhere in a coding session
STANDING = re.compile(
    r"(?:^|[,;:]\s*|\bplease\s+|\band\s+)(?:don'?t|do not|never|always)\b"
    r"|\b(?:you should(?:n'?t)?|you must(?:n'?t)?|should not|shouldn'?t|must not"
    r"|(?:must|should)\s+(?:never|always))\b"
    r"|\bplease no\b|^no\s+\w+(?:\s+\w+)?\s+please\b|\brefrain from\b|\bonly ever\b"
    r"|^(?:any|every|each)\s+[\w-]+(?:\s+[\w-]+){0,3}\s+(?:means|=|requires)\s"
    r"|\b(?:lives?|goes|go|belongs?)\s+(?:in|under|into)\s+`?[\w.-]*/"
    r"|\bprefer\s+(?!(?:the|this|that|these|those|your|my|option)\b)[\w.@-]+(?:\s+[\w.@-]+){0,2}"
    r"\s+over\s"
    r"|\b(?:is|are)\s+(?:off[- ]limits|forbidden"
    r"|not allowed|banned)\b|^every\s+[\w-]+(?:\s+[\w-]+)?\s+(?:gets?|needs?|must|goes)\b"
    r"|^(?:and\s+)?whenever\b[^,]{3,80},\s*(?:please\s+)?(?:" + _INSTRUCTION_VERBS + r")\b",
    re.I)
# a decision about how the project works, said in passing in a coding session
DECISION = re.compile(
    r"\bmust\b|\bshould\b|\bensure\b|\bmake sure\b|\bplease use\b|\bkeep it \w+"
    r"|\bonly (?:want|use|run|the first|first)\b|\b(?:dont|don'?t|do not)\s+\w+"
    r"|\bi(?: would|'d)? (?:only )?(?:want|replace|rather)\b", re.I)
# how the project does something, said as a fact in a coding session: "tests run with
# ./manage.py test --settings=...", "commit messages here follow conventional commits"
CONVENTION = re.compile(
    r"^(?:(?:btw|also|and|fyi|note|again|so)[,:]?\s+(?:[—–-]\s+)?)?(?:the\s+|our\s+|all\s+)?"
    r"(?:(?:unit|integration|e2e|end-to-end|browser|api|local|ci|release|nightly|docker|db|"
    r"staging|production|prod|preview|dev|frontend|backend|schema|database)\s+)?"
    r"(?:tests?|specs?|builds?"
    r"|commits?|commit messages?|migrations?|deploys?|deployments?|releases?|prs?|pull requests?"
    r"|branch(?:es)?|changes|schema changes|dependencies|deps|secrets|logs)\b(?:\s+\w+)?\s+"
    r"(?:here\s+|in this (?:repo|repository|project)\s+)?(?:always\s+|only\s+)?"
    r"(?:(?:run|runs|go|goes|are run|are built|are made|are done|are deployed|get run)\s+"
    r"(?:with|through|via|using|from)\b|follows?\b|use\b|uses\b|(?:needs?|requires?)\b(?=.*(?:`"
    r"|\s--?\w|\S/\S|:\s*\w+\s+\w+)))", re.I)
# a house rule said in other words than the markers above: "rule of thumb: ...", "make it a
# habit to ...", "be sure to ...", "no more console.log", "put new components in src/x/",
# "commit messages: imperative mood", "run the e2e suite only on CI", "no force pushes on
# shared branches", "avoid adding ..."
HOUSE_RULE = re.compile(
    r"\brule of thumb(?:\s+here)?\s*(?::|is to)|\b(?:the|our) (?:house )?rule (?:here )?is\b"
    r"|\bmake it a habit\b|\bbe sure to\b|^no more\s+(?:\w+\s+){0,2}?\S*[._/()`@]|\bavoid \w+ing\b"
    r"|^(?:please\s+)?(?:put|place|keep)\s+(?:new|all|any|every)\s+[\w\s-]{1,30}?\s+(?:in|under|into)"
    r"\s+`?[\w.<>-]*/"
    r"|^(?:commit messages?|commit subjects?|branch names?|pr titles?)\s*:\s*(?:imperative|conventional"
    r"|max|prefix|type|lower|present|short|start|\w+\(|\d)"
    r"|\bonly (?:on|in) (?:ci|staging|prod(?:uction)?|docker)\b"
    r"|^no\s+(?:[\w-]+\s+){0,2}(?:on|in|to|into|for)\s+(?:shared|main|master|prod|production|any"
    r"|release)\b"
    r"|\bso\s+`?[\w./-]+(?:\s+[\w./=-]+){0,3}`?,\s*not\s+\S"
    # always or never before a command: "before push always `sbt scalafmtCheckAll`"
    r"|\b(?:always|never)\s+(?:`[^`]+`|\.{0,2}/[\w./-]+)"
    # a tool named for every time: "buildifier every time you touch a BUILD file"
    r"|^(?:(?:good|ok|okay|also|and|yes)[,.!]?\s+)*(?!(?:it|this|that|they|he|she|i|we|you|the|a"
    r"|an|there)\b)[\w.@/`-]+(?:\s+[\w.@/`-]+)?\s+(?:every\s+time|each\s+time|(?:before|after)"
    r"\s+(?:every|each))\b"
    # where all of one kind of work goes: "every flutter and dart command goes through fvm"
    r"|^(?:\w+\W+)?(?:every\w*|all)\b[^.?]{0,40}?\b(?:goes|go)\s+(?:through|via)\s+`?[\w./-]+",
    re.I)
# how "we" do it here: "we use bun", "we always pin versions", "we don't squash"
WE_DO = re.compile(r"\bwe (?:always |only |never |don'?t |do not )?(?:use|run|build|test|deploy|"
                   r"write|keep|commit|pin|ship|format|lint|prefer|squash|rebase|merge|name|"
                   r"release|vendor|generate|stay|stick)\b", re.I)
# an instruction on how to do a job: "use ./gradlew build --offline for local runs",
# "typecheck with bunx tsc --noEmit"
HOW = re.compile(
    r"^(?:please\s+)?(?:use\s+(?:`[^`]+`|[\w./-]*(?:\s+[\w./=-]+){0,6})\s+(?:for|to|when|in|on"
    r"|instead)\b|(?:typecheck|type-check|lint|format|build|test|deploy|release|install|run"
    r"\s+(?:the\s+)?tests|publish)\s+(?:it\s+|them\s+|everything\s+)?(?:with|using|via|through)"
    r"\s+\S)", re.I)
# a limit to keep: "keep PRs under 400 lines", "keep the changelog sorted"
KEEP = re.compile(r"^(?:please\s+)?keep\s+(?:the\s+|all\s+|our\s+)?\w+(?:\s+\w+)?\s+(?:under|below|"
                  r"within|short|small|sorted|alphabetical|green|passing|at\s+\d|to\s+\d"
                  r"|backwards?[- ]compatible|compatible|in sync|up to date|private)\b", re.I)
# an instruction said for every time: "run mix format ... before you say you're done, every
# time"
EVERY_TIME = re.compile(r"\b(?:every\s+time|each\s+time|whenever|every\s+(?:commit|change|"
                        r"pr|push|release)|(?:before|after)\s+(?:every|each)\b)", re.I)
_STARTS_IMPERATIVE = re.compile(r"^(?:(?:ok(?:ay)?|good|great|and|also|please)[,.]?\s+)*(?:"
                                + _INSTRUCTION_VERBS + r")\b", re.I)
_REMEMBER = re.compile(r"^(?:(?:and|also|please|btw)[,]?\s+)*remember\s+(?:that|the|to|our)\b",
                       re.I)
_QUESTION_START = re.compile(
    r"^(?:what|why|how|when|where|who|which)\s+(?:is|are|do|does|did|can|could|would|should"
    r"|will|was|were|if|about)\b|^(?:can|could|would|is|are|do|does|did|should|shall|will)"
    r"\s+(?:you|we|i|it|this|that|there|they)\b", re.I)


def is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.match(sentence))


def classify(sentence: str, first: bool = False, after_assistant: bool = False,
             social: bool = False, coding: bool = False) -> str | None:
    """``correction``, ``preference``, ``directive`` or None for one sentence of a user
    statement (``first``: the statement's first sentence; ``after_assistant``: the
    statement answers an assistant turn)."""
    if first and after_assistant and REPLY_CORRECTION.search(sentence):
        return "correction"
    if coding and is_question(sentence):
        return None
    if coding and PUSHBACK.search(sentence):
        return "correction"
    if preferences.is_preference(sentence, social):
        return "preference"
    if STRONG.search(sentence) or (not social and len(sentence.split()) <= 30 and (
            IMPERATIVE.search(sentence) or RULE.search(sentence))):
        return "directive"
    if coding and (STANDING.search(sentence) or DECISION.search(sentence) or
                   HOUSE_RULE.search(sentence)):
        return "directive"
    if coding and (CONVENTION.search(sentence) or HOW.search(sentence) or WE_DO.search(sentence)
                   or KEEP.search(sentence) or NEXT_TIME.search(sentence) or
                   _REMEMBER.search(sentence) or
                   _STARTS_IMPERATIVE.search(sentence) and EVERY_TIME.search(sentence)):
        return "directive"
    return None


def after_assistant(prev: Item | None) -> bool:
    """The item before a statement is the assistant's turn (or other non-evidence)."""
    return prev is not None and (prev.role == "assistant" or not prev.evidence)


# -- the review: sentences, grouped ------------------------------------------------------------
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|(?:\\n)+")
_PASTED = re.compile(r"^(?:[+-]\s*\d|>\s|\d+\s*[│|]|[{}\[\]])|\*\*|```")
FILLER = {
    "no", "nope", "please", "again", "i", "said", "told", "you", "ok", "okay", "so", "just",
    "the", "a", "an", "to", "and", "of", "it", "this", "that", "is", "be", "for", "in", "on",
    "with", "we", "me", "my", "your", "our", "are", "was", "as", "at", "by", "or", "can",
    "will", "would", "should", "asked", "already", "still", "really", "its", "it's",
    "want", "wanted", "like", "need", "have", "has", "think", "re", "ll", "ve",
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
        """The fullest way the user said it (:func:`fullest`), every sentence of that
        statement that is in the group."""
        best = fullest(self.sentences)
        parts = list(dict.fromkeys(plain_rule(s.text).rstrip(".!") for s in
                                   [best, *self.sentences] if s.item.id == best.item.id))
        # a part that says what an earlier (fuller) part says adds nothing
        kept: list[str] = []
        for p in parts:
            if not any(words(core(p)) <= words(core(o)) or same(words(core(p)),
                                                              words(core(o))) for o in kept):
                kept.append(p)
        return ". ".join(kept) + "."


_CODEISH = re.compile(r"`[^`]+`|(?<!\w)--?[a-zA-Z][\w-]*|\b[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+"
                      r"|\b[a-z]+[A-Z]\w*")
_TOOLISH = re.compile(r"\b(?:uv|pnpm|npm|yarn|bun|npx|mix|go|cargo|make|poetry|pip|bundle|deno|"
                      r"gradle|mvn|docker|dotnet|pytest|ruff|cmake|rails|rake|git|tsc|jest)\b")


def fullest(said: list[Sentence]) -> Sentence:
    """Of sentences that say one rule, the one a reader learns most from: both halves
    ("use Y, not X"), then the most names from the code and tools, then the most words;
    the latest when they tie (a paraphrase adds nothing, but a fuller one does)."""
    def score(s: Sentence) -> tuple:
        both = bool(rejected_terms(s.text)) and bool(re.search(
            r"\b(?:use|run|call|prefer|instead)\b", s.text, re.I))
        names = len(_CODEISH.findall(s.text)) + len(_TOOLISH.findall(s.text))
        return (both, min(names, 4), len(words(s.text)), s.item.said_at or "", s.item.seq)
    return max(said, key=score)


def sentences(item: Item) -> list[str]:
    """The sentences of a statement a review reads: no command wrappers or pasted lines."""
    return split(item.text)


def split(text: str) -> list[str]:
    """Sentences of a text, without command wrappers or pasted lines."""
    text = (text or "").strip()
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
    # "no" as a reply ("no, ...", "no that's not it"), never the "no" of "no more console.log"
    r"^(?:(?:no(?=\s*[,.!:;—–-]|\s+(?:it|that|this|the|you|we|i|just|not|actually|wait|use|run"
    r"|don'?t|do|stop|please|instead|why|what)\b)|nope|ok|okay|again|also|and|so|but|hm+|well"
    r"|please|btw|all good|looks good"
    r"|great|perfect|sure|yes|yep|alright|ah|oh|right|good|(?:just )?fyi|ugh|sigh|argh|whoa"
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
        if w and w not in FILLER and len(w) > 1:
            out.add(_stem(w))
    return frozenset(out)


# words that say the same thing in a rule: "the whole suite", "the full run", "all tests"
# scope words of "run only what you touch" / "not the whole suite" are one idea
_SAME_WORD = {"whole": "scope", "full": "scope", "entire": "scope", "all": "scope",
              "only": "scope", "just": "scope", "target": "scope", "complete": "scope",
              "suite": "test", "specs": "test", "spec": "test", "tests": "test"}


def _stem(word: str) -> str:
    word = _SAME_WORD.get(word, word)
    if len(word) > 5 and word.endswith("ies"):
        return word[:-3] + "y"                  # "applies" -> "apply"
    if word.endswith("es") and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
        word = word[:-1]                        # "changes" -> "change", like "change"
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
        if w and w not in FILLER and len(w) > 1 and w not in out:
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


# a name from the code or the machine that a rule is about: a file, a flag, a task
_NAMED = re.compile(r"`([^`]+)`|\b([\w-]+\.(?:md|json|toml|ya?ml|lock|txt|cfg|ini|py|rb|go|rs"
                    r"|ts|js|sum|mod|gradle|prisma))\b|(?<!\w)-{1,2}([a-z][\w-]+)|\b(\w+:[\w:]+)\b",
                    re.I)


def named(sentence: str) -> frozenset[str]:
    """The names from the code a sentence mentions ("CHANGELOG.md", "migrate:fresh", the
    flag "-race" as "race"), lower-cased."""
    return frozenset(next(g for g in m.groups() if g).lower().strip("`")
                     for m in _NAMED.finditer(sentence))


# tools whose name says what a rule is about ("linting is standardrb here, not rubocop" / "we
# don't use rubocop directly, it's standardrb"); git, go and make name too much to count
_TOOL_NAMES = re.compile(
    r"\b(?:uv|pnpm|npm|yarn|bun|npx|bunx|poetry|pip|pipx|bundler|deno|gradle|gradlew|mvn|maven"
    r"|docker|podman|dotnet|pytest|ruff|black|mypy|pyright|cmake|rails|rake|tsc|jest|vitest"
    r"|mocha|rspec|rubocop|standardrb|eslint|prettier|biome|ktlint|golangci-lint|terraform|helm"
    r"|alembic|prisma|lombok|nvm|mise|asdf|pyenv|rbenv|tox|nox|just|cargo|clippy|rustfmt"
    r"|storybook|playwright|cypress|webpack|vite|turbo|nx|lerna)\b", re.I)


def alike(a: Sentence | Group, b: Sentence) -> bool:
    """Two rules about one name from the code that share another content word, or about one
    tool that share another word that says something: the same rule in other words ("whenever something user-visible
    changes, put a line under Unreleased in CHANGELOG.md" / "every user-facing change gets an
    entry in CHANGELOG.md")."""
    first = a.sentences[0].text if isinstance(a, Group) else a.text
    shared = words(core(first)) & words(core(b.text))
    if named(first) & (named(b.text) | words(b.text)) and len(shared) >= 2:
        return True
    tools = {t.lower() for t in _TOOL_NAMES.findall(first)} & \
        {t.lower() for t in _TOOL_NAMES.findall(b.text)}
    return bool(tools) and len(shared - _GENERIC) >= 2


_GENERIC = frozenset({"not", "use", "run", "always", "scope", "here", "instead", "only", "make",
                      "sure", "every", "time"})


def group(found: list[Sentence]) -> list[Group]:
    """Group sentences that say the same thing (:func:`same`, or :func:`alike` across
    statements), in evidence order (deterministic)."""
    groups: list[Group] = []
    for sentence in sorted(found, key=lambda s: s.item.seq):
        w = words(core(sentence.text))
        if len(w) < 2:
            continue
        target = next((g for g in groups if same(g.words, w)), None) or next(
            (g for g in groups if sentence.item.id not in {s.item.id for s in g.sentences}
             and alike(g, sentence)), None)
        if target is None:
            target = Group(key=normalised(sentence.text), words=w)
            groups.append(target)
        target.sentences.append(sentence)
    return groups


def memories(statements: Sequence[Item]) -> list[Sentence]:
    """Sentences asking to be remembered, and preferences as the run classifies them."""
    return [Sentence(s, item) for item in statements for s in sentences(item)
            if preferences.is_memory(s) or classify(s, coding=True) == "preference"]


def repeated(groups: list[Group]) -> list[Group]:
    """Groups said at least twice (in two statements)."""
    return [g for g in groups if len(g.items) >= 2]


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
