"""The review's grouping of sentences that say the same thing (:func:`group`).

Two sentences are one rule when their content words overlap enough
(:func:`dream.detect.wording.same`), or, said in two statements, when they name one thing
from the code or one tool and share another word (:func:`alike`); deterministic,
order-independent. A group's rule is the fullest way the user said it (:func:`fullest`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from dream.detect import preferences
from dream.detect.directives import classify
from dream.detect.wording import (
    core,
    normalised,
    plain_rule,
    rejected_terms,
    same,
    sentences,
    words,
)
from dream.items import Item

# an English negation said short ("don't", "isn't", "won't"): the tokenizer of
# :func:`~dream.detect.wording.words` splits it at the apostrophe ("don"), so it is "not" first
_SHORT_NOT = re.compile(r"\b[a-z]+n['’]t\b", re.I)
# an elided French article or pronoun ("qu'ils", "l'API", "n'active"): no content
_ELIDED = re.compile(r"\b(?:qu|[cdjlmnst])['’](?=\w)", re.I)
# "only" said in German, French or Spanish is the scope word "only" is ("Shortcodes
# uniquement", "solo con pnpm"); a subject pronoun says nothing of a rule ("ils", "sie")
_ONLY = frozenset({"ausschließlich", "uniquement", "seulement", "exclusivement", "solo", "sólo",
                   "solamente", "únicamente", "exclusivamente"})
_PRONOUNS = frozenset({"ils", "elle", "elles", "er", "sie", "ihr", "él", "ellos", "ellas",
                       "usted", "ustedes"})


@lru_cache(maxsize=8192)
def said(text: str) -> frozenset[str]:
    """The content words the review compares (:func:`~dream.detect.wording.words`), with a
    short negation read as "not" as "never" and "dont" are, elided articles and subject
    pronouns left out, and "only" in any language read as the one scope word. A path or a
    pair of names joined by "/" is read as its names ("ESP_LOGI/ESP_LOGW" names "ESP_LOGW",
    "./bin/hugo" is "bin/hugo"), each counted once."""
    found = words(_ELIDED.sub("", _SHORT_NOT.sub("not", text)))
    found = {part for w in found for part in (words(w.replace("/", " ")) if "/" in w else (w,))}
    return frozenset("scope" if w in _ONLY else w for w in found if w not in _PRONOUNS)


def close(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two sentences' words say the same thing (:func:`~dream.detect.wording.same`), or a
    short paraphrase shares three of its words, at least two of them about what the rule is
    about ("Fmt -check and validate is all you run locally, not builds" / "no packer build
    locally")."""
    inter = a & b
    return same(a, b) or (len(inter) >= 3 and len(inter) / min(len(a), len(b)) >= 0.6
                          and len(inter - GENERIC) >= 2)


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
    # the user's sentences that say it again in words not read as a rule (:func:`said_again`):
    # they count as sayings, the rule stays what the sentences say
    again: list[Sentence] = field(default_factory=list)

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(s.item.stream for s in self.sentences + self.again))

    @property
    def items(self) -> list[Item]:
        return list({s.item.id: s.item for s in self.sentences + self.again}.values())

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


_NOT_USE = re.compile(r"\b(?:don'?t|dont|do not|never|not|no)\s+(?:use|run|call)\b", re.I)


def fullest(said: list[Sentence]) -> Sentence:
    """Of sentences that say one rule, the one a reader learns most from: both halves
    ("use Y, not X"), then the most names from the code and tools, then the most words;
    the latest when they tie (a paraphrase adds nothing, but a fuller one does)."""
    def score(s: Sentence) -> tuple:
        # "do not use pip." has one half: its "use" is the one it rejects; the other half
        # is a word of using outside it, or a clause of its own ("..., its nimble only")
        both = bool(rejected_terms(s.text)) and bool(re.search(
            r"\b(?:use|run|call|prefer|instead)\b|[,;:—–]\s*\S", _NOT_USE.sub("", s.text),
            re.I))
        names = len(_CODEISH.findall(s.text)) + len(_TOOLISH.findall(s.text))
        return (both, min(names, 4), len(words(s.text)), s.item.said_at or "", s.item.seq)
    return max(said, key=score)


# a name from the code or the machine that a rule is about: a file, a flag, a task
_NAMED = re.compile(r"`([^`]+)`|\b([\w-]+\.(?:md|json|toml|ya?ml|lock|txt|cfg|ini|py|rb|go|rs"
                    r"|ts|js|sum|mod|gradle|prisma))\b|(?<!\w)-{1,2}([a-z][\w-]+)|\b(\w+:[\w:]+)\b"
                    # an identifier in CamelCase ("FetchContent"), whatever language is around it
                    r"|\b((?-i:[A-Z][a-z]+[A-Z]\w*))\b(?!-\w)"
                    # a class's member ("Variable.get", "Nat.le_trans")
                    r"|\b((?-i:[A-Z][A-Za-z]+\.[a-z_]\w*))\b",
                    re.I)


@lru_cache(maxsize=8192)
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


def alike(a: Sentence | Group, b: Sentence, programs: frozenset[str] = frozenset()) -> bool:
    """Two rules about one name from the code that share another content word, or about one
    tool that share another word that says something: the same rule in other words
    ("whenever something user-visible changes, put a line under Unreleased in CHANGELOG.md" /
    "every user-facing change gets an entry in CHANGELOG.md"). A tool is a well-known one or
    one of the ``programs`` the project's shell commands ran ("we dont use stack in this
    repo, its cabal only" / "cabal, always cabal in this repo")."""
    first = a.sentences[0].text if isinstance(a, Group) else a.text
    shared = said(core(first)) & said(core(b.text))
    # a name from the code in either sentence that the other one says too, a name of several
    # words ("`nimble test`") said when all its words are; the name's words count as shared
    names_a, names_b = named(first), named(b.text)
    if _mentions(names_a, b.text) or _mentions(names_b, first):
        both = (said(core(first)) | _name_words(names_a)) & \
            (said(core(b.text)) | _name_words(names_b))
        if len(shared | both) >= 2:
            return True
    tools = _tools(first, programs) & _tools(b.text, programs)
    if tools & _refused_tools(first, programs) & _refused_tools(b.text, programs):
        return True
    # a rule that names only the tool (and how often) is that tool's rule said again
    # ("always finish with rebar3 dialyzer" / "dialyzer?? I said every time")
    named_only = len(said(core(b.text)) - GENERIC - {"time"}) <= 1
    return bool(tools) and (len(shared - GENERIC) >= 2 or named_only)


# a tool said no to on its own: "never pytest directly", "no bare pytest", "not pytest.",
# "don't use plain npm here"; not "never `pulumi up`" (a subcommand of it) nor "no pytest
# plugins"
_REFUSED = re.compile(r"\b(?:not|no|never|don'?t\s+(?:use|run|call)|do\s+not\s+(?:use|run|call)"
                      r"|never\s+(?:use|run|call))\s+(?:(?:the\s+)?(?:bare|plain|raw|global"
                      r"|system|direct)\s+)?`?([\w.+-]+)`?(?=\s*(?:[.,;:!?)—–-]|$|directly\b"
                      r"|yourself\b|here\b|in\s+this\s+repo\b|ever\b))", re.I)


@lru_cache(maxsize=8192)
def _refused_tools(sentence: str, programs: frozenset[str]) -> frozenset[str]:
    """The tools a sentence says no to on their own (:data:`_REFUSED`)."""
    return frozenset(t.lower().rstrip(".-") for t in _REFUSED.findall(sentence)) & \
        _tools(sentence, programs)


def _name_words(names: frozenset[str]) -> frozenset[str]:
    return _words(" ".join(sorted(names)))


def _mentions(names: frozenset[str], sentence: str) -> bool:
    """One of ``names`` is said in ``sentence``: as a name, or all its words."""
    heard = _words(sentence)
    return bool(names & (named(sentence) | heard)) or any(
        len(_words(n)) >= 2 and _words(n) <= heard for n in names)


@lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """A sentence's words, read once for every pair of sentences it is compared with."""
    return words(text)


@lru_cache(maxsize=8192)
def _tools(sentence: str, programs: frozenset[str]) -> frozenset[str]:
    found = {t.lower() for t in _TOOL_NAMES.findall(sentence)}
    return frozenset(found | {w for w in re.findall(r"[a-z][\w+-]*", sentence.lower())
                              if w in programs})


GENERIC = frozenset({"not", "use", "run", "always", "scope", "here", "instead", "only", "make",
                      "sure", "every", "time"})


def group(found: list[Sentence], programs: frozenset[str] = frozenset()) -> list[Group]:
    """Group sentences that say the same thing (:func:`same`, or :func:`alike` across
    statements, ``programs`` being the project's own tools), in evidence order
    (deterministic)."""
    groups: list[Group] = []
    for sentence in sorted(found, key=lambda s: s.item.seq):
        w = said(core(sentence.text))
        if len(w) < 2:
            # a first clause too short to say what the rule is about ("Todo el workspace
            # no; --packages-up-to brazo_bringup"): the whole rule says it
            w = said(sentence.text)
        if len(w) < 2:
            continue
        target = next((g for g in groups if close(g.words, w)), None) or next(
            (g for g in groups if sentence.item.id not in {s.item.id for s in g.sentences}
             and alike(g, sentence, programs)), None) or next(
            # a rule said as two clauses ("don't touch prod from here; staging only, prod
            # goes through CI"): the whole of it, reason and all, against the other
            # statements' sentences
            (g for g in groups if sentence.item.id not in {s.item.id for s in g.sentences}
             and any(close(said(s.text), said(sentence.text)) for s in g.sentences)), None)
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



# the user saying that what they say was said before: "like I said last time", "again",
# "how many times", "what did I say", "hab ich dir letztes Mal gesagt", "je t'avais dit", "te lo dije", "te l'ho
# già detto", "já falei", "weer zo'n", "som jag sa", "znowu"; "again" after a verb of doing
# it once more ("try it again") is no such word
_SAID_BEFORE = re.compile(
    r"\b(?:(?:like|as)\s+i\s+(?:already\s+|just\s+)?(?:said|told\s+you|mentioned|asked)"
    r"|i(?:'ve|\s+have)?\s+(?:already\s+)?(?:said|told\s+you)\s+(?:this|that|so|it)\b"
    r"|i\s+(?:already\s+)?told\s+you|how\s+many\s+times|we\s+went\s+through\s+this"
    # "what did I say.", "didn't I tell you", "I keep saying this"
    r"|(?:what\s+did|didn'?t)\s+i\s+(?:just\s+)?(?:say|tell\s+you)|i\s+keep\s+(?:saying|telling\s+you)"
    r"|we'?ve\s+been\s+(?:over|through)\s+this"
    r"|(?:same|like|as)\s+(?:as\s+)?(?:last\s+(?:time|week|session)|yesterday|the\s+other\s+day)"
    r"|same\s+as\s+always"
    r"|(?<!\btry\s)(?<!\bit\s)(?<!\bthem\s)(?<!\bthis\s)(?<!\bthat\s)again"
    # German, French, Spanish, Italian, Portuguese
    r"|(?:hab|habe|hatte)\s+ich\s+(?:dir\s+|euch\s+|ihnen\s+)?(?:(?:doch|schon|bereits|eben"
    r"|letztes\s+mal|letzte\s+woche|gestern|vorhin)\s+)*gesagt|wie\s+(?:schon\s+|bereits\s+)?"
    r"gesagt|(?:wie\s+)?letztes\s+mal\s+(?:schon\s+)?gesagt|wie\s+oft\s+noch|schon\s+wieder"
    r"|je\s+(?:te\s+|t'|vous\s+)?(?:l'ai|l'avais|avais)\s+(?:d[ée]j[àa]\s+)?dit|combien\s+de\s+fois"
    r"|comme\s+(?:je\s+)?(?:te\s+)?l'ai\s+dit"
    r"|(?:ya\s+)?te\s+lo\s+(?:he\s+)?(?:dije|dicho)|ya\s+lo\s+dije|cu[áa]ntas\s+veces"
    r"|como\s+(?:ya\s+)?te\s+(?:he\s+)?dicho|otra\s+vez"
    r"|te\s+l'ho\s+(?:gi[àa]\s+)?detto|l'ho\s+gi[àa]\s+detto|quante\s+volte|di\s+nuovo"
    r"|j[áa]\s+(?:te\s+)?(?:falei|disse)|quantas\s+vezes|de\s+novo"
    # Dutch, Swedish and Polish, which rules are read in too; "doe het weer", "kör den
    # igen", "spróbuj znowu" do it once more
    r"|(?<!\bhet\s)(?:al)?weer|zoals\s+(?:ik\s+)?(?:al\s+)?(?:gezegd|zei)|hoe\s+vaak\s+nog"
    r"|heb\s+ik\s+(?:je\s+|jullie\s+)?(?:al\s+|toch\s+|vorige\s+week\s+)*(?:gezegd|verteld)"
    r"|(?<!\bden\s)(?<!\bdet\s)(?<!\bdem\s)(?<!\bförsök\s)igen|jag\s+sa\s+ju"
    r"|som\s+jag\s+(?:redan\s+)?(?:sa|sagt)|jag\s+(?:har\s+)?(?:ju\s+|redan\s+)*sagt"
    r"|hur\s+m[åa]nga\s+g[åa]nger|(?<!\bspróbuj\s)(?:znowu|zn[óo]w)|ile\s+razy"
    r"|(?:ju[żz]\s+)?(?:ci\s+)?(?:m[óo]wi[łl]|powiedzia[łl])(?:e|a)m"
    # Czech, which rules are read in too: "říkal jsem", "už jsem ti to říkal", "kolikrát"
    r"|ř[íi]kal[a]?\s+jsem|jsem\s+(?:ti\s+|vám\s+)?(?:to\s+)?(?:už\s+)?ř[íi]kal[a]?"
    r"|kolikr[áa]t)\b", re.I)


def said_before(text: str) -> bool:
    """The user says what they say was said before (:data:`_SAID_BEFORE`)."""
    return bool(_SAID_BEFORE.search(text))


def said_again(groups: list[Group], heard: list[Sentence],
               programs: frozenset[str] = frozenset(),
               refused: dict[str, str] | None = None) -> None:
    """A rule said once as a rule, and said again in another session in words the run does
    not read as a rule, when the later of the two statements says it was said before: "thats
    the brew ameba again." after "we lint with bin/ameba, NOT the global ameba"; "when the
    manifest changed you need `lake exe cache get` first" before "after lake update you HAVE
    to run `lake exe cache get` ... I said this last week". The sentence must say the same
    thing as the rule and no other group's: in words (:func:`close`) or naming the same thing
    from the code (:func:`alike`); naming the same tool is enough only when the sentence
    itself says it was said before (a tool named in a task of the other session is no
    saying). A sentence that says it in the rule's own words (:func:`_in_its_words`) is a
    saying without being said to be one ("even on kind, not tk apply — I meant kubectl
    apply" after "we never tk apply, from anywhere"). A statement read as a rule may say
    another rule again in its other sentences. It is added to ``again``: the group's rule
    stays the rule it was said as. ``heard``: every sentence the user said (statements, and
    words typed to refuse a call)."""
    # the rules each statement was read as: its sentences that made them are no saying of
    # another rule, its other sentences may be ("tests go through ./scripts/test.sh ... also
    # in core/ nothing uses the implicit context.allocator, pass the allocator explicitly")
    ruled: dict[str, list[frozenset[str]]] = {}
    for g in groups:
        for s in g.sentences:
            ruled.setdefault(s.item.id, []).append(said(s.text))
    # whether each statement says it was said before, read once per statement (read for
    # every pair of a group and a sentence, a project's run took minutes: 100 rules and 900
    # sentences, 10 s; 200 and 1,800, 64 s)
    texts: dict[str, list[str]] = {}
    for s in heard:
        texts.setdefault(s.item.id, []).append(s.text)
    told_before = {item_id: said_before(" ".join(t)) for item_id, t in texts.items()}
    # the rules that say themselves they were said before ("..., like I said last time")
    pointing = {id(g) for g in groups if any(said_before(s.text) for s in g.sentences)}
    # the sentences free to be a saying (none of a rule its statement was read as), the same
    # for every group
    free = [s for s in heard if not _of_its_rules(s, ruled)]
    for grp in groups:
        if len(grp.items) != 1:
            continue
        first = grp.sentences[0].item
        for sentence in free:
            item = sentence.item
            if item.stream == first.stream:
                continue
            later = max(first, item, key=lambda i: (i.said_at or "", i.seq))
            w = said(core(sentence.text))
            if item.kind != "tool_result" and not told_before.get(later.id, False) and \
                    not _in_its_words(grp, w):
                continue            # a refusal of a tool call is a correction of its own
            if len(w) < 2 and not said_before(sentence.text):
                continue
            if not _says_again(grp, sentence, w, programs, id(grp) in pointing):
                continue
            if any(o is not grp and _says_again(o, sentence, w, programs, id(o) in pointing)
                   for o in groups):
                continue            # it says another rule as well: not this one's saying
            grp.again.append(sentence)
            break
    _said_again_around(groups, heard, free, told_before, programs, refused or {})


def _said_again_around(groups: list[Group], heard: list[Sentence], free: list[Sentence],
                       told_before: dict[str, bool],
                       programs: frozenset[str] = frozenset(),
                       refused: dict[str, str] | None = None) -> None:
    """A rule said once as a rule, and said again in another session by a statement whose
    sentences say it only together, the later of the two statements saying it was said
    before: "a kde máš thresholds? bez nich je to k ničemu, říkal jsem p95 pod 800 ms" after
    "každý scénář musí mít thresholds, minimálně p(95)<800"; "you put the probe in base.
    overlay. not base. same as last time" after "not base! resource tweaks go in
    deploy/overlays/dev only". What makes it that rule's saying:

    - the two statements share two words of what they are about that are no tool's name
      (the words saying it was said before left out), and the other statement shares with
      the rule itself such a word; or it shares two words and half of the rule's ("ldc2!!
      ... dmd chokes" after "we build with ldc2, not dmd"); not "symfony console !!" after
      a rule on Doctrine annotations in a Symfony project, nor "check it comes up in tilt"
      after "always check the context before tilt up";
    - the sentence saying it was said before stands alone ("same as last time", "what did I
      say.") or shares a word with the other side: "test with act like last time" points at
      a test run, not at the rule beside it; "again" alone does not count (it is as often
      doing a thing once more);
    - the statement shares as much with no rule of another statement.

    The other statement's sentences that say it (or say it was said before) are added to
    ``again`` as one saying. ``told_before``: whether each statement says it was said
    before, read whole (its sentences are read one by one only when it does)."""
    by_item: dict[str, list[Sentence]] = {}
    for s in heard:
        by_item.setdefault(s.item.id, []).append(s)
    markers = {item_id: [s for s in said_ if said_before(_AGAIN.sub(" ", s.text))]
               for item_id, said_ in by_item.items() if told_before.get(item_id)}

    def about(sents: list[Sentence]) -> frozenset[str]:
        return frozenset(w for s in sents for w in said(core(_SAID_BEFORE.sub(" ", s.text)))
                         if w not in GENERIC and len(w) > 2)

    def points(marks: list[Sentence], other: frozenset[str]) -> bool:
        return any(len(about([m])) <= 1 or about([m]) & other for m in marks)

    spoken = {item_id: about(said_) for item_id, said_ in by_item.items()}
    free_of: dict[str, list[Sentence]] = {}
    for s in free:
        free_of.setdefault(s.item.id, []).append(s)
    # what each statement says besides the rules it was read as
    # a "no" answering the agent's offer says no to what was offered ("Want me to upload
    # 2.3.9 to the Chef server?" / "no, same as last time: pipeline only")
    besides = {item_id: about(sents) | about([Sentence((refused or {}).get(item_id, ""),
                                                       sents[0].item)])
               for item_id, sents in free_of.items()}
    for grp in groups:
        if len(grp.items) != 1:
            continue
        first = grp.sentences[0].item
        rule = about(grp.sentences)
        around = spoken.get(first.id, rule) | rule
        tools = _tools(" ".join(s.text for s in grp.sentences), programs)
        best: tuple[int, Sentence] | None = None
        for item_id, sents in free_of.items():
            item = sents[0].item
            if item.stream == first.stream:
                continue
            theirs = besides[item_id]
            shared, of_rule = around & theirs, rule & theirs
            if len(shared) < 2 or not (len(shared - tools - programs) >= 2
                                       and of_rule - tools - programs
                                       or len(of_rule) >= 2 and 2 * len(of_rule) >= len(rule)):
                continue
            later = max(first, item, key=lambda i: (i.said_at or "", i.seq))
            if not points(markers.get(later.id, []), rule if later is item else theirs):
                continue
            # another rule of another statement it says as much of: not this one's saying
            if any(o is not grp and o.sentences[0].item.id != item_id and about(o.sentences)
                   & theirs and len((spoken.get(o.sentences[0].item.id, frozenset())
                                     | about(o.sentences)) & theirs) >= len(shared)
                   for o in groups):
                continue
            # its sentences that say it, in the order said ("you put the probe in base.
            # overlay. not base. same as last time")
            saying = " ".join(s.text for s in sents if about([s]) & around or s in
                              markers.get(item_id, []))
            if best is None or len(shared) > best[0]:
                best = (len(shared), Sentence(saying, item))
        if best is not None:
            grp.again.append(best[1])


def _of_its_rules(sentence: Sentence, ruled: dict[str, list[frozenset[str]]]) -> bool:
    """The sentence is (part of) a rule its statement was read as: half its words are in one
    of them."""
    w = said(sentence.text)
    return any(2 * len(w & r) >= len(w) for r in ruled.get(sentence.item.id, ()))


def _in_its_words(grp: Group, w: frozenset[str]) -> bool:
    """A sentence's words say the group's rule (:func:`close`), sharing a word about what it is
    about ("not pytest." / "don't call pytest yourself, tox sets ..."), not only "not" and
    "here"."""
    return close(grp.words, w) and bool((grp.words & w) - GENERIC)


def _says_again(grp: Group, sentence: Sentence, w: frozenset[str],
                programs: frozenset[str], pointing: bool = False) -> bool:
    """``sentence`` says ``grp``'s rule again (see :func:`said_again`); ``pointing``: the
    rule says itself it was said before."""
    if close(grp.words, w) or any(close(said(s.text), said(sentence.text))
                                  for s in grp.sentences):
        return True
    if said_before(sentence.text):
        # said to be said before: the tool it names, or two words of what it is about
        # ("you dropped group_name and owners again"), the words saying so left out
        shared = said(core(_SAID_BEFORE.sub(" ", grp.sentences[0].text))) & \
            said(core(_SAID_BEFORE.sub(" ", sentence.text)))
        return alike(grp, sentence, programs) or len(shared - GENERIC) >= 2
    if pointing:
        # the rule says itself it was said before ("... pass s.allocator, like I said last
        # time"): the other session's sentence sharing two words of what it is about, not
        # the tool both name nor a particle ("check it comes up in tilt"), is the saying it
        # points at
        first = grp.sentences[0].text
        shared = said(core(_SAID_BEFORE.sub(" ", first))) & said(core(sentence.text))
        shared -= GENERIC | _tools(first, programs) | _tools(sentence.text, programs)
        if sum(1 for w in shared if len(w) > 2) >= 2:
            return True
    first = grp.sentences[0].text
    return (_mentions(named(first), sentence.text) or _mentions(named(sentence.text), first)) \
        and alike(grp, sentence)


# "again" alone: doing a thing once more as often as saying it once more ("let's look at the
# failing test again")
_AGAIN = re.compile(r"\b(?:again|otra\s+vez|di\s+nuovo|de\s+novo|schon\s+wieder|(?:al)?weer"
                    r"|igen|znowu|zn[óo]w)\b", re.I)


# the agent offering to do something, as the last sentence of its turn ("Want me to upload
# 2.3.9 to the Chef server?", "Should I also raise the timeout in values-prod.yaml?")
_OFFER = re.compile(r"(?:^|[.!?]\s+|\n)\s*(?:(?:do\s+you\s+)?want\s+me\s+to|would\s+you\s+like\s+me"
                    r"\s+to|shall\s+i|should\s+i)\s+([^?\n]{3,200})\?\s*$", re.I)
# a reply that starts by saying no ("no,", "nope", "no!!", "nah")
_NO = re.compile(r"^\s*(?:no|nope|nah)\b(?!\s+(?:problem|worries|need)\b)", re.I)


def refused_offers(items: Sequence[Item]) -> dict[str, str]:
    """The statements that say no to what the agent offered at the end of its turn before
    them, with what was offered ("upload 2.3.9 to the Chef server")."""
    out: dict[str, str] = {}
    offered: dict[str, str] = {}
    for item in items:
        if item.role == "assistant" and item.kind not in ("tool_call", "tool_use") and \
                item.text.strip():
            m = _OFFER.search(item.text.strip())
            offered[item.stream] = m[1] if m else ""
        elif item.is_statement:
            if offered.get(item.stream) and _NO.match(item.text):
                out[item.id] = offered[item.stream]
            offered.pop(item.stream, None)
    return out
