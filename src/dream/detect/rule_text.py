"""Rule text: the durable instruction a classified sentence of a coding session gives.

A sentence the directive detector classifies (:mod:`dream.detect.directives`) becomes a
rule only when it still says something once taken out of its conversation:

- pasted terminal output, spinners and swearing are cut off (:mod:`dream.detect.noise`);
  the conversational lead-in ("no,", "I told you to", "I said it last week:", "remember
  that") goes, and a sentence that is nothing else is no rule;
- a correction that only answers the last turn ("no, the block should stay as is", "no,
  that's not it") is no rule: it needs a standing marker (always, never, don't, must,
  should, instead, rather than, "use Y, not X", "we use ...") whose subject is not a
  bare "this"/"that"/"it"/"the X" about the code at hand;
- a correction that says only what not to do takes what to do from the sentence next to
  it in the same statement, so the rule keeps both halves ("Use uv run pytest, not npm.",
  "Don't use the system mvn; always ./mvnw from the repo root.");
- an invariant stated inside a report ("I think X doesn't adhere to the invariant that
  every line ... must not be wider than the width") keeps the clause that states it.
"""

from __future__ import annotations

import re

from dream.detect import directives, noise, wording

MARKER = re.compile(
    r"\b(?:always|never|don'?t|do not|must(?:n'?t| not| never| always)"
    r"|should(?:n'?t| not| never| always)|no longer"
    r"|from now on|going forward|every time|each time|whenever|instead|rather than"
    r"|we (?:always|never|use|don'?t|only)|i told you|i said|i asked you|make sure|stop"
    r"|avoid|not\s+[\w.+#/-]+(?:\s*,\s+|\s+)but|(?:use|prefer)\s+[\w.+#/-]+(?:\s*,\s+|\s+)(?:not|over)"
    r"|only (?:use|run)|you (?:have|need) to|please no|off[- ]limits|not allowed|forbidden|banned"
    r"|refrain from|only ever)\b|" + directives.LEAVE_ALONE + "|" + directives.NO_NAME +
    r"|^(?:any|every|each)\s+[\w-]+(?:\s+[\w-]+){0,3}\s+(?:means|=|requires)\s"
    r"|" + directives.PLACED_OR_PREFERRED +
    r"|" + directives.NO_X_EVER + "|" + directives.NO_THING + "|" + directives.HOUSE_STYLE_NOT +
    r"|^every\s+[\w-]+(?:\s+[\w-]+)?\s+(?:gets?|needs?|goes)\b"
    r"|\b(?:is|are)\s+`?[\w./@:-]+`?\s+(?:here|in this (?:repo|project)),?\s+not\s+\S"
    r"|\bplease,?\s+not\s+\w"
    r"|\b(?:use|prefer|keep)\b[^.!?]{1,60},\s*(?:not|no|never)\s+\w"
    r"|^`?[\w./-]+(?:\s+[\w./=-]+){0,4}`?,\s*(?:not|never)\s+(?:\w+\s+)?`?[\w./-]+`?\W*$"
    # where things are: "the frontend lives in web/, not app/"
    r"|\b(?:lives?|is|are|goes|go|belongs?|sits?)\s+(?:in|under|at)\s+\S+,?\s+not\s+\S+"
    r"|" + directives.EVERY_ONE +
    # a flag said to go on every call: "--context k3d-edge on every kubectl"
    r"|^`?--?[a-z][\w-]*(?:[ =]`?[\w./:@-]+`?)?`?\s+(?:on|for|with|in)\s+every\s+(?:single\s+)?"
    r"[\w-]+", re.I)
# a line under a heading for how the project works ("house rules:") that says how to work,
# not what is there: "figures are SVG, no PNGs", "British spelling throughout", "clippy has to
# be clean", "omega is gone, use lia", "the changelog stays sorted" (not "python tests are in
# tests/"); "X should Y" alone
# is what to build, as in the request that opens a session
BRIEFED_RULE = re.compile(
    r"\b(?:not|no|never|don'?t|dont|do not|nothing|only|throughout|always|has to|have to"
    r"|needs?|must|use|instead|rather"
    # what is to be kept as it is: "exported symbols stay in alphabetical order"
    r"|stays?|remains?)\b", re.I)
# what a passing decision needs besides the marker: a modal or an instruction
MARKER_LOOSE = re.compile(r"\bmust\b|\bshould\b|\bensure\b|\bplease use\b|\bkeep it \w+"
                          r"|\bonly (?:want|use|run|the first|first)\b|\bdont\s+\w+"
                          r"|^no \w+(?: \w+)?!|\bi(?: would|'d)? (?:only )?(?:want|replace)\b",
                          re.I)
# a quoted name, a file, a path, a flag or a camelCase identifier: what both patterns below
# take as a name from outside the conversation
_NAMED = (r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|[\w-]+/[\w./-]+|(?<!\w)--?[a-z][\w-]*"
          r"|\b[a-z]+[A-Z]\w*")
# a name from the code or the machine: a file, path, flag, identifier or command
CODE = re.compile(_NAMED + r"|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z_]{3,}\b")
_DEICTIC = re.compile(r"^(?:(?:but|and|so|then|well|ok|okay)\s+)?(?:this|that|it|these|those|"
                      r"here|there|the \w+|your \w+)\s+(?:\w+\s+)?(?:should|must|needs?|has|"
                      r"is|was|stays?|can)\b", re.I)
# a word that names something outside this one conversation: a tool, file, flag or term
_ANCHOR = re.compile(_NAMED + r"|\b[A-Z]{2,}\w*|\b(?:tests?|commits?|branch|main|npm|"
                     r"pnpm|yarn|uv|pip|pytest|make|docker|git|lint|linter|format|logs?|"
                     r"console|migrations?|schema|api|ci|readme|docs?|config|types?|"
                     r"dependencies|deps|errors?|warnings?|spelling|comments?)\b")
_REPORTED = re.compile(r"\bshould (?:work|be (?:fine|good|ok|okay|fixed|done|there)|fix|pass|"
                       r"now|help)\b|\bwhat (?:should|must)\b|\bi should\b", re.I)
# "this repository", "this project": the scope a rule is for, not a pointer into the talk
_SCOPE = r"(?:repo|repository|project|codebase|monorepo|package|workspace|team|app)\b"
# a decision said in passing that is about this moment, this file, or an opinion
_PASSING = re.compile(r"\b(?:for now|real quick|right now|for this (?:one|time)|this time|imo|"
                      r"never mind|nevermind|don'?t (?:bother|worry)|"
                      r"i think|i feel|i guess|maybe|probably|perhaps|you can|let me|let'?s|"
                      r"i don'?t (?:think|tink|know|understand|see|get)|these (?!" + _SCOPE +
                      r")\w+|this (?!" + _SCOPE + r")\w+|that \w+ (?:should|must)|those \w+)\b",
                      re.I)
# "here" at the end of an instruction that names nothing from the project: this spot in
# the code ("use a map here"), not this repository ("we use pnpm here")
# ("from here" after three words or more of what not to run is this machine: "no devnet
# deploys from here", or a verb said not to be done from here: "don't flash from here";
# not "never from here")
_LOCAL = re.compile(r"\bhere\W*$", re.I)
_FROM_HERE = re.compile(r"^\W*+(?:(?:\S+\s+){3,}|(?:don'?t|dont|do not|never)\s+[a-z]+\s+)from here\W*$",
                        re.I)
# said of this moment, wherever in the sentence ("right now, to disable telemetry we use ...")
_NOW = re.compile(r"\b(?:for now|right now|for this (?:one|time)|this time|at the moment"
                  r"|(?<!from )today(?!\s+on\b)|tonight"
                  r"|not (?:now|today)\b)\b"
                  r"|\b(?:don'?t|do not|not)\s+\w+(?:\s+\w+)?\s+yet\b(?!.*\bbecause\b)", re.I)
# a thought, a doubt or a question said to be only one: no instruction ("I keep thinking we
# should move the IO to effectful one day", "I am not sure if the year should start in
# October", "just wondering, not a task", "Just asking, dont do anything.", "wonder if we
# should've gone with the python sdk")
_THOUGHT = re.compile(r"\b(?:i(?:'m| am| was| keep| kept)? (?:thinking|wondering)|i wonder"
                      # with its subject left out: "wonder if we should've gone with X tbh"
                      r"|^(?:\W*(?:hm+|so|and|but|honestly|tbh)\W+)*wonder(?:ing)? (?:if|whether)"
                      r"|(?:i'?m|i am) not sure|not sure (?:if|whether)|idk|one day|someday"
                      r"|some day|at some point|just (?:asking|wondering|curious)|not a task"
                      r"|thinking (?:out loud|aloud))\b"
                      r"|\b(?:don'?t|dont|do not) do anything(?: yet)?\W*$", re.I)
# the next step of the session: "now run the worker against a local server ...", "then add
# the index"
_NEXT_STEP = re.compile(r"^(?:now|then|next)[,:]?\s+(?:" + directives.INSTRUCTION_VERBS + r")\b",
                        re.I)
# a rule on a condition about an identifier of the code being changed ("if cardCount is only
# used in Board, don't expose it from Column"): a remark on this change, not a project rule
_IF_THE_CODE = re.compile(r"^(?:[Ii]f|[Ww]hen|[Ss]ince)\s+`?(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)`?"
                          r"\s")
# a sentence whose subject points back at what was said before it: it adds no rule of its own
_POINTS_BACK = re.compile(r"^(?:that'?s|thats|that is|this is|it'?s|its|which is)\s+(?:how|what"
                          r"|why|where|the way)\b", re.I)
# the user's own things as they are, always or never: a fact about the user, no instruction
_ABOUT_MY_THINGS = re.compile(r"^my\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are|stays?|has|have)\s+"
                              r"(?:always|never)\b", re.I)
# what the user does themselves, on a condition or not ("if I want it on devnet I'll run it
# myself"): no way for the agent to work
_I_DO_IT = re.compile(r"^(?:if\s[^,]{0,60}?,?\s*)?i(?:'ll|’ll|\s+will|\s+do)?\s.*\bmyself\W*$", re.I)
# a thing that fails, said as a report: "dmd chokes on simd.d", "map tiles don't load on the
# device" - how something behaves, no instruction (unless the rest of the sentence gives one)
_FAILS = re.compile(r"^(?:(?:the|my|our|this|that|these|those)\s+)?(?!(?:you|we|i|it|they|please"
                    r"|pls|just|never|always|no|not|don'?t|dont|do|only|every|each|all|any"
                    r"|nothing)\b)[\w./@`-]+(?:\s+[\w./@`-]+){0,2}?\s+(?:chokes?|fails?|breaks?"
                    r"|crash(?:es)?|hangs?|dies|blows up|times out|segfaults?|(?:does|do|did|can"
                    r"|could|wo|will)(?:n'?t|\s+not)\s+(?:even\s+)?(?:load|see|find|work|build"
                    r"|start|compile|boot|render|connect|open|show up)|cannot\s+(?:see|find|load"
                    r"|connect|open))\b", re.I)


def reports_failure(text: str) -> bool:
    """The sentence reports that something fails ("dmd chokes on simd.d", "map tiles don't
    load on the device, only grey squares") and says nothing to do beside it, nor that it
    fails here (what fails on this project's machines is a rule)."""
    text = wording.without_lead_in(noise.clean_words(text)).strip()
    m = _FAILS.match(text)
    if m is None:
        return False
    rest = text[m.end():]
    # "tests don't build with gcc, use clang": what to do, said beside it
    told = re.search(r"(?:^|[,;:—–]\s*|\s-\s)(?:please\s+|so\s+|just\s+)?(?:"
                     + directives.INSTRUCTION_VERBS + r")\b", rest.strip(), re.I)
    # "qemu_x86 doesn't boot on our machines": broken here, a rule as in the other languages
    here = re.search(r"\b(?:here|in this (?:repo|repository|project|codebase)|on (?:our|my|this)"
                     r" (?:machines?|box|boxes|laptops?|setup|runners?))\b", rest, re.I)
    return not (told or here or MARKER.search(rest) or said_how(rest) or
                directives.STRONG.search(rest) or directives.HOUSE_RULE.search(rest) or
                directives.classify(rest, coding=True))


_NO_SUBJECT = re.compile(r"^(?:should|must|needs? to|has to|have to|is|are|was|were)\b", re.I)
_THAT_WAY = re.compile(r"\b(?:be|is|stay|stays|remain|look|looks)\s+(?:that|this|it|as is|like "
                       r"(?:this|that|it))\b|^(?:\w+,?\s+(?:[-—–]\s+)?)?(?:(?:don'?t|never)\s+)?"
                       r"(?:keep|leave|do|make(?: sure)?|put|change|touch|undo|redo)\s+(?:it(?! a habit)|this"
                       r"|that|them)\b|^(?:instead of|rather than)\s+(?:that|this|it)\b", re.I)
# what not to do to the thing at hand ("don't preload it, ...", "here you don't even need it"),
# or another way to do the task just asked for ("or just truncate"): neither says anything
# outside this conversation
_AT_HAND = re.compile(r"^(?:(?:(?:here|there),?\s+)?(?:you\s+)?(?:don'?t|dont|do not|never)\s+"
                      r"(?:even\s+|really\s+|actually\s+)?\w+\s+(?:it|this|that|them)\b(?!\s+"
                      r"(?:in|on|into|to|from|under|with|for)\b)|or\s)", re.I)
# "do it in build/": what to do is the thing at hand, named only in the conversation
_DO_IT = re.compile(r"(?:^|,\s*|\band\s+)(?:then\s+)?do\s+(?:it|this|that|them)\b(?!\s+(?:every|each|before|after|whenever|always))", re.I)
_REPORT = re.compile(r"^(?:i think|i feel|i guess|it seems|apparently|looks like)\b", re.I)
_LEAD = re.compile(r"^(?:to\s+|that\s+|you (?:have to|need to|must|should)\s+(?!not\b)"
                   r"|you (?:must|should)\s+(?=never\b|always\b))", re.I)
_POSITIVE = re.compile(r"\b(?:use|run|call|write|put|keep|always|prefer|instead)\b|\b(?:should|"
                       r"must)\s+(?:return|throw|raise|log|use|call|be|go|live|stay)\b", re.I)
# "run", "use" and "call" said as a thing, not as what to do: a part of a compound ("a
# dry-run", "run-time", "use-case") or a noun after a determiner ("every run", "the nightly
# run", "no use"); they name no way of doing it
_VERB_AS_NOUN = re.compile(r"-(?:run|use|call)\b|\b(?:run|use|call)-"
                           r"|\b(?:a|an|the|each|every|this|that|one|any|no|per|last"
                           r"|nightly|weekly|daily|test|ci|full)\s+(?:run|use|call)s?\b", re.I)


def _positive(text: str) -> bool:
    """Whether ``text`` says what to use or do (:data:`_POSITIVE`), its "run", "use" and
    "call" said as nouns left out (:data:`_VERB_AS_NOUN`)."""
    return bool(_POSITIVE.search(_VERB_AS_NOUN.sub(" ", text)))


def _positive_half(text: str) -> bool:
    """Whether a rule says what to do besides what it refuses: :func:`_positive` once the
    verbs it says not to do are left out ("don't use jest"), or naming its own way."""
    return _positive(re.sub(r"\b(?:don'?t|do not|never|not|stop)\s+\w+", "", text,
                            flags=re.I)) or _names_its_own_way(text)


def rule_text(sentence: str, neighbours: list[str], following: str | None = None,
              briefed: bool = False) -> str | None:
    """The instruction a classified sentence gives, cleaned and self-contained, or None
    when it says nothing outside its conversation. ``neighbours`` are the sentences around
    it (one of them may say what to do instead); ``following`` is the next one, kept as the
    rule's reason when it explains it; ``briefed``: the sentence is said under a heading for
    how the project works ("house rules:"), so it is standing without a marker of its own,
    and a clause of it that asks for the task ("add one for the cooldown") is no part of it."""
    # "propagate with ?": the operator named, written as code so no cleaning makes it a
    # question mark
    sentence = OPERATOR_MARK.sub(r"\1`?`", sentence)
    text = noise.clean_words(noise.strip_paste(sentence)).strip()
    if briefed:
        text = ", ".join(c for c in re.split(r",\s+", text)
                         if not (_TASK.match(c) and not BRIEFED_RULE.search(c))).strip()
    if not text or noise.is_feeling(text) or directives.is_question(text) or \
            directives.is_question(wording.without_lead_in(text)):
        return None             # "and why did you cat the key, don't do that": a question
    pointed = _POINTED_AT.match(text)
    if pointed and (MARKER.search(text[pointed.end():]) or
                    directives.classify(text[pointed.end():], coding=True)):
        text = text[pointed.end():]     # "and that foo.unwrap() — no unwraps in the lib"
    text, told = _without_complaints(text)
    if _THOUGHT.search(text):
        return None             # "I keep thinking we should ... one day", "just asking"
    if re.match(r"^(?:\w+[,.]?\s+)?i\s+(?:said|told you)\s+(?:ok|okay|yes|fine|sure)\b", text, re.I):
        return None             # "I said ok to the split, not to publishing": a consent
    lead = wording.without_lead_in(text)       # (text is the same until the "every" cut)
    if not lead.strip(" .!?,;:"):
        return None             # "I told you last week.": only points back, says no rule
    if _ABOUT_MY_THINGS.match(lead) or _I_DO_IT.match(lead):
        return None             # "my editor is ALWAYS open when we work": how the user is
    if reports_failure(text):
        return None             # "map tiles don't load on the device": a report
    if _POINTS_BACK.match(lead):
        return None             # "that's how tests run here, always": the rule said before it
    plain = wording.plain_rule(text)
    # a marker that opens the rule counts past the lead-in ("again, no file reads inside nodes")
    loose = not (told or MARKER.search(text) or MARKER.match(plain) or said_how(text) or
                 said_how(plain) or
                 directives.HOUSE_RULE.search(text) or
                 directives.STRONG.search(text) or directives.EVERY_TIME.search(text) or
                 directives.NEXT_TIME.search(text))
    if briefed and loose:
        if not BRIEFED_RULE.search(re.sub(r"\bshould\b.*", "", text)):
            return None         # "tests are EditMode tests in X, add one for Y": the task
        loose = False
    if loose and not MARKER_LOOSE.search(text):
        return None
    if _IF_THE_CODE.match(lead):
        return None             # "if cardCount is only used in Board, ...": a review remark
    if loose and _NEXT_STEP.match(lead):
        return None             # "now run the worker ..., I want to see the retries": a step
    if loose and (_TASK.match(text) or _about_the_code_at_hand(text)):
        return None             # "add X: it should ...", "X rounds down, it should round up"
    every = re.search(directives.EVERY_ONE, text, re.I)
    if every and every.start() > 0 and (_AT_HAND_START.match(lead) or _TASK.match(lead)):
        # "label it X, every figure...", "change X and — every change to X comes with ..."
        text = _every_one(text[every.start():].lstrip(" ,;:—–-"))
    bare_no = re.match(r"^no (\w+(?: \w+)?)!", text, re.I)
    body = f"Avoid {bare_no[1]}" if bare_no else _clause(wording.plain_rule(text))
    no_x = re.match(r"^No\s+(\w+(?:\s+\w+)?)(?:\s+please)?,\s+(use\s.+)$", body, re.I)
    if no_x:                    # "no global ktlint please, use the gradle task"
        body = f"Don't use {no_x[1]}; {no_x[2]}"
    elif re.match(r"^(?:No|NO)\s+(?:more\s+)?(?=[\w`:@~]|--?\w)", body) and not re.match(
            r"^No\s+(?:one|longer)\b", body, re.I):
        body = re.sub(r"^(?:No|NO)\s+(?:more\s+)?", "Do not use ", body)   # "no more console.log"
    body = _after_topic(body)
    body = _LEAD.sub("", body).strip()
    body = _WISH.sub("", body) if _WISH.match(body) and len(_WISH.sub("", body).split()) > 2 \
        else body               # "I want to inform ... only the first time" -> "Inform ..."
    if not body or _NO_SUBJECT.match(body) or _THAT_WAY.search(body) or _AT_HAND.match(body) \
            or _DO_IT.search(body):
        return None             # "should be dimmer", "X should be that": the code at hand
    marker_clause = _marker_clause(body)
    if _DEICTIC.match(marker_clause) and not (CODE if loose else _ANCHOR).search(
            marker_clause) and not _REMEMBER.match(text):
        return None             # "the block should stay as is": about the code at hand
    if _PASSING.search(body) or _NOW.search(text) or \
            loose and (_REPORTED.search(body) or len(body.split()) > 25):
        return None             # "it should work now", "for now", "imo": no standing rule
    if len(wording.words(body) - {"not", "scope"}) < 2 or _LOCAL.search(body) and not (
            _ANCHOR.search(body) or CODE.search(body) or _FROM_HERE.match(body)):
        return None             # "never again", "stop, wait", "use a map here"
    body = re.sub(r"\s+['\"]$", "", _both_halves(body, neighbours).rstrip(" .!,;")).rstrip(" .!,;")
    if not body:
        return None
    body = _without_one_off_reason(body)
    reason = _reason(body, following)
    if reason and reason.lower().rstrip(" .!") not in body.lower():
        body = f"{body}; {reason}"
    body += "."
    if len(body.split()) < 2 or len(body) > 240:
        return None
    first = body.split()[0]
    return body if re.search(r"[a-z][A-Z]|\w[:/]\w", first) else body[0].upper() + body[1:]


# the code at hand pointed at before a dash, then the rule it breaks: "and that
# gzip(&body).unwrap() — no unwraps in the lib", "this sleep(2) - never sleep in tests"
_POINTED_AT = re.compile(r"^(?:(?:and|but|so|also|again)\s+)?(?:that|this|these|those)\s+[^\s—–]+"
                         r"(?:\s+[^\s—–]+){0,3}?\s+(?:[—–]|--?)\s+(?!(?:it|this|that|they|he|she)\b)"
                         r"(?=\w)", re.I)
# a "?" that names the operator, not a question mark: "or propagate with ?"
OPERATOR_MARK = re.compile(r"(\b(?:with|use|using|via|through)\s+)\?(?=\s*$)", re.I)
# what starts a sentence about the thing at hand: an instruction about "it" or a report on it
_AT_HAND_START = re.compile(r"^(?:\w+\s+){0,2}(?:it|this|that|them)\b|^(?:the one|it'?s|this is)\b",
                            re.I)


def _every_one(clause: str) -> str:
    """The clause about every one of a kind, up to a clause about the thing at hand ("every
    figure needs a label and caption, the one you made has neither")."""
    parts = re.split(r",\s+", clause)
    kept = [parts[0]]
    for part in parts[1:]:
        if re.match(r"^(?:the one|it|this|that|these|those|but|which|you)\b", part, re.I):
            break
        kept.append(part)
    return ", ".join(kept)


def _after_topic(body: str) -> str:
    """A rule said after the topic it is about ("the db reset you might be tempted to do:
    migrate:fresh is off limits ...") without that topic."""
    m = re.match(r"^[^:`]{10,80}?:\s+(?=\S)", body)
    if m and MARKER.search(body[m.end():]) and not MARKER.search(body[:m.end()]):
        rest = body[m.end():]
        return rest
    return body


def said_how(text: str) -> bool:
    """A sentence that says how the project does something: a convention ("tests run with
    ..."), an instruction on how to do a job ("typecheck with ..."), something to remember,
    or an instruction for every time."""
    return bool(directives.CONVENTION.search(text) or directives.HOW.search(text) or
                directives.WE_DO.search(text) or directives.KEEP.search(text) or
                re.match(r"^not\s+\S+\s*[—–-]|^it'?s\s+\S+\s+(?:here|in this repo),?\s+not\s", text,
                         re.I) or
                _REMEMBER.match(text) or
                directives.EVERY_TIME.search(text) and _IMPERATIVE_START.match(text))


# something to remember, said as a clause: "remember that the staging db is read-only",
# "remember the commit format: type: subject" (not "remember the X file")
_REMEMBER = re.compile(r"^(?:(?:and|also|please|btw)[,]?\s+)*remember\s+(?:that\s+\S+.*\s(?:is|are"
                       r"|has|have|must|should|needs?|runs?|goes|lives?)\b|to\b|(?:the|our)\s"
                       r"[^:]{1,40}:\s*\S)", re.I)
# a wish said in the first person before what to do
_WISH = re.compile(r"^i(?: would| 'd|'d)? (?:(?:really )?(?:want|like|prefer) to|would)\s+"
                   r"(?=(?:" + directives.INSTRUCTION_VERBS + r"|inform|replace|have|show|keep"
                   r"|ask|make|treat|return)\b)", re.I)
_IMPERATIVE_START = re.compile(r"^(?:please\s+)?(?:run|use|format|lint|check|test|build|call"
                               r"|update|add|write|keep|commit|push)\b", re.I)
# a task for this session, not a rule: "add partial release to holds: ... should split ..."
_TASK = re.compile(r"^(?:please\s+)?(?:add|fix|implement|create|write|make(?! sure)|update"
                   r"|rename|refactor|remove|delete|change|move|bump|port|migrate|set up"
                   r"|wire|hook up|build|port)\b", re.I)
# a complaint said beside a rule: "the full suite takes forever", "I've said this twice now"
_COMPLAINT = re.compile(
    r"\b(?:takes? (?:forever|ages|so long)|(?:is|are|was) (?:so |too |really )?slow|insane"
    r"|annoying|ridiculous|i(?:'ve| have)? (?:already )?(?:said|told you|asked) (?:this|that|it)"
    r"|(?:twice|three times|again|already) now|for the (?:\w+ )?time|sick of|tired of"
    r"|drives me|come on|(?:like|as) i (?:already )?(?:said|told you|asked)\s+when)\b", re.I)
# a clause after a rule that only points back at when it was said ("like I said last time",
# "as I told you before"): the rule is said again, the clause adds nothing to it
_AS_I_SAID = re.compile(r"^(?:like|as) i (?:already )?(?:said|told you|asked(?: you)?|mentioned)"
                        r"(?:\s+(?:it|so|that|already|before|earlier|yesterday|twice|last \w+))*"
                        r"\W*$", re.I)


# what the user says of themselves beside a rule, after it: what they do themselves ("I'll fix
# the README myself", "I flash it myself") or that they said it before ("I told you last
# time"); a clause that asks for something ("I would replace X with Y") is kept
_ABOUT_ME = re.compile(r"^(?:and\s+|but\s+)?i(?:'ll|’ll|'m|\s)(?:.*\bmyself\b|\s*(?:already\s+)?"
                       r"(?:told|said|asked|mentioned)\b)", re.I)
# an aside in brackets about the user ("(it's on my desk and drives a pump!!)")
_MY_ASIDE = re.compile(r"\s*\([^()]*\b(?:my|me|i|i'm|mine)\b[^()]*\)", re.I)


def _without_complaints(text: str) -> tuple[str, bool]:
    """The sentence without clauses that only complain, and without what the user says of
    themselves after the rule; unchanged when nothing is left. A clause that says the rule
    was said before and says it again ("I said one chapter at a time") keeps what it says,
    and the second value says the sentence is such a rule said again."""
    text = _MY_ASIDE.sub("", text) if _MY_ASIDE.sub("", text).strip(" .!,;") else text
    clauses = re.split(r"(?<=[,;])\s+|\s+[—–-]\s+", text)
    kept, again = [], False
    for n, c in enumerate(clauses):
        said = _SAID_AGAIN.match(c) if n else None
        if said and len(wording.words(said["what"])) >= 2 and not _COMPLAINT.search(
                said["what"]):
            kept.append(said["what"])
            again = True
        elif n and _AS_I_SAID.match(c) and not re.search(r"\w[:./=]\w", " ".join(clauses[:n])):
            again = True        # (a command named again keeps its pointer, as before)
        elif not _COMPLAINT.search(c) and not (n and _ABOUT_ME.match(c)):
            kept.append(c)
    if not kept or kept == clauses:
        return text, False
    return " ".join(kept).rstrip(" ,;.") + ("." if text.rstrip().endswith(".") else ""), again


# "I said X" / "I told you X" after a rule: X is the rule said again, the rest is talk
_SAID_AGAIN = re.compile(r"^(?:and\s+|but\s+)?(?:like\s+|as\s+)?i\s+(?:already\s+|just\s+)?"
                         r"(?:said|told you|asked(?: you)?)(?:\s+(?:that|before|already|earlier"
                         r"|twice|again|so|last \w+|yesterday))*[\s,:]+(?!(?:last|this|that|it|so|before"
                         r"|earlier|yesterday|already|again|twice|when|ok|okay|yes|no|fine"
                         r"|(?:a )?(?:million|hundred|few)"
                         r")\b)(?P<what>\S.*)$", re.I)


def _about_the_code_at_hand(text: str) -> bool:
    """A passing "should"/"must" whose clause is about "it"/"this"/"that" and names
    nothing from the code: a report on the code being changed."""
    m = MARKER_LOOSE.search(text)
    if not m:
        return False
    start = max(text.rfind(",", 0, m.start()), text.rfind(";", 0, m.start()))
    clause = text[start + 1:].strip()
    return bool(re.match(r"^(?:but\s+|and\s+|so\s+)?(?:it|this|that|they|these|those)\s+"
                         r"(?:\w+\s+)?(?:should|must|needs?)\b", clause, re.I)) and \
        not CODE.search(clause)


# a reason says something: it has a verb ("the integration tests need the staging VPN")
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|does|do|did|needs?|can|can't|cannot|"
                     r"won't|will|would|isn't|aren't|doesn't|don't|didn't|go|goes|runs?|sits?|"
                     r"breaks?|fails?|takes?|selects?|points?|uses?|rejects?|requires?|"
                     r"depends?|expects?|chokes?|hangs?|blocks?|sets?|reads?|writes?|owns?|"
                     r"lives?|resolves?|checks?|only works|works|happens?)\b", re.I)


def _parts(text: str) -> frozenset[str]:
    """Content words with identifiers split ("integrationTest" -> integration, test)."""
    return wording.words(re.sub(r"(?<=[a-z])(?=[A-Z])|[_.-]+", " ", text))


_BARE_COMMAND = re.compile(r"^`?(?:" + "|".join(
    ("uv", "pnpm", "npm", "yarn", "bun", "bunx", "npx", "mix", "go", "cargo", "make", "poetry",
     "pip", "bundle", "just", "deno", "gradle", r"\./gradlew", "mvn", "docker", "dotnet",
     "pytest", "ruff", "cmake", "ctest", "rake", "rails", r"bin/rails", "tox", "nox", "mise"))
    + r")\b[\w\s./:=@-]*`?$")


# a reason named and asked to be remembered: "-fno-exceptions, remember?", "the shared db,
# right?"
_REMINDER_TAG = re.compile(r"^(?P<what>[^?]+?)[\s,]*\b(?:remember|right|you know)\s*\?+$", re.I)
# what not to do: a sentence saying it is no "what to do instead"
_SAYS_NOT = re.compile(r"\b(?:don'?t|dont|do not|never)\b", re.I)


def instead_after(following: list[str]) -> list[str]:
    """The sentence two places after a rule that says what not to do, when the one between
    them only says why (:func:`explains`) and it says what to do, neither pointing back nor
    saying what not to do: where what to do instead may be."""
    if len(following) < 2 or not explains(following[0]):
        return []
    other = noise.clean_words(noise.strip_paste(following[1])).strip()
    if _POINTS_BACK.match(wording.without_lead_in(other)) or _SAYS_NOT.search(other):
        return []
    return [following[1]]


def explains(sentence: str) -> bool:
    """A statement that says why (or how things are), asking and telling nothing: said
    between a rule that says what not to do and the sentence that says what to do instead
    ("kein cleanall!! das löscht auch die Downloads ... Wenn überhaupt -c cleansstate")."""
    text = noise.clean_words(noise.strip_paste(sentence)).strip()
    reminded = _REMINDER_TAG.match(text)
    if reminded:            # "-fno-exceptions, remember?": why, named and pointed back at
        what = reminded["what"].strip(" ,")
        return 1 <= len(what.split()) <= 12 and not directives.is_question(what) and \
            not directives.classify(what, coding=True) and not _WHAT_TO_DO.match(what)
    return 3 <= len(text.split()) <= 30 and not directives.is_question(text) and \
        not directives.classify(text, coding=True) and not _WHAT_TO_DO.match(text) and \
        not _TASK.match(text) and not re.match(r"^(?:" + directives.INSTRUCTION_VERBS + r")\b",
                                               text, re.I)


def _both_halves(body: str, neighbours: list[str]) -> str:
    """A rule that only says what not to use takes what to use from a sentence next to it
    (or the one after it, past a sentence that says why: :func:`explains`):
    "We don't use jest or npm here." + "bun test." -> "Use bun test, not jest or npm"."""
    lowered = body[:1].lower() + body[1:]
    swapped = _NOT_THIS.match(lowered)
    if swapped:                 # "not npm — pnpm", "it's pnpm here, not npm"
        use, avoid = (swapped["y1"], swapped["x1"]) if swapped["x1"] else \
            (swapped["y2"], swapped["x2"])
        if {use.lower().strip("`"), avoid.lower().strip("`")} & _PLAIN_WORDS:
            return ""               # "it's fine here, not there": no tool named
        return f"Use {use.strip('`')}, not {avoid.strip('`')}"
    if re.match(directives.HOUSE_STYLE_NOT, body, re.I):
        return body                 # "formatting is stylua, not lua-format": both halves
    if re.search(r",\s*(?:not|never)\s", body) and _BARE_COMMAND.match(lowered.split(",")[0]):
        body = f"Use {lowered}"     # "uv run pytest, not pytest"
    rejected = wording.rejected_terms(body)
    positive = _positive_half(body)
    if not rejected and not positive and (_NEGATIVE.match(body) or _NEVER_OK.search(body)):
        for other in neighbours:    # "don't mock the DB in tests; use the testcontainer"
            other = noise.clean_words(noise.strip_paste(other)).strip().rstrip(".!")
            if other and _WHAT_TO_DO.match(other) and not wording.rejected_terms(other) \
                    and not directives.is_question(other) and len(other.split()) <= 16 \
                    and not _SAYS_NOT.search(other):
                return f"{body.rstrip('.!; ')}; {other[0].lower()}{other[1:]}"
            if other and _BARE_COMMAND.match(other[:1].lower() + other[1:]) and \
                    len(other.split()) <= 6:
                # "never bare pytest. that's real aws. make test-int": the command to run
                return f"{body.rstrip('.!; ')}; use {other.strip('`')}"
        return body
    if not rejected or positive:
        return body
    for other in neighbours:
        other = noise.clean_words(noise.strip_paste(other)).strip().rstrip(".!")
        if not other or wording.rejected_terms(other) or directives.is_question(other):
            continue
        if _BARE_COMMAND.match(other):
            return f"Use {other.strip('`')}, not {' or '.join(rejected)}"
        command, _, why = _split_reason(other)
        if _BARE_COMMAND.match(command):    # "bundle exec fastlane test — the lane sets ..."
            return f"Use {command.strip('`')}, not {' or '.join(rejected)}; {why}"
        if _positive(other) and not _REPORTS_ON.match(other):
            other = re.sub(r"^(?:instead|rather)\b[\s,:]*", "", wording.plain_rule(other),
                           flags=re.I).rstrip(".!")
            if _only_its_modifier(body, rejected):
                # "no prod deploys from the agent" + "preview + merge, always": "prod" only
                # says which deploys; "..., not prod" would lose what is refused
                return f"{body.rstrip('.!; ')}; {other[0].lower()}{other[1:]}"
            first, _, rest = _split_reason(other)
            rule = f"{first}, not {' or '.join(rejected)}"
            return f"{rule}; {rest}" if rest else rule
        if re.match(r"^(?:" + _ROUTE + r"|pin\b|(?:`[^`]+`|[\w-]*[./:@][\w./:@-]*)\s+only\b"
                    r"|[\w.-]+(?:\s+[\w.-]+)?:\s*`[^`]+`\W*$|" + _RETURN_INSTEAD + "|" + _TOOL_SUBCOMMAND + ")",
                    other, re.I) and not _SAYS_NOT.search(other) and len(other.split()) <= 16 or \
                _same_thing_other_way(body, other):
            # "tests go through fastlane: `bundle exec fastlane test`", "pin it to a digest",
            # "deps.edn only", "soldeer: `forge soldeer install x`": the way to do it;
            # "return Result<void> with an error code" after "no throw"; "merge to main and
            # the pipeline deploys" after "no deploys from here": the same thing done otherwise
            return f"{body.rstrip('.!; ')}; {other[0].lower()}{other[1:]}"
    return body


# what to do with an error instead of what is refused: "return Result<void> with an error
# code", "return an error value", "raise ValidationError"
_RETURN_INSTEAD = r"(?:return|raise)\s+(?:an?\s+|the\s+)?[\w`<>:.-]+"
# a command said by its tool and subcommand, whatever the tool: "pants test with `-- -x`",
# "bazel run //tools:fmt" (not "tests build fine", a report)
_TOOL_SUBCOMMAND = (r"`?(?!(?:they|it|this|that|these|those|we|you|i|he|she|there|which|who"
                    r"|tests?|builds?|ci|everything|nothing|something|all)\b)[a-z][\w.-]*\s+(?:test|run|build|lint|check|fmt|exec)\b(?!\s+(?:is|are|was"
                    r"|were|has|have|fails?|passes?|works?|fine|ok|again)\b)(?!\s*(?:\.|$))")
# a word said after the term refused that is no noun it describes ("no --force from here")
_NOT_DESCRIBED = re.compile(r"(?:in|on|from|to|for|with|at|by|outside|inside|here|there|anywhere"
                            r"|ever|again|anymore|please|pls|pl[sz]|in|into|without|unless|until"
                            r"|when|if|or|and|nor)\b", re.I)


def _only_its_modifier(body: str, rejected: list[str]) -> bool:
    """The term refused is a word that says which of a thing is refused ("Do not use prod
    deploys from the agent": which deploys), not the thing itself."""
    m = re.match(r"^(?:do not use|don'?t use|no)\s+(\S+)\s+(?=[a-z])", body, re.I)
    return bool(m) and len(rejected) == 1 and m[1].strip("`").lower() == rejected[0] and \
        not _NOT_DESCRIBED.match(body[m.end():])


def _same_thing_other_way(body: str, other: str) -> bool:
    """``other`` tells how the thing ``body`` refuses is done instead, naming it again: an
    instruction of at most twelve words that refuses nothing and shares the refused word
    ("no deploys from here, ever" + "merge to main and the pipeline deploys")."""
    if not re.match(r"^(?:please\s+)?(?:" + directives.INSTRUCTION_VERBS + r")\b", other, re.I) \
            or _TASK.match(other) or _SAYS_NOT.search(other) or len(other.split()) > 12 or \
            re.search(r"\b(?:no|not|nothing)\b", other, re.I):
        return False
    refused = {w for w in wording.rejected_terms(body) if " " not in w}
    return bool(refused & {w.lower() for w in re.findall(r"[\w-]+", other)})


# a sentence about what something does ("they run in the sandbox account from CI"): why, not
# what to do instead
_REPORTS_ON = re.compile(r"^(?:they|it|he|she|this|that|these|those|there|i|if i)\b(?!\s*'?s\s+(?:`|\S+\s+"
                         r"(?:here|in this)))", re.I)


# what to do instead, said next to a rule that only says what not to do: an instruction
# ("use the testcontainer", "always ./mvnw from the repo root", "only testOnly of the spec you
# touch"), also under a condition ("if something has to go, deprecate it ...")
# the command itself ("`npx lix install haxelib:x` so it lands in ..."), or where the thing
# comes from or goes through, with how ("the gtk stuff lives in the distrobox: `distrobox enter
# ...`", "cmocka comes from the wrap: ...", "tests go through fastlane: `bundle exec ...`")
_ROUTE = (r"`[^`]+`|(?:the\s+)?[\w/.-]+(?:\s+[\w/.-]+){0,2}\s+(?:lives?|comes?|goe?s|go)"
          r"\s+(?:in|from|through)\s+[^:`]{2,40}(?::\s|`)")
_WHAT_TO_DO = re.compile(r"^(?:if\s[^,]{3,60},\s*(?!(?:i|you|we|it|this|that|they|he|she|there"
                         r"|the|an?)\b)[@\w`]|(?:please\s+)?(?:use|run|call|go through|open|create"
                         r"|ask|write|add|put|keep|always|only|instead)\b"
                         r"|" + _ROUTE + ")", re.I)
# one tool instead of another, said tersely
_NOT_THIS = re.compile(r"^(?:no,?\s+)?not\s+(?P<x1>`?[\w./@-]+`?)\s*[—–-]+\s*(?:use\s+)?"
                       r"(?P<y1>`?[\w./@-]+(?:\s+[\w./@-]+){0,3}`?)$"
                       r"|^it'?s\s+(?P<y2>`?[\w./@-]+`?)\s+(?:here|in this repo),?\s+not\s+"
                       r"(?P<x2>`?[\w./@-]+`?)$", re.I)
_PLAIN_WORDS = {"fine", "there", "here", "that", "this", "it", "ok", "okay", "good", "right",
                "wrong", "better", "worse", "so", "true", "false", "one", "the", "yet", "now"}
# a prohibition said of the thing: "haxelib install is never ok in this repo"
_NEVER_OK = re.compile(r"^[\w`./ -]{2,40}?\s+(?:is|are)\s+(?:never\s+(?:ok|okay|allowed|fine)"
                       r"|not allowed|forbidden|banned|off[- ]limits)\b", re.I)
_NEGATIVE = re.compile(r"^(?:(?:we\s+)?(?:don'?t|do not|never)|stop|avoid|no more)\b", re.I)


# a clause that says what not to do, up to the next clause
_NEGATED_CLAUSE = re.compile(r"\b(?:don'?t|dont|do not|never|not|stop|no)\b[^,;.—–]*", re.I)


# a credential handed over that the secrets filter let through ("the record key is
# KEY=7f3c9a2e-...", "le token Netlify : nfp_Xy7...", "the aws secret on this box is
# 3kQvN8pRz+..."): no line may carry it; a value the filter replaced ("[REDACTED:...]") is
# safe to keep in a line
_SECRET_WORD = (r"\b(?:key|token|secret|password|passphrase|passwd|pat|passwort|kennwort"
                r"|mot de passe|cl[ée]|chave|senha|contrase[ñn]a|chiave|sleutel|wachtwoord"
                r"|nyckel|lösenord|klucz|hasło)\b[^.!?\n]{0,40}?[\s:=]\s*")
_CREDENTIAL = re.compile(_SECRET_WORD + r"(?=[\w+#!-]*\d)(?=[\w+#!-]*[A-Za-z])[\w+#!-]{16,}", re.I)
# the same with the value replaced: the sentence still only hands it over
_REDACTED_CREDENTIAL = re.compile(_SECRET_WORD + r"[\w-]*=?\[REDACTED", re.I)


def hands_over_secret(text: str) -> bool:
    """The sentence gives a credential: what it says is said for that once, and no line of
    the brief may carry the value."""
    return bool(_CREDENTIAL.search(text))


def gives_credential(sentence: str) -> bool:
    """The sentence hands over a credential, its value there or replaced by the secrets
    filter ("the deployer key is PRIVATE_KEY=[REDACTED:...], it stays in CI"): no rule of
    its own, whatever else it says."""
    return bool(_CREDENTIAL.search(sentence) or _REDACTED_CREDENTIAL.search(sentence))


def only_what_not(rule: str) -> bool:
    """A rule that says only what not to do, naming no way to do it instead ("Don't
    hard-code the 3.", "waitForTimeout is banned here.")."""
    if _NEVER_OK.search(rule):     # what it names is what is refused
        return not _positive(rule)
    positive = _positive_half(rule)
    return bool(_NEGATIVE.match(rule)) and not positive


def says_what_to_do(rule: str) -> bool:
    """A rule that refuses nothing: what to do, or where something goes."""
    return not (_SAYS_NOT.search(rule) or _NEVER_OK.search(rule) or
                re.search(r"\b(?:not|no|avoid|nothing|banned|forbidden|off[- ]limits)\b", rule,
                          re.I))


def _names_its_own_way(body: str) -> bool:
    """A rule that names what to use outside the clause that says what not to ("tests go
    through ./scripts/test.sh (...), don't call odin test by hand"): it has both halves, and
    a sentence next to it is no other half."""
    return bool(re.search(_NAMED, _NEGATED_CLAUSE.sub(" ", body)))


def _split_reason(text: str) -> tuple[str, str, str]:
    """An instruction and the reason said after it ("run make plan — it selects ...")."""
    m = re.search(r"\s+[—–-]\s+|;\s+|,\s+(?=(?:it|this|which|that|they)\b)", text)
    if not m:
        return text, "", ""
    return text[:m.start()], m.group(0), text[m.end():]


def _reason(rule: str, following: str | None) -> str | None:
    """The next sentence as the rule's reason: a short statement (no question, request,
    rule of its own or complaint) about something the rule names."""
    if not following:
        return None
    text = noise.clean_words(noise.strip_paste(following)).strip().rstrip(" .!")
    if not text or len(text.split()) > 22 or len(text.split()) < 3 or \
            directives.is_question(text) or _COMPLAINT.search(text) or \
            directives.classify(text, coding=True) or _TASK.match(text) or \
            re.match(r"^(?:can|could|would|please|let'?s|ok|okay|thanks|lol|also|alright|so"
                     r"|and|now|next|then)\b", text, re.I) or _PASSING.search(text) or \
            re.search(r"\b(?:i(?: would|'d)? suggest|we should|maybe|i think|if you (?:want|like"
                      r"|need))\b", text, re.I) or \
            re.match(r"^(?:" + directives.INSTRUCTION_VERBS + r")\b", text, re.I):
        return None
    if _one_off(text):
        return None             # "revert scripts nobody ran break at 2am": said of this once
    # "never upload cookbooks from here. they reach the chef server only through ...": what
    # the rule names, pointed back at
    back = re.match(r"^(?:they|it)\s+(?!(?:is|are|was|were|'s|'re)\b)", text, re.I)
    if not (_parts(rule) & _parts(text) or back) or not _FINITE.search(text) or \
            _BARE_COMMAND.match(text[:1].lower() + text[1:]) or \
            _BARE_COMMAND.match(_split_reason(text[:1].lower() + text[1:])[0]) or \
            re.match(r"^(?:just|only|even|not)\b", text, re.I):
        return None             # "bundle exec rspec x.rb", "just the request spec": no reason
    return text[0].lower() + text[1:] if not re.match(r"[A-Z]{2}|[A-Z][a-z]+[A-Z]", text) \
        else text


# what a reason says only of this once: an amount of data ("~40GB", "2 gigs"), a time of
# day ("at 2am", "by 17:30", "um 3 Uhr") or a day gone by ("yesterday", "last week")
_ONE_OFF = re.compile(r"~?\b\d+(?:[.,]\d+)?\+?\s*(?:[kmgtp]i?b|gigs?|megs?|(?:kilo|mega|giga|tera)bytes?)\b"
                      r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|uhr)(?!\w)"
                      r"|\b(?:at|by|until|before|after|around)\s+\d{1,2}:\d{2}\b|\b(?:at )?midnight\b"
                      r"|\b(?:yesterday|last (?:night|week|month|time|friday|monday|tuesday|wednesday"
                      r"|thursday|saturday|sunday)|this morning|the other day|earlier today)\b", re.I)
# what makes an amount a standing fact about the project: a limit, a floor or a rate
# ("the upload limit is 10MB", "every 30s", "at most 2GB per job")
_STANDING_AMOUNT = re.compile(r"\b(?:limit|limits|max(?:imum)?|min(?:imum)?|at most|at least|up to"
                              r"|under|below|above|more than|less than|caps?|capped|per|every"
                              r"|each|always|never|only)\b|/", re.I)


def _one_off(reason: str) -> bool:
    """A reason that only reports an amount, a time of day or a day gone by ("the box holds
    ~40GB of cached artifacts", "scripts nobody ran are the ones that break at 2am"): true
    of this once, not why the rule stands; a reason with a limit or a rate in it, or a clause
    without such a detail ("CI runs it too"), is kept."""
    clauses = [c for c in re.split(r",\s+|\s+(?:and|but|so)\s+", reason) if c.strip()]
    return bool(clauses) and all(_ONE_OFF.search(c) for c in clauses) and \
        not _STANDING_AMOUNT.search(reason) and not _WHAT_TO_DO.match(reason.strip())


def _without_one_off_reason(body: str) -> str:
    """The rule without a last reason ("... — the box holds ~40GB", "...; it broke at 2am",
    "... because it ran out of disk last week") that is true only of this once."""
    cuts = list(re.finditer(r"\s+[—–-]\s+|;\s+|,?\s+because\s+", body))
    if not cuts:
        return body
    last = cuts[-1]
    rest = body[last.end():].strip(" .!")
    if not _one_off(rest) or not body[:last.start()].strip(" .!,;"):
        return body
    return body[:last.start()].rstrip(" .!,;")


def _clause(text: str) -> str:
    """Within a report ("I think ... the invariant that every line must ..."), the clause
    that states the rule."""
    if not _REPORT.match(text):
        return text
    for m in re.finditer(r"\bthat\s+", text):
        rest = text[m.end():]
        if MARKER.search(rest.split(".")[0]):
            return rest.split(". ")[0]
    return text


def _marker_clause(text: str) -> str:
    m = MARKER.search(text)
    if not m:
        return text
    start = max(text.rfind(",", 0, m.start()), text.rfind(";", 0, m.start()))
    return text[start + 1:].strip() if start >= 0 else text
