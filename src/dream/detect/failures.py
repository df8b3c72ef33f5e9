"""Failures: what went wrong in a tool result, named so that repeats collide.

Two readings live here side by side (they are to become one):

- the review's **signature** (:func:`signature`): the most telling line of the output (an
  exception line, an ``error:`` line, a ``FAILED`` line, ...) with paths, numbers, hex,
  line numbers, uuids, durations and temporary names replaced by placeholders, so the same
  failure in another checkout, at another line or on another day groups together; failures
  with one signature form a :class:`FailureGroup`, *repeated* when it happened at least
  twice in two sessions or three times in one;
- the dream run's **run signature** (:func:`run_signature`): the first error line of a
  failed result keyed by the tool that ran it, which the run writes as a failure note
  (:func:`run_findings`).

A non-zero exit of a program whose exit is an answer (``grep`` found nothing, ``diff``
found a difference) is no failure. Each cause has a small proposed fix (:func:`fix_for`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from dream.detect import commands
from dream.detect.finding import Finding, SpoolItem
from dream.detect.noise import ANSI

_PLACEHOLDERS = [
    (re.compile(r"\[REDACTED:[^\]]*\]"), "<secret>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE), "<uuid>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+-]+)+/?"), "<path>"),
    (re.compile(r"\b[A-Za-z]:\\[^\s'\"]*"), "<path>"),
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
    # a compiler's own diagnostic ("src/a.ts(3,4): error TS2339: ...", "x.go:3:1: ...")
    re.compile(r".*(?:\berror TS\d+|\berror\[E\d+\]|:\d+:\d+: (?:error|undefined)|"
               r"\(\d+,\d+\): error)\b.*"),
    re.compile(r"^\s*(?:FAILED|FAIL|ERROR)\b.*"),
    re.compile(r".*\b(?:command not found|No such file or directory|Permission denied"
               r"|not recognized as|cannot find|could not|unable to|failed to|timed out"
               r"|is not defined|undefined|unresolved|refused|denied|not found)\b.*",
               re.IGNORECASE),
    re.compile(r"^\s*(?:error|fatal|panic)(?:\[[^\]]*\])?\s*[:!].*", re.IGNORECASE),
    re.compile(r".*\b(?:error|failed|failure)\b.*", re.IGNORECASE),
]
_NOISE_LINE = re.compile(r"^\s*(?:Traceback|\^+|~+|at |File \"|\s*$|-+$|=+$|\d+ (?:passed|failed))")
_MAX = 160
_BANNER = re.compile(r"^\s*(?:Exit code:? -?\d+|Wall time: |Output:\s*$|Process exited with code"
                     r"|\*\* |hint: |Collected errors:)")
# a line that only sums a failure up: the cause is above it
_SUMMARY = re.compile(
    r"^\s*(?:npm (?:error|ERR!)|pnpm:? |yarn (?:error|run)|ELIFECYCLE|Command exited with"
    r"|(?:Process )?(?:exited|completed) with (?:exit )?code|exit (?:code|status) \d"
    r"|make(?:\[\d+\])?: \*\*\*|Found \d+ errors?|\d+ (?:errors?|failed)\b"
    r"|error: could not compile|error: Recipe|error: command failed|Error: Process"
    r"|(?:=+ )?\d+ failed|FAILED \(|Lifecycle script|error Command failed)", re.IGNORECASE)
def signature(text: str) -> str:
    """The normalised signature of a failing tool result ('' when there is no text)."""
    line = cause_line(text)
    return normalise(line) if line else ""


def cause_line(text: str) -> str:
    """The line that names the cause of a failure: the last exception of a traceback, else
    the first diagnostic above the summary lines a build tool prints at the end."""
    lines = [re.sub(r"^\s*\[(?:stderr|stdout)\]\s*", "", ln.rstrip())
             for ln in ANSI.sub("", text or "").splitlines() if ln.strip()]
    told = [ln for ln in lines if not _BANNER.match(ln)]    # Codex's and Claude Code's headers
    lines = told or lines
    if not lines:
        return ""
    if lines[0].startswith("$ "):          # a result that names its command
        lines = lines[1:] or lines
    causes = [ln for ln in lines if not _SUMMARY.match(ln)]
    for pool in (causes, lines):
        for n, pattern in enumerate(_CAUSE_LINE):
            # a traceback ends with its exception; a compiler lists its first error first
            for line in (reversed(pool) if n == 0 else pool):
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


_FIXES = [
    (re.compile(r"ModuleNotFoundError|No module named|ImportError|Cannot find module", re.IGNORECASE),
     ("install the missing module in the project's environment (or add it to the declared "
     "dependencies) and write down how the tests are meant to be run")),
    (re.compile(r"command not found|not recognized as|executable file not found", re.IGNORECASE),
     ("install the missing tool, or call it through the project's own wrapper, and record "
     "the right command in the agent instructions")),
    (re.compile(r"No such file or directory|ENOENT|cannot find the path", re.IGNORECASE),
     ("the command expects a file that is not there: check the path it is run from and create "
     "or correct the file")),
    (re.compile(r"Permission denied|EACCES|Operation not permitted", re.IGNORECASE),
     "fix the file permissions or run the step the way the project expects, without sudo"),
    (re.compile(r"timed out|timeout|deadline exceeded", re.IGNORECASE),
     ("find why the step hangs (a server not started, a prompt waiting for input) or raise "
     "the limit where it is set")),
    (re.compile(r"Connection refused|ECONNREFUSED|connect failed", re.IGNORECASE),
     "start the service the command depends on first, or check its host and port"),
    (re.compile(r"SyntaxError|ParseError|unexpected token|invalid syntax", re.IGNORECASE),
     "fix the syntax error at its source; add a lint or compile check before running"),
    (re.compile(r"AssertionError|FAILED|assert\b|expected .* (?:got|but)", re.IGNORECASE),
     "the same test keeps failing: fix the code or the test once, instead of re-running it"),
    (re.compile(r"TypeError|AttributeError|KeyError|NameError|ValueError|undefined", re.IGNORECASE),
     "fix the code path that raises it and add a test that covers it"),
]
_DEFAULT_FIX = "find the cause of this repeated failure and fix it once"


@dataclass
class FailureGroup:
    signature: str
    items: list[SpoolItem] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(i.stream for i in self.items))

    @property
    def repeated(self) -> bool:
        n, s = len(self.items), len(self.sessions)
        return n >= 3 or (n >= 2 and s >= 2)

    @property
    def tools(self) -> list[str]:
        return sorted({i.tool_name or "tool" for i in self.items})


_GENERIC = re.compile(r"^(?:error: )?(?:command )?(?:exited|exit|failed|aborted|returned)"
                      r"(?: with)?(?: (?:exit )?(?:code|status))?(?: <n>)?$|^command aborted$",
                      re.IGNORECASE)


def fix_for(sig: str) -> str:
    for pattern, fix in _FIXES:
        if pattern.search(sig):
            return fix
    return _DEFAULT_FIX


def groups(items: Sequence[SpoolItem]) -> list[FailureGroup]:
    """Every failure group among ``items`` (sessions in order), repeated or not, in order of
    first appearance."""
    command_of: dict[str, str] = {}
    for runs in commands.by_session(items).values():
        for run in runs:
            command_of[run.item.id] = run.command
    found: dict[str, FailureGroup] = {}
    for item in items:
        if not (item.evidence and item.kind == "tool_result" and item.is_error):
            continue
        sig = signature(item.text)
        cmd = command_of.get(item.id)
        if not sig:
            continue
        if _GENERIC.search(sig) and cmd:
            # "exited with code 1" says nothing of the cause: the program is part of it
            if commands.program(cmd) in commands.NEGATIVE_ANSWERS:
                continue        # grep found nothing, diff found a difference: an answer
            sig = f"{commands.program(cmd)}: {sig}"
        grp = found.setdefault(sig, FailureGroup(sig))
        grp.items.append(item)
        if cmd and cmd not in grp.commands:
            grp.commands.append(cmd)
    return list(found.values())


# -- the dream run ----------------------------------------------------------------------
_ERROR_LINE = re.compile(
    r"((?:[A-Z]\w*(?:Error|Exception))\b[^\n]{0,160}|(?:(?:error|fatal|FAILED|Failed)\b:?|"
    r"Error:)[^\n]{0,160}|"
    r"[^\n]{0,80}(?:command not found|No such file or directory|Permission denied|"
    r"not found|timed out)[^\n]{0,60}|exit code \d+)")
# a tool result that says its command failed, when the source records no error flag
_EXITED = re.compile(r"\b(?:exited|exit(?:ed)? (?:with )?(?:code|status))\s+[1-9]\d*\b|"
                     r"\bcommand failed with exit code [1-9]", re.I)


def run_signature(item: SpoolItem) -> str | None:
    """The dream run's key of a failed tool result: ``tool\x00message`` (paths and numbers
    replaced), or None when the result did not fail."""
    text = item.text or ""
    failed = item.is_error is True or "Traceback (most recent call last)" in text or (
        item.is_error is None and bool(_EXITED.search(text[:300])))
    if not failed:
        return None
    m = None
    for line in text.splitlines()[:80]:
        m2 = _ERROR_LINE.search(line)
        if m2:
            m = m2
            if re.search(r"(Error|Exception)\b", m2[1]):
                break
    if m is None or "Sibling tool call errored" in text[:300]:
        return None         # Claude Code cancelled a parallel call: not a failure of its own
    sig = m[1].strip()
    sig = re.sub(r"(/[\w.@~-]+)+", "<path>", sig)
    sig = re.sub(r"0x[0-9a-f]+|\b\d+\b", "N", sig)
    sig = re.sub(r"\s+", " ", sig)[:160].strip(" :")
    if len(sig) < 6:
        return None
    return f"{item.tool_name or 'tool'}\x00{sig}"


def run_findings(items: Sequence[SpoolItem]) -> list[Finding]:
    """One failure note per run signature among the tool results of ``items`` (a bundle),
    citing up to five of the results."""
    found: dict[str, list[str]] = {}
    for item in items:
        if item.evidence and (item.kind == "tool_result" or item.role == "tool"):
            sig = run_signature(item)
            if sig:
                found.setdefault(sig, []).append(item.id)
    out = []
    for sig, ids in found.items():
        tool, _, message = sig.partition("\x00")
        out.append(Finding("failure", {"text": f"`{tool}` failed: {message}", "type": "failure"},
                           ids[:5], name=f"failure {tool} {message[:48]}"))
    return out


# -- known pitfalls (coding sessions) -------------------------------------------------------
_REJECTED_CALL = re.compile(r"Sibling tool call errored|doesn'?t want to proceed with this tool"
                            r"|tool use was rejected|Request interrupted", re.I)
_INSTALL = re.compile(r"\b(?:install|add|sync|get|ci|fetch|restore|upgrade)\b")
FIX_WINDOW = 6
# a tool that is not there: the next install that works is what was done about it
_MISSING = re.compile(r"command not found|not recognized as|not installed|[\w-]+ not found$",
                      re.I)
_EXIT_ONLY = re.compile(r"^\s*(?:Exit code:?|exit status|Command exited with code) ?\d+\s*$", re.I)
# an error in the code being changed: a pitfall only when it recurs across sessions
CODE_ERROR = re.compile(
    r"error TS\d+|error\[E\d+\]|\b(?:Syntax|Type|Reference|Name|Attribute|Assertion|Key|"
    r"Index|Value)Error\b|is not assignable|does not exist on type|has no exported member|"
    r"Cannot find module '\.|cannot find symbol|undefined: \w+|expected .* found")
# a failure that says how the machine or the project is set up: a pitfall the first time
ENVIRONMENT = re.compile(
    r"command not found|not recognized as|is not recognized|not installed|bfg not found"
    r"|[\w-]+ not found$|could not resolve|no such host|name or service not known"
    r"|permission denied|password is required|terminal is required|operation not permitted"
    r"|timed out|could not lock|already locked|unable to lock|connection refused"
    r"|depend(?:s|ed|ency|encies) (?:on|upon)|no space left|is being used by another"
    r"|ignored by one of your \.gitignore", re.I)


def failed(item: SpoolItem) -> bool:
    """A tool result that failed: flagged as an error, a traceback, or a non-zero exit when
    the source records no flag."""
    text = item.text or ""
    return item.is_error is True or "Traceback (most recent call last)" in text or (
        item.is_error is None and bool(_EXITED.search(text[:300]))) or \
        commands.exit_failed(text)


def pitfalls(items: Sequence[SpoolItem]) -> list[Finding]:
    """Repeated shell failures, one per root cause whatever tool ran them (Claude Code
    ``Bash``, Pi ``bash``, Codex ``shell`` are one), each shown with a real example of its
    cause line and, when a later command in the same session fixed it, that command.

    The key is the normalised cause line; repeated means at least twice (the review's
    failures pass proposes work only for three times, or twice in two sessions). A failure
    that tells how the machine is set up (a missing tool, a lock, a timeout, a password
    prompt) is a pitfall the first time. A non-zero exit of a program whose exit is
    an answer (``grep``, ``diff``) and a call the user rejected are no failures."""
    by_session = commands.by_session(items)
    run_of = {run.item.id: run for runs in by_session.values() for run in runs}
    found: dict[str, list[SpoolItem]] = {}
    for item in items:
        if not (item.evidence and item.kind == "tool_result") or not failed(item):
            continue
        if (item.tool_name or "").lower() not in commands.SHELL_TOOLS | \
                commands.SHELL_OUTPUT_TOOLS or \
                _REJECTED_CALL.search((item.text or "")[:400]):
            continue
        sig = signature(item.text)
        run = run_of.get(item.id)
        if run is not None and _answer(run.command, item.text):
            continue
        if not sig or _GENERIC.search(sig) or _EXIT_ONLY.match(cause_line(item.text)):
            continue            # "Exit code 255" alone names no cause
        found.setdefault(sig, []).append(item)
    out = []
    for sig, failures in found.items():
        sessions = list(dict.fromkeys(i.stream for i in failures))
        cause = cause_line(failures[0].text)
        if len(failures) < 2 and not ENVIRONMENT.search(cause):
            continue            # a one-off failure mid-task is no pitfall
        if CODE_ERROR.search(cause) and len(sessions) < 2:
            continue            # a compile or type error in the middle of a change
        last = failures[-1]
        example = _words_upto(cause_line(last.text), 120)
        run = run_of.get(last.id)
        text = f"`{_short(run.command, 48)}` fails with: {example}" if run else \
            f"Fails with: {example}"
        fix = _fix(run, by_session.get(last.stream, [])) if run else None
        if fix and len(text) + min(len(fix), 60) < 196:
            text = text.rstrip(" .:") + f". Fixed by running `{_short(fix, 60)}`."
        fields = {"text": text, "type": "failure",
                  "said": f"{_n(len(failures), 'time')} in {_n(len(sessions), 'session')}"}
        out.append(Finding("failure", fields, [i.id for i in failures][-5:],
                           name=f"pitfall {sig[:60]}"))
    return out


def _answer(command: str, text: str) -> bool:
    """A non-zero exit that is an answer: ``grep`` found nothing (also at the end of a
    pipe), ``diff`` found a difference, and nothing in the output says an error."""
    last = command.rsplit("|", 1)[-1]
    if commands.program(command) in commands.NEGATIVE_ANSWERS:
        return True
    return commands.program(last) in commands.NEGATIVE_ANSWERS and not _ERRORISH.search(text)


_ERRORISH = re.compile(r"error|not found|denied|failed|fatal|cannot|no such", re.I)


def _fix(failing: commands.CommandRun, runs: list[commands.CommandRun]) -> str | None:
    """The first later command of the session that succeeded where the failing one did
    not: the same command with other arguments, or an install of what the failure names."""
    after = [r for r in runs if r.item.seq > failing.item.seq][:FIX_WINDOW]
    cause = set(re.findall(r"[a-z][\w.-]{2,}", cause_line(failing.item.text).lower()))
    key = commands.command_key(failing.command)
    missing = bool(_MISSING.search(cause_line(failing.item.text)))
    for run in after:
        if run.failed or run.command == failing.command or len(run.command) > 120:
            continue
        flags = set(re.findall(r"(?<!\S)--?[a-zA-Z][\w-]*", run.command)) - \
            set(re.findall(r"(?<!\S)--?[a-zA-Z][\w-]*", failing.command))
        if " " in key and commands.command_key(run.command) == key and flags and \
                re.match(re.escape(key) + r"\s+-", run.command):
            return run.command      # the same command with a flag that makes it work
        if not _INSTALL.search(run.command):
            continue        # running it again after editing code is no step to remember
        if set(re.findall(r"[a-z][\w.-]{2,}", run.command.lower())) & cause or \
                (" " in key and key in run.command) or missing:
            return run.command
    return None


def _words_upto(text: str, limit: int) -> str:
    """The text cut at a word before ``limit`` characters (no ellipsis: the line ends with
    what was said)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:")


def _short(command: str, limit: int = 80) -> str:
    return command if len(command) <= limit else command[:limit - 1].rstrip() + "…"


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
