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

The words of a sentence (its lead-in, content words, the terms it rejects) are read by
:mod:`dream.detect.wording`; the review groups sentences that say the same thing with
:mod:`dream.detect.grouping`.
"""

from __future__ import annotations

import re

from dream.detect import preferences
from dream.items import Item

INSTRUCTION_VERBS = _INSTRUCTION_VERBS = (
    r"use|run|write|add|put|call|commit|push|pull|format|ask|check|include|keep|reply|answer|"
    r"respond|book|send|remind|tell|mention|start|test|deploy|merge|rebase|delete|drop|edit|"
    r"touch|change|create|install|update|rename|document|log|print|wrap|sort|name|prefer|"
    r"open|close|print|explain|show|give|write|read|copy|move|skip|leave|store|save|import")
# a clause about every one of a kind and what it needs or is: a standing rule
# ("every migration needs a down step"), or what none of a kind may do ("nothing under data/
# goes into git")
EVERY_ONE = (r"(?:^|[,;:]\s+|\s[—–-]\s+)(?:every|each|nothing)\s+(?!time\b|single time\b)[\w.-]+"
             r"(?:\s+[\w./-]+){0,6}?\s+(?:gets?|needs?|must|goes|stays?|requires?|comes with"
             r"|is\s+an?\s)")
# "no X" said as a prohibition, not a report ("no errors"): asked for ("no global ktlint
# please", "no css selectors pls"), for every time ("no sleeps, ever") or for everywhere but
# one way ("no pip installs outside nox", "no Admitted left anywhere"); what is refused may be
# a call ("no .collect() on full frames in job code, ever") and be said where it is refused
# ("no force unwraps in new code please", "no file reads inside nodes"), or refused unless
# something is done with it ("no new dependencies without asking me first"); what is refused
# may be a tag, a decorator or a version range (":latest", "@trusted", "~ ranges")
NO_X_EVER = (r"^no\s+(?:[:@~]\s?)?[\w.`/-]+(?:\([^()\s]{0,24}\))?"
             r"(?:\s+[\w.`/-]+(?:\([^()\s]{0,24}\))?){0,6}?,?\s+(?:please|pls|plz|ever|outside"
             r"|anywhere|inside|without\s+(?:an?|\w+ing)\b"
             r"|in (?:new|any|our|job|app|library|production|prod|shipped) code"
             # or from this machine: "no devnet deploys from here", "no builds locally"
             r"|from here|from local|locally|from the agent|by hand"
             r"|on (?:my|this) (?:machine|box|laptop|host))\b")
# "leave X alone" naming a file, path or identifier: "don't touch X" ("leave _freeze alone",
# "no, leave values-prod.yaml alone — platform team owns the prod values"), not "leave it alone"
LEAVE_ALONE = (r"(?:^|[,;:]\s*|\s[—–]\s+|\bplease\s+|\band\s+)leave\s+(?:`[^`]+`"
               r"|[\w-]*[._/][\w./-]*)\s+alone\b")
# "no X" said alone, naming only a file, tag, attribute or call ("NO project.clj.", "no
# :latest."): the thing refused, what to do said next; not a report ("no idea.")
NO_NAME = r"^no\s+(?:`[^`]+`|[:@~]?[\w-]*[._/:@(][\w./:@()\[\]'-]*[\w)\]])\s*+[.!]*\s*$"
# "no X" said as a sentence of its own, what is refused named in one to three words and the
# sentence over, or going on after a comma or a dash with another "no", "ever" or a few words
# of what to use ("no upx.", "no kubectl apply.", "no sync, no apply, ever", "no heap in
# drivers, static buffers"); not an answer or a feeling ("no idea.", "no wait, ...", "no
# worries", "no way") nor a report of what came out ("no fixes applied.", "no errors", "no
# luck", "no change"); a clause of its own after it ("no literals, names come from settings")
# may as well say why this once, and is left to the markers above
NO_THING = (r"^no\s+(?!(?:no|not|nope|wait|hold|idea|actually|worries|worry|problem|problems"
            r"|rush|hurry|thanks|thank|way|luck|need|clue|one|body|longer|more|less|matter"
            r"|doubt|kidding|joke|biggie|sweat|pressure|offen[cs]e|sorry|ok|okay|sense|reason"
            r"|change|changes|difference|diff|errors?|warnings?|failures?|issues?|output"
            r"|results?|response|reply|answer|effect|dice|progress|success|match|matches"
            r"|i|you|we|it|they|that|this|there|the|a|an|my|your|our)\b)"
            r"(?:[:@~]\s?)?(?:[\w.`/()-]*[\w`)]\s+){0,2}[\w.`/()-]*[\w`)](?<!ed)(?<!ed`)"
            # where it is refused: "no grains ifs inline in the sls"
            r"(?:\s+(?:in|inside|under|within)\s+(?:the\s+|any\s+)?[\w.`/()-]*[\w`)])?"
            r"(?:\s*[.!]*\s*$|(?:\s*[,;]|\s+[—–-]+|\s*[—–])\s*(?:(?:no|never|ever|please|pls)\b"
            r"|[\w.`/()-]+(?:\s+[\w.`/()-]+){0,2}[.!]*\s*$))")
# where a thing goes or lives in the project ("the fixtures go in tests/fixtures/", "windows
# live in conf/base/..."; not where a tool is installed on the machine: "verilator 5.x lives
# in /opt/verilator"), and one thing preferred over another: standing rules, read alike by
# the directive classifier and the rule text
PLACED_OR_PREFERRED = (r"\b(?:goes|go|belongs?)\s+(?:in|under|into)\s+`?[\w.-]*/"
                       r"|\blives?\s+(?:in|under|into)\s+`?[\w.-]+/"
                       r"|\bprefer\s+(?!(?:the|this|that|these|those|your|my|option)\b)"
                       r"[\w.@-]+(?:\s+[\w.@-]+){0,2}\s+over\s"
                       # what ships with what: "schema.sql goes in the same commit as the
                       # migration", "the lockfile lands in the same PR"
                       # (not "that fix goes in the same commit": the change at hand)
                       r"|^(?:(?:and|also|btw|so|yep|yes)[,]?\s+)*(?!(?:this|that|it|these|those"
                       r"|the one)\b)[\w`./-]+(?:\s+[\w`./-]+){0,3}?\s+(?:goes|go|ships?|lands?"
                       r"|belongs?)\s+(?:in|into|with)\s+the\s+same\s+(?:commit|pr|pull request|mr"
                       r"|merge request|changeset)\s+as\s")
# how code is written or checked here, said as one tool or style and not another ("formatting
# is stylua, not lua-format", "docstrings here are numpy style, not google"); what a
# diagnosis finds ("the problem is X, not Y") names no way of working
HOUSE_STYLE_NOT = (r"^(?:(?:also|and|btw|so|fyi|note|again|reminder)[,:]?\s+)*(?:the\s+|our\s+)?"
                   r"(?:formatting|formatter|code format|linting|linter|lint|style|code style"
                   r"|docstrings?|doc comments?|comments|naming|indentation|type ?checking"
                   r"|type ?checker|test runner|package manager)\s+(?:here\s+|in this (?:repo"
                   r"|repository|project|codebase)\s+)?(?:is|are)\s+`?[\w./@:+-]+`?"
                   r"(?:\s+(?:style|format|convention))?,?\s+not\s+`?[\w./@:+-]")
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
REPLY_CORRECTION = re.compile(r"^(?:no(?:\s+no)*(?:[,.!:]|\s*[—–])|nope\b|no that|wrong\b|that'?s (?:wrong|not right|"
                              r"incorrect|not what)|actually[, ]|not quite|incorrect|"
                              r"you'?re wrong|i said\b|i meant\b|that is (?:wrong|not))", re.I)
# pushback anywhere in a coding session: the agent was told before, or should do otherwise
PUSHBACK = re.compile(
    r"^(?:no|nope|wrong)\s*[,.!:—–]|^stop\b|^no\s+\w+(?:\s+\w+)?\s*!"
    r"|(?:^|[,;:]\s*|\bplease\s+|\band\s+)(?:stop|quit)\b"
    r"|\b(?:i said|i told you|i asked you|instead|rather than|not\s+\w+(?:\s*,\s+|\s+)but"
    r"|no longer|(?:use|prefer)\s+[\w.+#/-]+(?:\s*,\s+|\s+)not)\b"
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
    r"(?:^|[,;:]\s*|\s[—–]\s+|\s--?\s+|\bplease\s+|\band\s+)(?:don'?t|do not|never|always)\b"
    # "we never tk apply": how the project works, whatever the verb (not "we never got ...")
    r"|\bwe (?:never|always)\s+(?!(?:\w+ed|got|had|did|was|were|went|made|knew|saw|thought"
    r"|said|told|heard|found|felt)\b)\w"
    r"|\b(?:you should(?:n'?t)?|you must(?:n'?t)?|should not|shouldn'?t|must not"
    r"|(?:must|should)\s+(?:never|always))\b"
    r"|\bplease no\b|" + NO_X_EVER + "|" + NO_THING + "|" + HOUSE_STYLE_NOT + r"|\brefrain from\b|\bonly ever\b|" + LEAVE_ALONE + "|"
    + NO_NAME +
    r"|^(?:any|every|each)\s+[\w-]+(?:\s+[\w-]+){0,3}\s+(?:means|=|requires)\s"
    r"|" + PLACED_OR_PREFERRED +
    r"|\b(?:is|are)\s+(?:off[- ]limits|forbidden"
    r"|not allowed|banned)\b|^every\s+[\w-]+(?:\s+[\w-]+)?\s+(?:gets?|needs?|must|goes)\b"
    # what holds for every one of a kind, opening a clause: "every figure needs a fig- label",
    # "every change to something already deployed is a new change"
    r"|" + EVERY_ONE +
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
_JOBS = (r"(?:typecheck|type-check|lint|format|build|test|deploy|release|install|run"
         r"\s+(?:the\s+)?tests|publish)")
HOW = re.compile(
    r"^(?:please\s+)?(?:use\s+(?:`[^`]+`|[\w./-]*(?:\s+[\w./=-]+){0,6})\s+(?:for|to|when|in|on"
    # two jobs done the same way: "build + test with buck2 only", "build/test with xmake"
    r"|instead)\b|" + _JOBS + r"(?:\s*(?:\+|&|/|\band\b)\s*" + _JOBS + r")?"
    r"\s+(?:it\s+|them\s+|everything\s+)?(?:with|using|via|through)\s+\S)", re.I)
# a limit to keep: "keep PRs under 400 lines", "keep the changelog sorted"
KEEP = re.compile(r"^(?:please\s+)?keep\s+(?:the\s+|all\s+|our\s+)?\w+(?:\s+\w+)?\s+(?:under|below|"
                  r"within|short|small|sorted|alphabetical|green|passing|at\s+\d|to\s+\d"
                  r"|backwards?[- ]compatible|compatible|in sync|up to date|private)\b", re.I)
# an instruction said for every time: "run mix format ... before you say you're done, every
# time"
EVERY_TIME = re.compile(r"\b(?:every\s+time|each\s+time|whenever|every\s+(?:commit|change|"
                        r"pr|push|release)|(?:before|after)\s+(?:every|each|any)\b)"
                        # before any piece of work is called finished: "run X before you say
                        # you're done", "before you call something done", "before saying done"
                        r"|\bbefore\s+(?:you\s+(?:say|tell\s+me|call|report|mark|declare)"
                        r"|saying|telling\s+me|calling)\b[^.?!;]{0,30}?\bdone\b", re.I)
_STARTS_IMPERATIVE = re.compile(r"^(?:(?:ok(?:ay)?|good|great|and|also|please|btw)[,.]?\s+)*(?:"
                                + _INSTRUCTION_VERBS + r")\b", re.I)
_REMEMBER = re.compile(r"^(?:(?:and|also|please|btw)[,]?\s+)*remember\s+(?:that|the|to|our)\b",
                       re.I)
_QUESTION_START = re.compile(
    r"^(?:what|why|how|when|where|who|which)\s+(?:is|are|do|does|did|can|could|would|should"
    r"|will|was|were|if|about)\b|^(?:can|could|would|is|are|do|does|did|should|shall|will)"
    r"\s+(?:you|we|i|it|this|that|there|they)\b", re.I)


# a feeling about how something is ("I hate how X does Y", "I love when it just works")
_FEELING = re.compile(r"^(?:(?:ugh|honestly|man|god)\W+)*i (?:really |just )?(?:hate|love|dislike"
                      r"|can'?t stand) (?:how|when|it when|that)\b", re.I)


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
    if coding and _FEELING.match(sentence):
        return None     # "I hate how fortran does strings lol": a feeling, asks for nothing
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
