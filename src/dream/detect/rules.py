"""Rules: a coding session's directives and corrections as one durable instruction each.

Each sentence a user says in a coding session (or types when rejecting a tool call) that the
directive detector classifies (:mod:`dream.detect.directives`) is written as a rule by
:mod:`dream.detect.rule_text`. The statement that starts a session, before the agent said
anything, is the session's task: only a sentence said for every time or for the whole
project is a rule in it.

Paraphrases of one rule (sentences whose content words overlap enough,
:func:`dream.detect.wording.same`) are grouped, with the count of times and sessions.
A rule's name keeps its negations (never, not, don't, no), so its record name says the
same thing as the rule.

A statement said in German, French, Spanish, Italian, Portuguese, Dutch, Swedish, Polish or
Czech is read by :mod:`dream.detect.rule_lang` with the same kinds of rule and the same
exclusions, its rules kept in its words; a sentence in it said in English is read here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from dream.detect import directives, grouping, noise, rule_lang, spelling, wording
from dream.detect.finding import Finding
from dream.detect.rule_text import (
    BRIEFED_RULE,
    CODE,
    MARKER,
    OPERATOR_MARK,
    explains,
    gives_credential,
    hands_over_secret,
    instead_after,
    only_what_not,
    reports_failure,
    rule_text,
    said_how,
    says_what_to_do,
)
from dream.items import Item

# a numbered or lettered choice offered in a question ("1. ask only once")
_OPTION = re.compile(r"^\s*(?:\d+|[a-z])[.)]\s")


def name_words(text: str, limit: int = 8) -> str:
    """Content words of a rule in order, negations kept ("never", "not", "do-not", "no")."""
    keep = {"never", "not", "no", "dont", "don't", "always", "only", "instead"}
    out: list[str] = []
    for w in re.findall(r"[^\W_](?:[^\W_]|['+#.-])*", text.lower()):
        w = w.strip(".'")
        if w in ("don't", "dont"):
            w = "do-not"            # a record name says "do not": no spelling of it is lost
        if (w in keep or w == "do-not" or (not wording.is_filler(w) and len(w) > 1)) and \
                w not in out:
            out.append(w.replace("'", ""))
        if len(out) >= limit:
            break
    return " ".join(out)


@dataclass
class Said:
    text: str
    kind: str
    item: Item


@dataclass
class RuleBook:
    """Rules found in one call, grouped across paraphrases, in the order first said."""

    groups: list[list[Said]] = field(default_factory=list)

    def add(self, text: str, kind: str, item: Item) -> None:
        words = wording.words(wording.core(text))
        # a rule that names only one thing (and how often) is the rule about it said again
        # ("./mvnw every time" after "dont use the system mvn ...; always ./mvnw ...")
        named = words - grouping.GENERIC - {"time"}
        for grp in self.groups:
            said = wording.words(wording.core(grp[0].text))
            # two rules that share only words of every rule ("do not use ... from here")
            # are two rules
            if wording.same(said, words) and (said & words) - grouping.GENERIC - {"from"} or \
                    len(named) == 1 and named <= wording.words(grp[0].text):
                grp.append(Said(text, kind, item))
                return
        self.groups.append([Said(text, kind, item)])

    def findings(self, vocabulary: Counter[str] | None = None) -> list[Finding]:
        """One finding per rule; with ``vocabulary`` (words of the session that the user did
        not type), a word the user mistyped is written as the session spells it."""
        out = []
        for grp in self.groups:
            best = grouping.fullest([grouping.Sentence(s.text, s.item) for s in grp])
            latest = next(s for s in grp if s.text == best.text and s.item is best.item)
            kind = "correction" if any(s.kind == "correction" for s in grp) else "directive"
            items = list({s.item.id: s.item for s in grp}.values())
            sessions = len({s.item.stream for s in grp})
            text = spelling.respell(latest.text, vocabulary) if vocabulary else latest.text
            fields = {"text": text, "type": kind,
                      "said": f"{_n(len(items), 'time')} in {_n(sessions, 'session')}"}
            out.append(Finding(kind, fields, [i.id for i in items],
                               name=f"rule {name_words(text)}"))
        return out


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# Claude Code keeps what the user typed when rejecting a tool call inside the tool result
_REJECTED_SAYING = re.compile(r"To tell you how to proceed, the user said:\s*(.+)", re.S)


def user_words(item: Item) -> str | None:
    """What the user said in an item: a statement's text, or the words typed when
    rejecting a tool call (a correction of what the agent was about to do)."""
    if not item.evidence:
        return None
    if item.kind == "statement" and item.role == "user":
        return item.text
    if item.kind == "tool_result":
        m = _REJECTED_SAYING.search(item.text or "")
        return m[1].strip() if m else None
    return None


def said_rules(item: Item, first_answers: bool, text: str | None = None,
               opening: bool = False, starts: bool = False) -> list[tuple[str, str]]:
    """(rule, kind) for each correction or directive in a coding session's statement
    (``first_answers``: the statement answers an assistant turn; ``text``: the user's
    words when they are not the item's whole text; ``opening``: the session's first
    statement, whose "X should Y" asks for the work of the session; ``starts``: that
    statement starts the session, before the agent said anything, so it is the task and only a
    sentence said for every time or for the whole project is a rule)."""
    text = noise.strip_paste(item.text if text is None else text)
    # a sentence said in brackets as an aside is said all the same ("(don't install stuff
    # into the system python)")
    sents = [re.sub(r"^\((?=[^()]+\)\W*$)|\)(?=\W*$)(?<=\))", "", s) if re.fullmatch(
        r"\([^()]+\)\W*", s) else s for s in wording.split(text)]
    # a sentence that hands over a credential ("the deployer key is KEY=[REDACTED], it stays
    # in CI") is said for that once: no rule, nor part of the rule next to it
    sents = [s for s in sents if not gives_credential(s)]
    # "propagate with ?": Rust's operator named at the end, no question (:data:`OPERATOR_MARK`)
    sents = [OPERATOR_MARK.sub(r"\1`?`", s) for s in sents]
    options = [ln for ln in text.splitlines() if _OPTION.match(ln)] if "?" in text else []
    lines = _line_of(text, sents)
    out: list[tuple[str, str]] = []
    at: list[int] = []          # the sentence each rule of ``out`` was said in
    last = -2
    lang = rule_lang.language(text)
    briefed = _briefed(sents, lang) if starts or opening else {}
    sents = [briefed.get(n, s) for n, s in enumerate(sents)]
    by_line = len({lines[k] for k in briefed}) > 1      # under a heading, a rule a line
    foreign = {n: (rule, kind) for n, rule, kind in
               rule_lang.said_rules(sents, lang, starts)} if lang else {}
    if lang and briefed:        # the lines under "ein paar Dinge vorweg:" are no task
        first = min(briefed)
        foreign = {n: r for n, r in foreign.items() if n < first} | {
            n + first: (rule, kind) for n, rule, kind in
            rule_lang.said_rules(sents[first:max(briefed) + 1], lang, False)}
    for n, sent in enumerate(sents):
        if _NEW_THING.search(sent) and not directives.STRONG.search(sent):
            continue                # what a thing asked for does, said after it
        if n in foreign:
            out.append(foreign[n])      # a rule said in another language
            at.append(n)
            last = n
            continue
        if lang and not _english(sent):
            continue                    # said in the statement's language: read above
        if any(sent in line for line in options):
            continue                # "1. ask only once ..." offered as a choice: no rule
        if _missing_flag(sent, text):
            continue                # "NO context flag. ... --context k3d-edge on every kubectl"
        if out and last >= n - 2 and _taken(sent, out[-1][0]):
            continue                # the other half of the rule before it, already in it
        again = _said_again(sent, sents[max(0, n - 2):n])
        if again:               # "dialyzer?? I said every time." -> "Dialyzer every time."
            if out and last == n - 1:
                out.pop()
                at.pop()
            out.append((again, "directive"))
            at.append(n)
            last = n
            continue
        before, named_again = _same_as_before(sent) if not starts else (None, None)
        if named_again:         # "--skip-local-validator, same as last week."
            out.append((named_again, "correction"))
            at.append(n)
            last = n
            continue
        if before:              # "same answer as last week: no packer build locally."
            sent = before
        kind = directives.classify(sent, n == 0, first_answers, coding=True) or \
            directives.classify(wording.plain_rule(sent), coding=True)
        if before and kind is None and not directives.is_question(sent):
            kind = "correction"
        if n in briefed and kind is None and BRIEFED_RULE.search(sent) and \
                not directives.is_question(sent):
            kind = "directive"      # a line under "house rules:" that says how to work
        if kind not in ("correction", "directive"):
            continue
        if n in briefed:
            pass                    # said under a heading for how the project works
        elif opening and (_TASK_SHOULD.search(sent) and not (
                MARKER.search(sent) or said_how(sent) or directives.STRONG.search(sent) or
                _STANDING_WORDS.search(sent)) or
                re.search(r"\bthe new \w+", sent, re.I)):
            continue                # the session's request: "the export should include X"
        elif starts and (not (_FOR_EVERY_TASK.search(sent) or directives.WE_DO.search(sent) or
                              re.match(directives.NO_X_EVER, sent, re.I) or
                              re.match(directives.HOUSE_STYLE_NOT, sent, re.I)) or
                       _SHOW_ME.match(wording.without_lead_in(sent))):
            continue                # the task that starts the session, not a standing rule
        # under a heading, the task said before it is no other half of a rule; laid out a
        # rule a line, another line is another rule (:func:`_by_line`)
        start = min(briefed) if n in briefed else 0
        near = [k for k in range(max(start, n - 1), min(n + 3, len(sents)))
                if not (n in briefed and by_line) or lines[k] == lines[n]]
        rule = rule_text(sent, [sents[k] for k in near if k in (n - 1, n + 1)] +
                         instead_after([sents[k] for k in near if k > n]),
                         sents[n + 1] if n + 1 in near else None, n in briefed)
        if rule is None and before:
            rule = _named_again(before)     # "same as last time: tox -e py312"
        if rule is None:
            continue
        named = _named_before(sents[n - 1]) if n and _ALWAYS_A.match(rule) else None
        if named:
            # "test=True! always a dry run.": what is always so is the name said before it
            if out and last == n - 1:
                out.pop()
                at.pop()
            rule = f"{named}, {rule[0].lower()}{rule[1:]}"
        missing = _asked_for(sents[n - 1]) if n else None
        points_back = _POINTS_BACK.search(wording.without_lead_in(sent)) is not None
        ends_in_one = re.search(r"\bone\W*$", rule) is not None
        if points_back and ends_in_one and missing:
            # "where's the down section?? every migration gets one": the one asked for
            rule = re.sub(r"\bone(?=\W*$)", ("an " if missing[0] in "aeiou" else "a ") + missing,
                          rule)
        elif points_back and ends_in_one and not n:
            continue                # "every migration gets one": which one, said elsewhere
        elif points_back and n:
            # "warnings count too", "every asset gets both": what it adds to is said before
            if last == n - 1 and out:
                prev, prev_kind = out[-1]
                out[-1] = (f"{prev.rstrip('.')}; {rule[0].lower()}{rule[1:]}", prev_kind)
                continue
            said = noise.clean_words(noise.strip_paste(wording.without_lead_in(sents[n - 1])))
            said = said.strip().rstrip(" .!")
            if not re.match(r"^(?:please\s+)?(?:" + directives.INSTRUCTION_VERBS + r")\b", said,
                            re.I) or directives.is_question(said) or len(said.split()) > 16:
                continue            # nothing it adds to: no rule of its own
            rule = f"{said[0].upper()}{said[1:]}; {rule[0].lower()}{rule[1:]}"
        if last == n - 1 and out and _BARE_INSTEAD.match(rule):
            prev, prev_kind = out[-1]       # "X is off limits. rollback + migrate instead"
            out[-1] = (f"{prev.rstrip('.')}; {rule[0].lower()}{rule[1:]}", prev_kind)
            continue
        if out and at[-1] not in foreign and (last == n - 1 or last == n - 2 and explains(
                sents[n - 1])) and only_what_not(out[-1][0]) and (
                    says_what_to_do(rule) or _BARE_NO.match(sents[at[-1]])) and \
                _other_half(out[-1][0], rule) and (lines[last] == lines[n] or not (
                    by_line and n in briefed)):
            # "don't hard-code the 3. windows and thresholds live in conf/base/...": the
            # other half of the rule before it (past a sentence that only says why)
            prev, prev_kind = out[-1]
            first = rule if re.match(r"[A-Z]{2}|[A-Z][a-z]+[A-Z]", rule) else \
                rule[0].lower() + rule[1:]
            out[-1] = (f"{prev.rstrip('.')}; {first}",
                       "correction" if "correction" in (prev_kind, kind) else kind)
            last = n
            continue
        if last == n - 1 and out and out[-1][0].rstrip(" .").lower() in rule.lower():
            # the rule before it is the other half this one took ("builds go through the
            # wrapper: `./x.py build`. don't call cargo build by hand")
            out[-1] = (rule, "correction" if "correction" in (out[-1][1], kind) else kind)
            last = n
            continue
        out.append((rule, kind))
        at.append(n)
        last = n
    out = _by_line(out, at, sents, briefed, lines) if by_line else out
    # a sentence that hands over a credential is said for that once, whatever it adds
    return [(rule, kind) for rule, kind in out if not hands_over_secret(rule)]


def _line_of(text: str, sents: list[str]) -> list[int]:
    """The line of ``text`` each of its sentences starts on."""
    out, pos = [], 0
    for sent in sents:
        found = text.find(sent[:24].strip(), pos)
        if found >= 0:
            pos = found
        out.append(text.count("\n", 0, pos))
    return out


def _by_line(out: list[tuple[str, str]], at: list[int], sents: list[str],
             briefed: dict[int, str], lines: list[int]) -> list[tuple[str, str]]:
    """Under a heading for how the project works laid out one item a line ("- never touch
    boot.py. wifi + watchdog setup lives there ..."), the sentences of a line are one rule:
    the rule said first on it takes the rest of the line (another rule, its reason, what to
    do instead), as long as the whole stays a line of the brief. A heading followed by one
    paragraph keeps a rule a sentence."""
    rule_at = dict(zip(at, out))
    merged: list[tuple[str, str]] = []
    taken: set[int] = set()
    for (rule, kind), n in zip(out, at):
        if n in taken:
            continue
        rest = [k for k in sorted(briefed) if n in briefed and k > n and lines[k] == lines[n]]
        parts = [rule.rstrip(" .!")]
        for k in rest:
            said = rule_at[k][0] if k in rule_at else \
                noise.clean_words(noise.strip_paste(sents[k])).strip()
            if not said or directives.is_question(said) or \
                    said.rstrip(" .!").lower() in parts[0].lower():
                continue                # a question, or said in the rule already (its reason)
            parts.append(said.rstrip(" .!"))
        joined = "; ".join(p if i == 0 or re.match(r"[A-Z]{2}|[A-Z][a-z]+[A-Z]", p) else
                           p[:1].lower() + p[1:] for i, p in enumerate(parts)) + "."
        if len(parts) > 1 and len(joined) <= 240:
            rule = joined
            kind = "correction" if any(rule_at[k][1] == "correction" for k in rest
                                       if k in rule_at) else kind
            taken.update(rest)
        merged.append((rule, kind))
    return merged


# a heading in the message that opens a session, announcing how the project works rather
# than the task: "house rules:", "a few things about this repo:", "stuff to know bc you'll
# touch it:", "before you start, how this repo works:", "quick orientation:", "notes:"
_BRIEFING = re.compile(
    r"^(?P<head>(?:[\w',]+\s+){0,8}?(?:(?:things|stuff|notes?|rules|ground rules|house rules"
    r"|conventions|context|orientation|background)\b(?:[\w',]*\s*){0,10}?"
    r"|how (?:this|the|our) (?:repo|repository|project|codebase) works\s*))\s*:(?!\S)\s*", re.I)
# where the task starts after the heading's lines: "task: prove X", "now: ..."
_TASK_HEAD = re.compile(r"^(?:the\s+)?(?:task|todo|to do|ask|request|job)\s*:", re.I)


def _briefed(sents: list[str], lang: str | None) -> dict[int, str]:
    """The sentences of the message that opens a session said under a heading that announces
    how the project works ("house rules, since you'll be in here a lot:", "ein paar Dinge
    vorweg:"), up to a heading for the task ("task: ..."), each without the heading: they
    are standing rules, not the task."""
    out: dict[int, str] = {}
    for n, sent in enumerate(sents):
        head = _BRIEFING.match(sent) or (rule_lang.briefing(sent, lang) if lang else None)
        if head is None:
            continue
        rest = sent[head.end():].strip()
        if rest:
            out[n] = rest
        out.update({k: sents[k] for k in range(n + 1, len(sents))})
        break                   # the first heading: what follows it is under it
    for k in sorted(out):
        if _TASK_HEAD.match(out[k]):
            out = {j: t for j, t in out.items() if j < k}
            break
    return out


def _english(sentence: str) -> bool:
    """A sentence of a statement in another language said in English."""
    return rule_lang.language(sentence) is None and len(sentence.split()) >= 3 and \
        rule_lang.english_words(sentence) >= 2


# a sentence that only says how often ("I said every time.", "every time, sorry, I should put
# it in the README"): what to do is the short sentence before it
_ONLY_HOW_OFTEN = re.compile(r"^(?:every (?:single )?time|each time|always)\s*(?:[,.!;:-]\s*|$)"
                             r"(?:(?:sorry|please|pls|ok|okay)\b[\s,.!;:-]*)*(?P<rest>.*)$", re.I)
_ASKS = re.compile(r"^(?:what|why|how|who|where|when|which|is|are|can|could|do|does|did|should"
                   r"|would|will)\b", re.I)


def _said_again(sentence: str, before: list[str]) -> str | None:
    """A rule said again by naming it and how often: the nearest of the two sentences before
    that names something (at most four words, no question, no "the ..." that only describes
    it) with "every time" ("mise exec. every time" -> "Mise exec every time.", "./mvnw. the
    wrapper. every single time." -> "./mvnw every time."); the rest of the sentence may only
    be about the user ("I should ...")."""
    m = _ONLY_HOW_OFTEN.match(wording.without_lead_in(sentence).strip())
    if not m or m["rest"] and not re.match(r"^i\b", m["rest"], re.I):
        return None
    for said in reversed(before):
        what = wording.without_lead_in(noise.strip_paste(said)).strip(" ?!,;:").rstrip(".")
        if 0 < len(what.split()) <= 4 and not _ASKS.match(what) and not _DESCRIBES.match(what) \
                and wording.words(what) - {"thanks", "thank", "thx", "cheer", "yes", "yeah"}:
            return f"{what[0].upper()}{what[1:]} every time."
    return None


_DESCRIBES = re.compile(r"^(?:the|a|an|this|that|my|your|our|it)\b", re.I)
# said to be what was said before: "same as last time: X", "same answer as last week: X",
# "X, same as last week", "X, like last time", "X, again."
_BEFORE = r"(?:last\s+(?:time|week|session)|yesterday|before|always)"
_SAME_BEFORE_FIRST = re.compile(r"^(?:(?:it'?s|that'?s)\s+)?(?:the\s+)?same(?:\s+(?:thing|answer|deal"
                                r"|story))?\s+as\s+" + _BEFORE + r"\s*[:,—–-]\s*(?P<rest>\S.*)$", re.I)
_SAME_BEFORE_LAST = re.compile(r"^(?P<what>\S.*?)\s*(?:[,.]\s*|\s[—–-]\s*|…\s*)(?:(?:the\s+)?same\s+as"
                               r"|like|as)\s+" + _BEFORE + r"\W*$|^(?P<what2>\S.*?)\s*[,.]\s*again\W*$",
                               re.I)
# what the user points at: a pronoun or the user's own doing ("you forgot X", "uninstall it")
_POINTS_AT = re.compile(r"\b(?:i|you|we|it|this|that|they|he|she|them|me)\b", re.I)


def _same_as_before(sentence: str) -> tuple[str | None, str | None]:
    """A sentence that says a rule again by pointing at an earlier time: (the rule said
    after "same as last time:", to read as a rule, or None; the thing named again with "X,
    same as last week" / "X, again", at most six words naming no pronoun, as a rule, or
    None)."""
    text = noise.strip_paste(sentence).strip()
    m = _SAME_BEFORE_FIRST.match(re.sub(r"^(?:(?:ok(?:ay)?|yeah|yes|and|also|no|again|so)\b[,.!]?\s+)+",
                                        "", text, flags=re.I))
    text = wording.without_lead_in(text).strip()
    if m:
        return m["rest"], None
    m = _SAME_BEFORE_LAST.match(text)
    if m is None or "?" in sentence:
        return None, None
    return None, _named_again(m["what"] or m["what2"])


def _named_again(what: str) -> str | None:
    """What a sentence that says it was said before names, as a rule: at most six words
    naming a command, flag, file or identifier, long enough to stand as a line of its own,
    no question, no pronoun, no feeling, no report of a failure ("--skip-local-validator",
    "tox -e py312 --recreate"; not "venv mkdocs, again", nor "nox -s docs", a command the
    brief holds as a command, nor "dmd chokes on simd.d")."""
    what = what.strip().rstrip(" ,.!?…—–-").lstrip(" ,!?…—–")
    if len(what) < 14 or directives.is_question(what) or len(what.split()) > 6 or \
            reports_failure(what) or \
            not CODE.search(what) or \
            _POINTS_AT.search(what) or noise.is_feeling(what) or not wording.words(what):
        return None
    return f"{what}."


def _taken(sentence: str, rule: str) -> bool:
    """The sentence is already part of ``rule`` (as its other half or its reason)."""
    said = noise.clean_words(noise.strip_paste(sentence)).strip().rstrip(".!").lower()
    return len(said) > 12 and said in rule.lower()


def _other_half(before: str, rule: str) -> bool:
    """``rule`` (what to do) is the other half of ``before`` (only what not to do): it says
    "instead", or ``before`` is a short prohibition with no reason of its own ("Don't edit
    add_payments."); a prohibition with its reason ("never hand-edit gen/ — it's generated")
    is whole, and the rule after it is another rule."""
    if len(before) + len(rule) > 240:
        return False
    said = re.sub(r"^Do not use\s", "no ", before)     # as said: "no X" is written "Do not use X"
    return bool(re.search(r"\binstead\b", rule, re.I)) or len(said.split()) <= 8 and \
        not re.search(r"[,;—–]|\s-\s", before)


# a rule that adds to what the sentence before it says, naming it only by pointing back:
# "warnings count too", "every asset gets both" (not "run make lint as well", which says what)
_POINTS_BACK = re.compile(r"^(?!(?:please\s+)?(?:" + directives.INSTRUCTION_VERBS + r")\b)"
                          r"[\w.-]+(?:\s+[\w.-]+){0,3}\s+(?:count|counts|gets?|needs?|goes|go"
                          r"|applies|apply|matters?|has|have)\s+(?:both|too|as well|either|one\W*$)\b",
                          re.I)
# "no context flag": a flag named by its word, not written as one
_NO_FLAG = re.compile(r"^no\s+(?P<name>[a-z][\w-]*)\s+(?:flag|option|switch|arg(?:ument)?)\W*$",
                      re.I)


def _missing_flag(sentence: str, text: str) -> bool:
    """"NO context flag." in a statement that writes the flag itself ("--context k3d-edge on
    every kubectl"): the flag is missing from what the agent ran, no flag is refused."""
    m = _NO_FLAG.match(wording.without_lead_in(noise.strip_paste(sentence)).strip())
    return bool(m) and re.search(r"(?<![\w-])--?" + re.escape(m["name"]) + r"\b", text,
                                 re.I) is not None


# a rule said without a verb, what it is about left to the sentence before: "always a dry
# run", "always a locked install"
_ALWAYS_A = re.compile(r"^Always\s+(?:a|an|the)\s+[\w-]+(?:\s+[\w-]+){0,3}\.$")


def _named_before(sentence: str) -> str | None:
    """A sentence that only names a setting, flag or call ("test=True!", "--frozen!"): what
    a verbless rule said after it is about, or None."""
    named = wording.without_lead_in(noise.strip_paste(sentence)).strip(" !.,")
    if not named or len(named.split()) > 4 or directives.is_question(sentence) or \
            not (re.search(r"\w=\w|\w\(\)|(?<![\w-])--?[a-z]", named) or CODE.search(named)):
        return None
    return named


# what a question says is missing: "where's the down section??", "where is the changelog
# entry?", "what about the index?"
_WHERE_IS = re.compile(r"^(?:and\s+|so\s+)?(?:where(?:'?s| is| are)|what about)\s+(?:the|your)\s+"
                       r"(?P<what>[\w./-]+(?:\s+[\w./-]+){0,2})\s*\?+$", re.I)


def _asked_for(sentence: str) -> str | None:
    """The thing a question says is missing ("where's the down section??" -> "down
    section"), or None."""
    m = _WHERE_IS.match(noise.strip_paste(sentence).strip())
    return m["what"] if m else None


# "no kubectl apply.": what is refused named alone, the rule said next says what it stands for
_BARE_NO = re.compile(r"^no\s+\S+(?:\s+\S+)?[\s.!]*$", re.I)
# "rollback + migrate instead": what to do, leaning on the sentence before for what not to
_BARE_INSTEAD = re.compile(r"^(?:[\w`./:+-]+\s+){1,4}instead\.?$", re.I)
# said for every time or as an aside: a rule even in the request that opens a session
_STANDING_WORDS = re.compile(r"^(?:fyi|btw|note|heads up|reminder)\b|\b(?:every|each|whenever)\b"
                             # about how the work is done, not what to build
                             r"|^(?:the\s+|all\s+|our\s+|any\s+)?(?:tests?|specs?|builds?|commits?"
                             r"|commit messages?|migrations?|deploys?|releases?|prs?|pull requests?"
                             r"|branch(?:es)?|dependencies|deps|ci|lint(?:ing|er)?|code|public api"
                             r"|changelog|docs?)\b"
                             r"|\b(?:before|after)\s+(?:you|we|any|commit|push|merg|run|deploy)",
                             re.I)
# what makes a sentence of the request that opens a session a rule beyond that session's task
# ("use commons-text for the tokenizer", "the tests must still pass", "stop retrying on 4xx"
# are the task): a word for every time or for the whole project, or a rule said as a negation
_FOR_EVERY_TASK = re.compile(
    r"\b(?:always|never|every|each|whenever|from now on|going forward|no longer|only ever"
    r"|in this (?:repo|repository|project|codebase)|here\W*$|(?:pinned|locked) (?:on|to|at)|(?:is|are) (?:off[- ]limits|forbidden"
    r"|not allowed)|we (?:always |only |never )?(?:use|run|build|test|deploy|keep|commit|pin|format"
    r"|lint|prefer|don'?t|do not)|(?:don'?t|do not|dont)\s+\w+|(?:must|should|may)(?:\s+not|n'?t)|(?:before|after)\s+(?:you|we|any"
    r"|every|each|commit|push|merg|deploy))\b", re.I)
# a request that opens a session, said with "should": what to build, not how to work
_TASK_SHOULD = re.compile(r"^(?:(?:the|a|an|all|every|each)\s+)?[\w/.`-]+(?:\s+[\w/.`'-]+){0,12}"
                          r"\s+(?:should|must|needs? to)\b(?!\s+(?:always|never))", re.I)


# a new thing asked for, then what it does after a colon: "Button needs a `loading` state:
# spinner, and it must not fire onClick while loading", "add a check: no order over the
# stock", "ajoute une contrainte : on ne peut pas réserver plus que la jauge" - what follows
# describes the thing to build, no rule about how to work (unless the head names a rule)
_NEW_THING = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|now|then|please|pls|next)[,]?\s+)*(?:(?:add|create|build"
    r"|implement|write|make|ajoute[rz]?|cr[ée]e[rz]?|a[ñn]ade|agrega|crea|erstelle|baue)\s+"
    r"|(?:the\s+)?(?!(?:every|each|all|any)\b)[\w`./-]+(?:\s+[\w`./-]+){0,2}\s+needs?\s+)(?:a|an|one|another|une?|una?"
    r"|eine?n?)\s+(?!(?:\w+\s+)?(?:rule|note|reminder|r[èe]gle|regla|regel|memory)\b)"
    r"[^:;.?!]{1,40}?\s*:\s*\S", re.I)


# what the session that starts with it should show or tell: the task, whatever it adds
_SHOW_ME = re.compile(r"^(?:please\s+|pls\s+|just\s+)?(?:show|tell|give|send)\s+me\b", re.I)


def starts_session(item: Item, before: Item | None) -> bool:
    """The statement is said before the agent said anything in its session."""
    return before is None or before.stream != item.stream or before.role != "assistant"


def corrections(items: Sequence[Item]) -> list[grouping.Sentence]:
    """The rules the user statements among ``items`` give (a session's items in order, so
    a statement's previous item is known), exactly as the dream run reads them."""
    out: list[grouping.Sentence] = []
    prev: dict[str, Item] = {}
    opened: set[str] = set()
    for item in items:
        before = prev.get(item.stream)
        prev[item.stream] = item
        words = user_words(item)
        if words is None:
            continue
        rejected = item.kind == "tool_result"
        opening = not rejected and item.stream not in opened
        opened.add(item.stream)
        for rule, _kind in said_rules(item, rejected or directives.after_assistant(before),
                                      words, opening, opening and starts_session(item, before)):
            out.append(grouping.Sentence(rule, item))
    return out
