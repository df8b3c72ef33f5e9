"""Noise: what must never become the text of a note or a brief line.

Terminal pastes (a shell prompt such as ``➜ repo git:(main) ✗ npx tsx ...`` or ``$ cmd``),
spinners (``⠇ Working...``), ANSI escape codes, stack-trace lines, log lines, diff and
table lines, and tool output in general. :func:`strip_paste` cuts a user's sentence where
a pasted terminal session starts; :func:`is_noise` says whether a line is noise as a
whole; :func:`clean_words` drops frustration ("wtf", "fucking", "omfg") from a sentence
that still carries a rule, so a note keeps the rule and not the swearing.
"""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\[(?:\d{1,3};)*\d{1,3}m")
SPINNER = re.compile(r"[⠁-⣿◐◓◑◒|/\\-]\s+(?:Working|Thinking|Loading|Running)\b|[⠁-⣿]")
PROMPT = re.compile(
    r"(?:^|\s)(?:➜|❯|λ|›)\s+\S+|\bgit:\([^)]*\)|(?:^|\s)[\w.-]+@[\w.-]+:[~/][^\s]*\s*[$#]"
    r"|(?:^|\s)PS [A-Z]:\\|(?:^|\s)~/[\w./-]*\s+\(\w[\w/-]*\)|(?:^|\n)\s*[$#>]\s+\w")
TRACE = re.compile(
    r"^\s*+(?:at\s+[\w.$<>]+\s*\(|at\s+\S+:\d+|File \"[^\"]+\", line \d+|Traceback \(most"
    r"|\w+Error:|\w+Exception:|node:internal|Require stack|\^{2,}|~{3,}|npm (?:error|ERR!)"
    r"|error(?:\[\w+\])?:|warning:|\d+\s*[│|])", re.I)
LOG = re.compile(r"^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\]?|\d{4}-\d\d-\d\dT\d\d:\d\d|"
                 r"\[(?:info|debug|warn|error|trace)\]|(?:INFO|DEBUG|WARN|WRN|ERR|ERROR)\b)")
DIFF = re.compile(r"^\s*(?:[+-]{1,3}\s|@@|diff --git|index [0-9a-f]+)")
# words of frustration that carry no rule; a sentence keeps its rule without them
PROFANE = re.compile(
    r"\b(?:f+u+c+k+(?:ing|ed|in'?)?|shit(?:ty)?|wtf|w\.t\.f\.?|omfg|ffs|damn(?:ed)?|"
    r"crap(?:py)?|jesus|bloody|goddamn|idiot|stupid|dumb(?:ass)?|moron)\b[,!.]*", re.I)
_ONLY_FEELING = re.compile(r"^(?:ugh+|argh+|hm+|meh|wow|yo|lol|lmao|ok(?:ay)?|yes|no|nope|"
                           r"jesus|omg|omfg|wtf)\W*$", re.I)


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


_ADDED = re.compile(r"^\s*\+")
_DIFF_HEAD = re.compile(r"^\s*(?:@@|diff --git|index [0-9a-f]+|--- a/|\+\+\+ b/)")
_BULLET = re.compile(r"^\s*- (?=\S)")


def strip_paste(text: str) -> str:
    """A user's statement without the terminal sessions, logs or traces pasted into it: a
    line where a paste starts is cut there, and what follows is left out until a blank
    line followed by a line of prose ("also it hung: <spinner> <blank> anyway, typecheck
    with ..." keeps its last sentence)."""
    return "\n".join(_split_paste(text)[0]).strip()


def pasted(text: str) -> str:
    """What :func:`strip_paste` leaves out: the pasted terminal output of a statement."""
    return "\n".join(_split_paste(text)[1]).strip()


def _split_paste(text: str) -> tuple[list[str], list[str]]:
    kept: list[str] = []
    gone: list[str] = []
    pasting = blank = False
    lines = strip_ansi(text).split("\n")
    # "- never `pulumi up` from here" in a list of "- " lines and nothing added: a bulleted
    # list the user wrote, not the removed lines of a pasted diff
    diff = any(_ADDED.match(ln) or _DIFF_HEAD.match(ln) for ln in lines)
    for line in lines:
        starts = [m.start() for rx in (PROMPT, SPINNER) if (m := rx.search(line))]
        noisy = bool(starts) or bool(TRACE.match(line) or LOG.match(line) or (
            DIFF.match(line) and (diff or not _BULLET.match(line))))
        if pasting:
            if not line.strip():
                blank = True
                continue
            if blank and not noisy and _PROSE.match(line.strip()):
                pasting = blank = False
            else:
                blank = False
                gone.append(line)
                continue
        if noisy:
            head = line[:min(starts)] if starts else ""
            if head.strip():
                kept.append(head)
            gone.append(line[len(head):])
            pasting, blank = True, False
            continue
        kept.append(line)
    return kept, gone


# a line of prose after a paste: words, mostly letters, not a fence or a bracket
_PROSE = re.compile(r"^(?![`{\[(<|])(?=(?:\S+\s+){2,})[^\W\d_][^\n]*$")


def is_noise(line: str) -> bool:
    """A line that is a paste, a prompt, a spinner, a trace or a log, not prose."""
    s = line.strip()
    if not s:
        return True
    if ANSI.search(s) or SPINNER.search(s) or PROMPT.search(s):
        return True
    return bool(TRACE.match(s) or LOG.match(s) or DIFF.match(s))


def is_feeling(sentence: str) -> bool:
    """A sentence that is only a reaction ("wow", "wtf", "ok")."""
    rest = PROFANE.sub("", sentence).strip(" ,.!?")
    return not rest or bool(_ONLY_FEELING.match(rest))


# (it starts one past the first space of a run, the leftmost place the search would find
# anyway, so a long run of spaces is not rescanned from each of its characters)
_EMOTICON = re.compile(r"(?:(?<=\s)(?<!\s\s)|^)\s*+(?::-?[)(DPp]|;-?\)|<3|\^\^)(?=\s|$)")


_SYMBOLS = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")


def clean_words(sentence: str) -> str:
    """The sentence without swearing, emoticons or emoji and with its spacing mended; a
    clause that was only swearing ("anything else is shitty") goes with it."""
    clauses = re.split(r"(?<=[,;])\s+", _EMOTICON.sub("", _SYMBOLS.sub("", sentence)))
    kept = [c for c in clauses if not (PROFANE.search(c) and len(
        PROFANE.sub("", c).split()) <= 4)] or clauses
    out = PROFANE.sub("", " ".join(kept)).rstrip(",; ")
    out = re.sub(r"\s{2,}", " ", out).strip()
    out = re.sub(r"^[,;:.!\s]+", "", out)
    out = re.sub(r"\s+([,.!?;:])(?=\s|$)", r"\1", out)
    return out
