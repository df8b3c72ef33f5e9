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

from dream.detect import commands, noise
from dream.detect.finding import Finding
from dream.detect.noise import ANSI
from dream.items import Item

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
    # an exception ("psycopg.OperationalError: ...", "ActiveRecord::PendingMigrationError:")
    # or a Go panic
    re.compile(r"^\s*(?:E\s+|Caused by:\s+)?(?:[a-z_][\w]*\.)*[A-Z][A-Za-z0-9_.:]*(?:Error|Exception|Exit"
               r"|Interrupt)\b.*|^\s*panic: .*|.*\((?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception)\)\s*$"
               r"|^\s*\*\*\s*\((?:\w+\.)*\w+\)\s.*"      # Elixir: ** (CompileError) ...
               # JavaScript's bare "Error: @prisma/client did not initialize yet. ..."
               r"|^\s*(?:Uncaught\s+)?Error: (?!Command failed|Process completed)\S.*"
               # a fully qualified exception whatever its name ("E   django.core.exceptions.
               # ImproperlyConfigured: Requested setting ...")
               r"|^\s*(?:E\s+)?(?:[a-z_]\w*\.){2,}[A-Z]\w*: \S.*"),
    # a compiler's or linker's own diagnostic ("src/a.ts(3,4): error TS2339: ...", "x.go:3:1:
    # ...", "undefined reference to `f'"), or a checker's marked finding ("✖ type may not be
    # empty", "❌ Secrets detected!")
    re.compile(r".*(?:\berror TS\d+\b|\berror\[E\d+\]|:\d+:\d+: (?:error|undefined)\b|"
               r"\(\d+,\d+\): error\b|\berror [A-Z]{2,}\d+\b|\bundefined reference to\b).*"
               r"|^\s*[\w./-]+\.\w{1,5}:\d+:\d+:\s+\S.*"      # also indented by a test runner
               # a package manager's error code ("ERR_PNPM_OUTDATED_LOCKFILE ..."), eslint's
               # "14:7  error  ...", Go's race detector
               r"|^\s*ERR_[A-Z0-9_]+\s.*|^\s*\d+:\d+\s+error\s+\S.*|.*\brace detected\b.*"
               r"|^\s*[✖✗✘×❌]\s+\S.*"),
    # a log level, also with a tag of its own in capitals ("SCRIPT ERROR: Parse Error: ..."),
    # or in the bracket Chromium and Electron put before each line ("[48213:1125/093015.2:
    # ERROR:ozone_platform_x11.cc(245)] Missing X server or $DISPLAY")
    re.compile(r"^\s*(?:[A-Z][A-Z-]{2,}\s)?(?:FAILED|FAIL|ERROR)\b.*"
               r"|^\s*\[[\d:/.]+:(?:ERROR|FATAL):[^\]]*\]\s*\S.*"),
    # what failed and why ("... getaddrinfo for db failed: Name or service not known")
    re.compile(r".*\b(?:command not found|No such file or directory|Permission denied"
               r"|not recognized as|cannot find|could not|unable to|failed to|failed(?=: [A-Za-z])|timed out"
               r"|is not defined|undefined|unresolved|refused|denied|not found)\b.*",
               re.IGNORECASE),
    re.compile(r"^\s*(?:error|fatal|panic)(?:\[[^\]]*\])?\s*[:!].*", re.IGNORECASE),
    re.compile(r".*\b(?:error|failed|failure)\b.*", re.IGNORECASE),
]
_LABELLED = 4       # the pattern of a line that starts with "error:" or "fatal:"
# lines that name no cause: a traceback's frames, markers, rules, counts, and a bare label
# ("error:" on its own line, the message on lines below it)
_NOISE_LINE = re.compile(r"^\s*(?:Traceback|\^+|~+|at |File \"|\s*$|-+$|=+$|\d+ (?:passed|failed)"
                         r"|(?i:error|fatal|failure|failed)\s*:?\s*$)")
_MAX = 160
_BANNER = re.compile(r"^\s*(?:Exit code:? -?\d+|Wall time: |Output:\s*$|Process exited with code"
                     r"|\*\* (?!\()|hint: |Collected errors:|Chunk ID: |Original token count: )")
# "FATAL ERROR: command exited with status 1: /usr/bin/cmake ...": the step that ran, not
# why it failed (a summary, and no cause however grave its tag)
# (also with the argument list it ran: 'Command ["gprbuild", "-P", "baro.gpr"] exited with code 4')
_STEP_EXITED = (r"\b(?:command|process|script|run)\b(?:\s*\[[^\]]{0,300}\])?.{0,20}?\b(?:exited"
                r"|returned|failed) with (?:exit )?(?:code|status|error) -?\d+")
# a line that only sums a failure up: the cause is above it
_SUMMARY = re.compile(
    r"^\s*+(?:npm (?:error|ERR!)|pnpm:? |yarn (?:error|run)|ELIFECYCLE|Command exited with"
    r"|(?:Sub)?(?:process )?(?:exited|completed) with (?:exit )?(?:code|error|status)"
    r"|exit (?:code|status) \d"
    r"|make(?:\[\d+\])?: \*\*\*|Found \d+ errors?|\d+ (?:errors?|failed)\b"
    r"|error: could not compile|error: Recipe|error: command failed|Error: Process"
    r"|error: failed to run custom build command|Caused by:\s*$|process didn't exit successfully"
    r"|(?:=+ )?\d+ failed|FAILED \(|Lifecycle script|error Command failed"
    # a test runner's tally ("Test Files  1 failed | 2 passed (3)", "Tests:  1 failed, 17
    # passed, 18 total"): how many failed, not why
    r"|[A-Z][a-z]+(?: [A-Z][a-z]+)?:?\s+\d+ failed(?:\s*[|,(].*)?$"
    # summaries of builds, test runners, linkers and hooks
    r"|FAILED: \S+$|collect2: error|ninja: build stopped|--- FAIL:|FAIL\s*$|FAIL\t"
    r"|husky - |[✖✗×]\s+(?:found )?\d+ problems?|Build FAILED|For more information about this"
    r"|(?:npm (?:ERR!|error) )?(?:code|errno|syscall) \S+$|(?:npm (?:ERR!|error) )?A complete"
    r" log|Some specs? failed|\d+ examples?, \d+ failures?"
    # a count of the errors logged above ("Error: error building site: logged 1 error(s)",
    # "Build failed with 2 errors")
    r"|.*\b(?:logged|found|with|generated|reported|encountered)\s+\d+\s+errors?(?:\(s\))?\W*$"
    r"|.*" + _STEP_EXITED +
    # a line that only says an error happened ("Error: An unexpected error has occurred."):
    # the one that names it is above
    r"|(?:error:\s*)?(?:an?\s+)?(?:unexpected|unknown|internal|unhandled)\s+error\s+(?:has\s+)?"
    r"occurred\s*[.!]?\s*$)",
    re.IGNORECASE)
# where to read more, after the cause (", see https://goo.gl/YMrWcn for more information"):
# a pointer, not the cause
# (it starts at a comma or where a run of spaces starts, the leftmost place the search would
# find anyway, so a long run of spaces is not rescanned from each of its characters)
_SEE_LINK = re.compile(r"(?:[,;]|(?<!\s))\s*+\(?(?:see|visit|read)\s+<?https?://\S+?>?\)?"
                       r"(?:\s++for\s++(?:more\s++)?(?:information|info|details|help))?"
                       r"\s*+(?:\.\s*+)?$", re.I)
# a tool's log prefix in front of each of its lines ("[stderr]", "npm ERR!", "npm error"), and
# the error level a build tool tags its lines with ("[error]" in sbt, "[ERROR]" in Maven)
_PREFIX = re.compile(r"^\s*(?:\[(?:stderr|stdout|error|ERROR|fatal|FATAL)\]|npm (?:ERR!|error))\s*")
# a line that speaks to the reader: advice on what to try next, not what went wrong ("Please
# rerun the command", "If you get this error again, check ...", "Pass --verbose to see ...")
_ADVICE = re.compile(r"^\W*(?:if you\b|please\b|pass --|try\b|you (?:can|may|might|should|must"
                     r" either)\b|see\b|check\b|look\b|consider\b|did you mean\b|to (?:see|fix"
                     r"|resolve|get)\b|for (?:more|details|the full)\b|run with\b|re-?run\b"
                     r"|stack trace is suppressed)"
                     # or tells what would make it go away ("Properly caching the binary will
                     # fix this error and avoid downloading ...")
                     r"|.*\bwill (?:fix|resolve|solve) (?:this|the|these) (?:error|issue|problem)",
                     re.I)
# a line that says the cause is above it ("Look above for specific messages", "see above")
_POINTS_UP = re.compile(r"\b(?:look|see|scroll|check)\s+(?:\w+\s+){0,2}above\b", re.I)
# a last line that only says a step failed, naming nothing ("Failed to update packages.")
_BARE_FAILED = re.compile(r"^\s*(?:failed to|could not|unable to)\s+\w+(?:\s+\w+){0,2}\s*[.!]?\s*$",
                          re.I)


# a warning beside a failure is not its cause ("** WARNING: connection is not using a
# post-quantum key exchange algorithm")
_WARNING = re.compile(r"^\W*(?:warning|warn|wrn|note|hint|info)\b|^\*\*\s(?!\s*\()", re.I)


def signature(text: str) -> str:
    """The normalised signature of a failing tool result ('' when there is no text)."""
    line = cause_line(text)
    return normalise(line) if line else ""


def cause_line(text: str) -> str:
    """The line that names the cause of a failure: the line a log tags with its gravest
    level, else the last exception of a traceback, else the first diagnostic above the
    summary lines a build tool prints at the end; a short heading takes the line that
    says what it means (:func:`_with_detail`)."""
    line = _caused_by(_cause_line(text), text)
    line = _SEE_LINK.sub("", line) or line
    line = _waited_on(line, text)
    line = _said_below(line, text)
    line = _test_raised(line, text)
    line = _innermost_listed(line, text)
    return _with_detail(line, text) if line else line


# a line that says only that a step ran into errors, naming none ("✖ Error while running
# docker compose command.", "BuildException: Build failure: Build failed due to errors")
_ONLY_FAILED = re.compile(r"\b(?:error|failure)s?\s+(?:occurred\s+)?(?:while|when|during)\s+"
                          r"(?:running|executing|calling|invoking)\b[^:]*$"
                          r"|\bfailed due to (?:\w+\s+)?errors?\W*$", re.I)
_RAISED = re.compile(r"(?:[a-z_]\w*\.)+[A-Z]\w*(?:Error|Exception): \S.*")


def _said_below(line: str, text: str) -> str:
    """A cause line that only says a step ran into errors is named by the line under it,
    the error it ran into ('service "tests-cli" is not running' under "Error while running
    docker compose command."; "[error]: Build step ... threw an exception: java.lang.
    IllegalStateException: Could not find a valid Docker environment" under "Build failed
    due to errors"), read from the exception it names when it names one."""
    if not _ONLY_FAILED.search(line):
        return line
    lines, at = _lines_at(line, text)
    if at is None or at + 1 >= len(lines):
        return line
    below = _PREFIX.sub("", lines[at + 1]).lstrip(": ").strip()
    raised = _RAISED.search(below[:400])      # one line of a log may be very long
    below = raised[0] if raised else below
    if len(below.split()) < 3 or _NOISE_LINE.match(below) or _SUMMARY.match(below) or \
            _ADVICE.match(below) or _FRAME.match(below):
        return line
    return below[:400]


# a test runner's line for a failed test or test file, naming no cause ("FAIL  Tests\Unit\
# PriceTest", "FAILED  Tests\Unit\PriceTest > it rounds half up   TypeError"); the one that
# ends in the name of what the test raised has the raised message on the line under it
_TEST_HEADER = re.compile(r"^\W*(?:FAIL|FAILED)\s+\S+(?:\s+(?:>|›)\s+.*)?$")
_ENDS_RAISED = re.compile(r"\s(?:[A-Z]\w*)?(?:Error|Exception)$")


def _test_raised(line: str, text: str) -> str:
    """A cause line that only names a failed test (Pest, Jest: "FAIL  tests/PriceTest", then
    "FAILED  tests/PriceTest > it rounds half up   TypeError") is named by the message of
    what the test raised, on the line under the one that ends in its name ('Class "Rounding"
    not found'): the test is where it showed, the message is why."""
    if not _TEST_HEADER.match(line):
        return line
    lines, at = _lines_at(line, text)
    if at is None:
        return line
    for n in range(at, min(at + 8, len(lines) - 1)):
        if not (_TEST_HEADER.match(lines[n]) and _ENDS_RAISED.search(lines[n])):
            continue
        below = lines[n + 1]
        if len(below.split()) < 3 or _NOISE_LINE.match(below) or _SUMMARY.match(below) or \
                _FRAME.match(below) or _TEST_HEADER.match(below):
            return line
        return below[:400]
    return line


# an error heading whose message is only a pointer elsewhere ("[11ty] Eleventy CLI Fatal
# Error: (more in DEBUG output)"), and a numbered item of the list of errors under it
_POINTER_ONLY = re.compile(r"\b(?:error|failure)\s*:\s*\([^()]*\)\s*$", re.I)
_NUMBERED = re.compile(r"^(?:\[[^\]]{1,20}\]\s*)?\d{1,2}\.\s+(?P<item>\S.*)$")


def _innermost_listed(line: str, text: str) -> str:
    """A cause line that says only that errors happened and where to read more, with a
    numbered list of errors under it, each caused by the next ("1. Error in your config
    file ... 2. require() of ES Module ... not supported."), or an item of that list: the
    last item, the innermost error, is the cause."""
    lines = [ln.strip() for ln in ANSI.sub("", text or "").splitlines() if ln.strip()]
    at = next((n for n, ln in enumerate(lines) if _POINTER_ONLY.search(ln[:400])), None)
    if at is None:
        return line
    items, held = [], [lines[at]]
    for below in lines[at + 1:at + 12]:
        m = _NUMBERED.match(below)
        if not m:
            if items:
                break
            continue
        items.append(m["item"])
        held.append(below)
    if len(items) < 2 or not line or not any(line in ln for ln in held):
        return line
    return items[-1][:400]


def _lines_at(line: str, text: str) -> tuple[list[str], int | None]:
    """The text's lines that hold anything, stripped and without colour codes, and where
    the first holding ``line`` is (None when none does)."""
    lines = [ln.strip() for ln in ANSI.sub("", text or "").splitlines() if ln.strip()]
    return lines, next((n for n, ln in enumerate(lines) if line in ln), None)


# the note an agent's harness ends the output of a command it stopped with ("Command timed
# out after 2m 0.0s" in Claude Code, "(command timed out after 120000ms)" in Codex)
_STOPPED = re.compile(r"^\W*command timed out after [\d.]+\s*\w*(?:\s+[\d.]+\s*s)?\W*$", re.I)
_WAITING = re.compile(r"\bwaiting\b", re.I)


def _waited_on(line: str, text: str) -> str:
    """A command the agent's harness stopped at its time limit hung on something: the last
    line the program printed that says what it was waiting for ("Buck2 daemon is busy:
    waiting for another command (pid 48121) to finish...", "Waiting for file changes...")
    names it, the note that time ran out said after it."""
    if not _STOPPED.match(line):
        return line
    lines, at = _lines_at(line, text)
    waiting = next((ln for ln in reversed(lines[:at]) if _WAITING.search(ln)), None)
    return f"{waiting.rstrip(' .')[:300]} ({line.strip(' ()^')})" if waiting else line


# a line that names what the line above it was caused by, on the same line or the next
# ("Caused by: java.net.UnknownHostException: db", "Caused by:" / "  Process requirement
# exceeds available memory -- req: 32 GB; avail: 15.5 GB")
_CAUSED_BY = re.compile(r"^\s*(?:-\s+)?Caused by:\s*(?P<rest>.*)$")
_FRAME = re.compile(r"^\s*(?:at\s|\.\.\. \d+ more)")


def _caused_by(line: str, text: str) -> str:
    """A cause line a chain of "Caused by:" hangs from (Java, Kotlin, Nextflow: the wrapper
    first, what it was caused by below it, stack frames between) is named by the last cause
    of the chain: the root, which the wrappers above it only restate as the step that
    failed; a cause that only says a step exited ("process didn't exit successfully") is
    no root."""
    lines = [ln for ln in ANSI.sub("", text or "").splitlines()
             if ln.strip() and not _FRAME.match(ln)]
    at = next((n for n, ln in enumerate(lines) if line and line in ln), None)
    if at is None or not any(_CAUSED_BY.match(ln) for ln in lines[at + 1:at + 3]):
        return line
    root = None
    for n in range(at + 1, len(lines)):
        m = _CAUSED_BY.match(lines[n])
        if not m:
            continue
        rest = (m["rest"] or (lines[n + 1] if n + 1 < len(lines) else "")).strip()
        if rest and not _SUMMARY.match(rest) and not _NOISE_LINE.match(rest) and \
                not _CAUSED_BY.match(rest):
            root = rest[:400]
    return root or line


def _cause_line(text: str) -> str:
    lines = [_PREFIX.sub("", _MARKER.sub("", ln.rstrip()))
             for ln in _labels_joined(ANSI.sub("", text or "").splitlines()) if ln.strip()]
    told = [ln for ln in lines if not _BANNER.match(ln)]    # Codex's and Claude Code's headers
    lines = _levelled(told or lines)
    if not lines:
        return ""
    if lines[0].startswith("$ "):          # a result that names its command
        lines = lines[1:] or lines
    lines = _root_of_chain(lines)
    gravest = [ln for ln in lines if _GRAVE.match(ln) and not _EXITED_ONLY.search(ln)
               and not _STATUS_ONLY.search(ln)]
    if gravest:                             # "CRITICAL Unable to contact the Docker daemon."
        return gravest[0].strip()[:400]
    up = next((n for n, ln in enumerate(lines) if _POINTS_UP.search(ln)), None)
    if up:                                  # "... Look above for specific messages"
        above = _named_above(lines[:up])
        if above:
            return above
    causes = [ln for ln in lines if not _SUMMARY.match(ln) and not _STATUS_ONLY.search(ln)
              and not _WARNING.match(ln)
              and not _ADVICE.match(ln) and not _BARE_FAILED.match(ln)]
    for number, pool in enumerate((causes, [ln for ln in lines if not _ADVICE.match(ln)])):
        if number == 1:         # no line says it is an error: the one the summary sums up
            above = _summed_up(lines, causes)
            if above:
                return above
        for n, pattern in enumerate(_CAUSE_LINE):
            # a traceback ends with its exception; a compiler lists its first error first
            for line in (reversed(pool) if n == 0 else pool):
                # a long line counts when it begins by saying it is an error ("Error:  Can't
                # locate Mojo/Base.pm in @INC (... 400 characters of folders)") or names the
                # exception it is ("NoSuchBeanException: No bean of type [...] exists. Make
                # sure ..." and 300 characters of advice)
                if (len(line) <= 400 or n in (0, _LABELLED)) and pattern.match(line[:400]) and \
                        not _NOISE_LINE.match(line) and \
                        not (n == 0 and _wraps_raised(line, pool, pattern)):
                    line = re.sub(r"^\s*E(?:\s+(?=[A-Z])|\s{2,}(?=\w))", "", line[:400]).strip()
                    return _with_message(line, pool) if n == 0 or _LEADS_IN.search(line) \
                        else _handed_over(line, pool)
    for line in causes + lines:
        if not _NOISE_LINE.match(line):
            return line.strip()[:400]
    return lines[0].strip()[:400]


# a bare error that only says a step failed ("Error: Failed to create connection for gateway
# 'local'."), printed by a command line tool under the exception that made it fail
_STEP_FAILED = re.compile(r"^\s*Error: Failed to \w+")
_BARE_ERROR = re.compile(r"^\s*(?:Uncaught\s+)?Error: ")


def _wraps_raised(line: str, pool: list[str], pattern: re.Pattern[str]) -> bool:
    """A bare "Error: Failed to ..." with a named exception above it ("duckdb.IOException:
    IO Error: Could not set lock on file ..."): the exception is the cause, the bare error
    only the step it stopped."""
    if not _STEP_FAILED.match(line):
        return False
    above = pool[:pool.index(line)] if line in pool else []
    return any(pattern.match(ln[:400]) and not _BARE_ERROR.match(ln) and
               not _NOISE_LINE.match(ln) for ln in above)


# the level a Go log (logrus: terragrunt, k6, docker) tags each line with, its time after it
# in brackets ("ERRO[0003] Error: error configuring S3 Backend: ...", "INFO[0000] ...")
_LOG_LEVEL = re.compile(r"^\s*(?P<level>TRAC|DEBU|INFO|WARN|ERRO|FATA|PANI)\[[^\]]*\]\s*")


def _levelled(lines: list[str]) -> list[str]:
    """The lines of a log that tags each with its level: those it tagged as errors, without
    the tag, when it tagged any ("ERRO[0003] Error: error configuring S3 Backend: no valid
    credential sources ..." over the untagged lines of detail under it); else every line,
    without its tag."""
    tagged = [(_LOG_LEVEL.match(ln), ln) for ln in lines]
    errors = [ln[m.end():] for m, ln in tagged if m and m["level"] in ("ERRO", "FATA", "PANI")
              and ln[m.end():].strip()]
    return errors or [ln[m.end():] if m else ln for m, ln in tagged]


# Python's line between an exception and the one raised from it ("raise DatasetError(...)
# from exc"): the one above is the cause, the one below wraps it
_DIRECT_CAUSE = re.compile(r"^\s*The above exception was the direct cause of the following "
                           r"exception:?\s*$")


def _root_of_chain(lines: list[str]) -> list[str]:
    """The lines of a chained traceback up to the exception the others were raised from
    ("FileNotFoundError: [Errno 2] No such file or directory: '.../data/01_raw/x.parquet'"
    under "kedro.io.core.DatasetError: Failed while loading data from dataset ..."): the
    root cause, which the wrapping exception only restates as the step that failed."""
    at = next((n for n, ln in enumerate(lines) if _DIRECT_CAUSE.match(ln)), None)
    raised = [ln for ln in lines[:at] if _CAUSE_LINE[0].match(ln) and not _NOISE_LINE.match(ln)]
    if at is None or not raised:
        return lines
    wrapper = [ln for ln in lines[at:] if _CAUSE_LINE[0].match(ln) and not _NOISE_LINE.match(ln)]
    if wrapper and not _names_a_thing(raised[-1]) and _names_a_thing(wrapper[-1]):
        # the root names nothing ("httpx.ConnectError: [Errno -2] Name or service not
        # known"), the exception raised from it says what it was reaching ("RuntimeError:
        # Failed to reach API at http://prefect.lan:4200/api/"): that one says more
        return lines
    return lines[:at]


# what an exception's message names: a quoted name, a path, an address, a dotted name
_A_THING = re.compile(r"['\"`][^'\"`]+['\"`]|(?<!\w)/\w|://|\w:\d+|\b\w+\.\w+\b")


def _names_a_thing(line: str) -> bool:
    """The message of an exception line names a thing of its own, not only what went
    wrong in words ("[Errno -2] Name or service not known" names nothing)."""
    message = line.split(": ", 1)[1] if ": " in line else ""
    return bool(_A_THING.search(message))


_BARE_LABEL = re.compile(r"^\s*(?:error|fatal)\s*:\s*$", re.I)


def _labels_joined(raw: list[str]) -> list[str]:
    """A bare ``Error:`` label with its message on the lines under it, up to a blank line
    (Coq, OCaml: "Error:" / "Compiled library Lib.Sorted (in file ...)" / "makes
    inconsistent assumptions over library Lib.Lists"), read as one line; a label followed
    by a location, a summary or nothing stays as it is."""
    out, n = [], 0
    while n < len(raw):
        line = raw[n]
        if _BARE_LABEL.match(line):
            message = []
            for below in raw[n + 1:n + 4]:
                if not below.strip():
                    break
                message.append(below.strip())
            if message and not any(_SUMMARY.match(m) or _NOISE_LINE.match(m) or
                                   re.match(r"^[\w./-]+:\d+", m) for m in message):
                out.append(f"{line.strip()} {' '.join(message)}")
                n += 1 + len(message)
                continue
        out.append(line)
        n += 1
    return out


# a line that only says a program ended with a status ("Subprocess exited with error 1")
_EXIT_SUMMARY = re.compile(r"^\W*(?:(?:sub)?process |command |script )?(?:exited|completed|returned"
                           r"|failed) with (?:exit )?(?:code|error|status) -?\d+\W*$", re.I)


def _summed_up(lines: list[str], causes: list[str]) -> str | None:
    """The line right above the summary a program ends a failure with ("Subprocess exited
    with error 1"), warnings left out: what the summary sums up, when no line says it is an
    error ("Need to perform AWS calls for account 2109..., but the current credentials are
    for 9876...")."""
    end = next((n for n, ln in enumerate(lines) if _EXIT_SUMMARY.search(ln)), None)
    if not end:
        return None
    above = [ln for ln in lines[:end] if ln in causes and not _NOISE_LINE.match(ln)]
    return above[-1].strip()[:400] if above else None


# a comment or quote marker in front of a test harness's diagnostic ("#     Error:  Can't
# locate Mojo/Base.pm in @INC"): the line is read without it
_MARKER = re.compile(r"^\s*(?:#|>|\|)\s+(?=(?:error|fatal)\b)", re.I)
# the gravest level a log tags its lines with, written as logs write it ("CRITICAL Unable to
# contact the Docker daemon", "FATAL  ...", "[fatal] ...")
_GRAVE = re.compile(r"^\s*(?:CRITICAL|FATAL|\[(?:critical|CRITICAL|fatal|FATAL)\])\s+\S")
# a line that only says a program's exit status ("Ansible return code was 2, command was:")
_EXITED_ONLY = re.compile(r"\b(?:return|exit) (?:code|status) (?:was |of |is |= ?)?\d+|"
                          + _STEP_EXITED, re.I)
# a test runner's status of one case ("ERROR - qemu_x86  tests/ringbuf.unit  FAILED : Build
# failure"): which case failed, not why; the diagnostic is on the lines around it
_STATUS_ONLY = re.compile(r"\bFAILED\s*:?\s*(?:build failure|failed|error)?\s*(?:\([^)]*\))?\s*$",
                          re.I)
# a line that goes on with the one above it ("╰─▶ Cannot solve the request because of: ...")
_GOES_ON = re.compile(r"^\s*(?:[╰└├│]\s*[─-]*\s*[▶>]?|[-=]>|→|Caused by:)\s*(?P<rest>\S.*)$")
_HEADING = re.compile(r"^\W*(?:error|fatal)(?:\[[^\]]*\])?:\s*(?:\S+\s*){1,4}$", re.I)


def _with_detail(line: str, text: str) -> str:
    """A cause line with the line that says what it means: one that goes on from it with a
    tree or arrow marker (``× failed to solve ...`` / ``╰─▶ Cannot solve the request
    because of: ...``), or, under a short heading (``error: Program not found``), the
    sentence that follows (``The program `escript` was not found. Is it installed?``)."""
    lines, at = _lines_at(line, text)
    if at is None or at + 1 >= len(lines):
        return line
    below = lines[at + 1]
    goes_on = _GOES_ON.match(below)
    if goes_on and not line.rstrip().endswith((".", "!")) and \
            not re.match(r"^(?:to \w+\b|try\b|hint\b|help\b|note\b)", goes_on["rest"], re.I) and \
            not _ADVICE.match(goes_on["rest"]):
        return f"{line.rstrip(' :')}: {goes_on['rest']}"[:400]
    if _HEADING.match(line) and re.match(r"^[A-Z][^:]*\s\S+\s\S+.*[.?!]$", below) and \
            not _NOISE_LINE.match(below):
        return f"{line.rstrip(' .:')}. {below}"[:400]
    listed = _listed(lines[at + 1:at + 4], lines)
    if listed:
        return f"{line.rstrip(' .:')}: {listed}"[:400]
    return line


# a line that hands over to a list of what is wrong ("Following is the list of potential
# problems / advisories:", "The following problems were found:")
_LIST_INTRO = re.compile(r"\b(?:following|list of)\b.*:$", re.I)


def _listed(after: list[str], lines: list[str]) -> str | None:
    """Under a general cause (a checker "detected a potential misconfiguration"), the first
    problem of the list it hands over to, when that is a sentence ("Please use a locale
    setting which supports UTF-8 (such as LANG=en_US.UTF-8)."), not a name."""
    intro = next((ln for ln in after if _LIST_INTRO.search(ln)), None)
    if intro is None:
        return None
    at = lines.index(intro)
    first = next((ln for ln in lines[at + 1:at + 3] if not _NOISE_LINE.match(ln)), None)
    if first and re.match(r"^[-*•]?\s*[A-Z][a-z]+(?:\s+\S+){3,}.*[.!]$", first):
        return first.lstrip("-*• ")
    return None


def _named_above(lines: list[str]) -> str | None:
    """The cause a summary points up to: the last line above it that says something failed
    or is wrong, warnings included (Maven's enforcer reports its rule as a warning), with
    its message when it ends with a colon."""
    told = [_LEVEL.sub("", ln) for ln in lines if not _INFO.match(ln)]
    for line in reversed(told):
        if _SUMMARY.match(line) or _ADVICE.match(line) or _NOISE_LINE.match(line):
            continue
        if _FAILED_WORDS.search(line):
            return _with_message(line.strip(), told)
    return None


_LEVEL = re.compile(r"^\s*\[(?:warn(?:ing)?|WARN(?:ING)?)\]\s*")
_INFO = re.compile(r"^\s*\[(?:info|INFO|debug|DEBUG)\]")
_FAILED_WORDS = re.compile(r"\b(?:failed|failure|error|not in the allowed|not allowed|violat\w*"
                           r"|denied|refused|missing|invalid|not found|cannot|can't)\b", re.I)


def _with_message(line: str, pool: list[str]) -> str:
    """An exception line that ends with its colon takes its message from the next line
    ("ActiveRecord::PendingMigrationError:" / "Migrations are pending. To resolve ...")."""
    at = _index(line, pool)
    if at is None:
        return line
    if not line.endswith(":"):
        return _wrapped(line, pool)
    rest = [ln.strip() for ln in pool[at + 1:][:3] if ln.strip()]
    message = []
    for ln in rest:
        if ln.startswith(("#", "at ", "File ")) or _NOISE_LINE.match(ln):
            break
        message.append(ln)
        if not ln.endswith(":"):
            break
    return " ".join([line, *message])[:400]


def _index(line: str, pool: list[str]) -> int | None:
    """Where ``line`` stands in ``pool``, whatever the indentation around it (a cause line
    is read stripped; testify indents its "Error:" under the test's name)."""
    return next((n for n, ln in enumerate(pool) if ln.strip() == line.strip()), None)


def _wrapped(line: str, pool: list[str]) -> str:
    """An exception's message that a program wrapped over the next lines, the sentence going
    on in lower case ("Error: The module '/x/better_sqlite3.node'" / "was compiled against a
    different Node.js version using" / "NODE_MODULE_VERSION 127. This version ..."), read as
    one line up to the end of a sentence, at most three lines more."""
    rest = pool[_index(line, pool) + 1:][:3]
    if line.rstrip().endswith((".", "!", "?", ")", "]")) or not rest or \
            not re.match(r"^\s*[a-z]+\s+[a-z]", rest[0]) or _NOISE_LINE.match(rest[0]):
        return line
    out = [line.rstrip()]
    for ln in rest:
        if _NOISE_LINE.match(ln) or ln.lstrip().startswith(("at ", "#", "File ")):
            break
        out.append(ln.strip())
        if re.search(r"[.!?]$", ln.rstrip()):
            break
    return " ".join(out)[:400]


def _handed_over(line: str, pool: list[str]) -> str:
    """A line that says something failed and ends with a colon, what failed on the line
    below it ("There was an error reading functions/package.json:" / "functions/lib/index.js
    does not exist, can't deploy Cloud Functions"; "Error parsing job file from jobs/a.hcl:" /
    "jobs/a.hcl:3,1-25: Unset variable ..."): the line below is the cause, the one above only
    says which step failed."""
    last = re.split(r"[.;,]\s+", line)[-1]
    at = _index(line, pool)
    if not line.endswith(":") or not _FAILED_WORDS.search(line) or at is None or \
            _ADVICE.match(last) or re.match(r"^(?:to \w+(?: it)?|run|try|use)\s*:$", last, re.I):
        return line             # "...; to add:", "please run:": over to what would fix it
    if _LOOKED_IN.search(last):
        # "Plugin [id: 'x'] was not found in any of the following sources:": the line says
        # what failed, the list under it only where it looked
        return line
    below = next((ln.strip() for ln in pool[at + 1:][:2] if ln.strip()), "")
    if len(below.split()) < 3 or _NOISE_LINE.match(below) or _SUMMARY.match(below) or \
            _ADVICE.match(below) or below.endswith(":"):
        return line
    return below[:400]


# a line that says a failure happened and hands over to the next line for what it was
# ("Aborting batchmode due to failure:" / "Fatal Error! It looks like another Unity instance
# is running with this project open.")
# a list of the places a search went through ("... in any of the following sources:",
# "... in the following locations:")
_LOOKED_IN = re.compile(r"\b(?:in|from|at|among|under)\s+(?:any of\s+|one of\s+)?the following\s+"
                        r"(?:\w+\s+){0,2}\w+\s*:$", re.I)
_LEADS_IN = re.compile(r"\b(?:due to|because of|caused by|reason|failure|error|error occurred)"
                       r"\s*:$", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w-]*>")


def normalise(line: str) -> str:
    out = _TAG.sub(" ", line).strip()          # <tool_use_error>...</tool_use_error>
    out = re.sub(r"\s*\[recovered\]", "", out)   # a Go panic re-raised by the test runner
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
    items: list[Item] = field(default_factory=list)
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
        return sorted({i.tool_name or ("pasted by the user" if i.role == "user" else "tool")
                       for i in self.items})


GENERIC = re.compile(r"^(?:error: )?(?:command )?(?:exited|exit|failed|aborted|returned)"
                      r"(?: with)?(?: (?:exit )?(?:code|status))?(?: <n>)?$|^command aborted$",
                      re.IGNORECASE)


def fix_for(sig: str) -> str:
    for pattern, fix in _FIXES:
        if pattern.search(sig):
            return fix
    return _DEFAULT_FIX


def groups(items: Sequence[Item]) -> list[FailureGroup]:
    """Every failure group among ``items`` (sessions in order), repeated or not, in order of
    first appearance."""
    command_of: dict[str, str] = {}
    for runs in commands.by_session(items).values():
        for run in runs:
            command_of[run.item.id] = run.command
    from dream.detect.fixes import interrupted  # fixes reads this module
    found: dict[str, FailureGroup] = {}
    for item in items:
        pasted = pasted_failure(item)
        if not (item.evidence and item.kind == "tool_result" and failed(item)) and not pasted:
            continue        # the same test of failure as the pitfalls: flag or exit status
        if not pasted and interrupted(item.text):
            continue        # the user refused or stopped the call: it never failed
        sig = signature(pasted or item.text)
        cmd = command_of.get(item.id)
        if not sig:
            continue
        if GENERIC.search(sig) and cmd:
            # "exited with code 1" says nothing of the cause: the program is part of it
            if commands.program(cmd) in commands.NEGATIVE_ANSWERS:
                continue        # grep found nothing, diff found a difference: an answer
            sig = f"{commands.program(cmd)}: {sig}"
        grp = found.setdefault(sig, FailureGroup(sig))
        grp.items.append(item)
        if cmd and cmd not in grp.commands:
            grp.commands.append(cmd)
    return list(found.values())


# anchored at a line's start: each of its patterns starts with '^' or '.*', so a line that
# holds a match anywhere holds one from its start, and search() no longer rescans a long line
# from each of its characters
_STRONG_CAUSE = re.compile("^(?:" + "|".join(f"(?:{p.pattern})" for p in _CAUSE_LINE[:2]) + ")",
                           re.M)


def names_error(line: str) -> bool:
    """A cause line that is an exception, an ``Error:`` line or a compiler's diagnostic, not
    the last line a run happened to print."""
    return bool(_STRONG_CAUSE.match(line))


def diagnostic(line: str) -> bool:
    """A cause line that is a compiler's, linker's or checker's own diagnostic ("undefined
    reference to `PyErr_Fetch'", "x.go:3:1: ..."), not a message a program chose to print."""
    return bool(_CAUSE_LINE[1].match(line))


def pasted_failure(item: Item) -> str | None:
    """The terminal output a user pasted into a statement, when it shows a failure (an
    exception, a compiler's diagnostic, a checker's marked finding): the same failure seen
    by the user, so it counts with the agent's own failed runs."""
    if not (item.evidence and item.role == "user" and item.kind == "statement"):
        return None
    rest = noise.pasted(item.text or "")
    if len(rest) < 20:
        return None
    return rest if _STRONG_CAUSE.search(rest) else None


# -- the dream run ----------------------------------------------------------------------
_ERROR_LINE = re.compile(
    r"((?:[A-Z]\w*(?:Error|Exception))\b[^\n]{0,160}|(?:(?:error|fatal|FAILED|Failed)\b:?|"
    r"Error:)[^\n]{0,160}|"
    r"[^\n]{0,80}(?:command not found|No such file or directory|Permission denied|"
    r"not found|timed out)[^\n]{0,60}|exit code \d+)")
# a tool result that says its command failed, when the source records no error flag
_EXITED = re.compile(r"\b(?:exited|exit(?:ed)? (?:with )?(?:code|status))\s+[1-9]\d*\b|"
                     r"\bcommand failed with exit code [1-9]", re.I)


def run_signature(item: Item) -> str | None:
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


def run_findings(items: Sequence[Item]) -> list[Finding]:
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


def failed(item: Item) -> bool:
    """A tool result that failed: flagged as an error, a traceback, or a non-zero exit when
    the source records no flag."""
    text = item.text or ""
    return item.is_error is True or "Traceback (most recent call last)" in text or (
        item.is_error is None and bool(_EXITED.search(text[:300]))) or \
        commands.exit_failed(text)
