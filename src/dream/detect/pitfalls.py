"""Known pitfalls: repeated shell failures, one per root cause, with what fixed them.

A pitfall is a failure of a shell command (Claude Code ``Bash``, Pi ``bash``, Codex
``shell`` are one) keyed by its normalised cause line (:func:`dream.detect.failures.
signature`), so the same cause seen through three tools is one pitfall. It is kept when:

- it happened at least twice; or once, when it says how the machine or the project is set
  up (a missing tool, a lock, a timeout, a refused connection, a password prompt);
- a compile or type error in the code being changed counts only when it recurs across
  sessions, or when the user explained it right after it happened ("the lexer API was
  renamed upstream, peek_token is just peek now"): then the explanation is the lesson;
- a non-zero exit that is an answer (``grep`` found nothing, ``diff`` found a difference)
  and a call the user rejected are no failures.

Its line shows a real example (the command as it ran, cut before one-off arguments such as
a commit message; the cause line without its file location or the tool's log prefix) and,
when the session shows it, the step that fixed it (:func:`fix_of`): the command run between
the failure and a retry that worked, a wrapper that made the same command work (``pytest``
-> ``uv run pytest``), the same command with a flag added, another tool doing the same job
(``npm install`` -> ``pnpm install``), or the install of what the failure says is missing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect import commands, directives, failures, howto, noise
from dream.detect.commands import CommandRun
from dream.detect.finding import Finding, SpoolItem

_REJECTED_CALL = re.compile(r"Sibling tool call errored|doesn'?t want to proceed with this tool"
                            r"|tool use was rejected|Request interrupted", re.I)
_INSTALL = re.compile(r"\b(?:install|add|sync|get|ci|fetch|restore|upgrade)\b")
FIX_WINDOW = 8
# a tool that is not there: the next install that works is what was done about it
_MISSING = re.compile(r"command not found|not recognized as|not installed|[\w-]+ not found$",
                      re.I)
_EXIT_ONLY = re.compile(r"^\s*(?:Exit code:?|exit status|Command exited with code) ?\d+\s*$", re.I)
# an error in the code being changed: a pitfall only when it recurs across sessions
CODE_ERROR = re.compile(
    r"error TS\d+|error\[E\d+\]|\b(?:Syntax|Type|Reference|Name|Attribute|Assertion|Key|"
    r"Index|Value)Error\b|is not assignable|does not exist on type|has no exported member|"
    r"Cannot find module '\.|cannot find symbol|undefined: \w+|expected .* found|"
    r"undefined function|no method named|cannot find value")
# a failure that says how the machine or the project is set up: a pitfall the first time
ENVIRONMENT = re.compile(
    r"command not found|not recognized as|is not recognized|not installed|bfg not found"
    r"|[\w-]+ not found$|could not resolve|no such host|name or service not known"
    r"|permission denied|password is required|terminal is required|operation not permitted"
    r"|timed out|could not lock|already locked|unable to lock|connection refused"
    r"|depend(?:s|ed|ency|encies) (?:on|upon)|no space left|is being used by another"
    r"|ignored by one of your \.gitignore", re.I)
# read-only steps between a failure and its retry fix nothing
_LOOKING = frozenset({"ls", "cat", "head", "tail", "grep", "rg", "find", "git", "echo", "pwd",
                      "which", "type", "less", "wc", "tree", "sed", "awk", "diff", "env",
                      "printenv", "get-childitem", "get-content", "select-string", "jq"})


def pitfalls(items: Sequence[SpoolItem]) -> list[Finding]:
    """One finding per kept root cause among the shell failures of ``items``."""
    by_session = commands.by_session(items)
    run_of = {run.item.id: run for runs in by_session.values() for run in runs}
    found: dict[str, list[SpoolItem]] = {}
    for item in items:
        pasted = failures.pasted_failure(item)
        if pasted:      # the user saw it in their terminal: the same failure, counted
            found.setdefault(failures.signature(pasted), []).append(item)
            continue
        if not (item.evidence and item.kind == "tool_result") or not failures.failed(item):
            continue
        if (item.tool_name or "").lower() not in commands.SHELL_TOOLS | \
                commands.SHELL_OUTPUT_TOOLS or \
                _REJECTED_CALL.search((item.text or "")[:400]):
            continue
        sig = failures.signature(item.text)
        run = run_of.get(item.id)
        if run is not None and _answer(run.command, item.text):
            continue
        if not sig or failures.GENERIC.search(sig) or \
                _EXIT_ONLY.match(failures.cause_line(item.text)):
            continue            # "Exit code 255" alone names no cause
        if run is not None and _looks(failing_step(run.command)) and \
                _NOT_THERE.search(failures.cause_line(item.text)):
            continue            # "ls: x: No such file or directory": looking for something
        found.setdefault(sig, []).append(item)
    out = []
    for sig, failed in found.items():
        sessions = list(dict.fromkeys(i.stream for i in failed))
        if all(i.role == "user" for i in failed):
            continue            # only ever pasted: the user reports it, the agent never ran it
        cause = failures.cause_line(failed[0].text)
        told = _explained(failed, items, cause)
        if len(failed) < 2 and not ENVIRONMENT.search(cause) and not told:
            continue            # a one-off failure mid-task is no pitfall
        if CODE_ERROR.search(cause) and len(sessions) < 2 and not told:
            continue            # a compile or type error in the middle of a change
        runs = [run_of[i.id] for i in failed if i.id in run_of]
        ran = [i for i in failed if i.role != "user"]
        tried = {r.command for r in runs}
        scattered = len({howto.command_key(failing_step(r.command)) for r in runs}) >= 3
        fixes = [] if scattered else \
            [f for r in runs if (f := fix_of(r, by_session.get(r.item.stream, []), tried))]
        fix = min(fixes, key=len) if fixes else None
        text = _line(runs, ran[-1], fix, told)
        fields = {"text": text, "type": "failure",
                  "said": f"{_n(len(failed), 'time')} in {_n(len(sessions), 'session')}"}
        out.append(Finding("failure", fields, [i.id for i in failed][-5:],
                           name=f"pitfall {sig[:60]}"))
    return out


def _line(runs: list[CommandRun], last: SpoolItem, fix: str | None, told: str | None) -> str:
    """``cmd`` fails with: <cause>. Fix: run ``fix`` (or: what the user said about it)."""
    keys = list(dict.fromkeys(howto.command_key(failing_step(r.command)) for r in runs))
    if len(keys) >= 3:
        programs = list(dict.fromkeys(commands.program(r.command) for r in runs))
        head = f"Different `{programs[0]}` commands fail with: " if len(programs) == 1 else \
            "Different commands (" + ", ".join(f"`{p}`" for p in programs[:3]) + ") fail with: "
    elif runs:
        step = failing_step(runs[-1].command, failures.cause_line(last.text), fix)
        head = f"`{shown_command(step)}` fails with: "
    else:
        head = "Fails with: "
    tail = ""
    if fix:
        tail = " Fix: run `" + " && ".join(shown_command(p, 64, values=True)
                                           for p in chain(fix)[:2]) + "`."
    elif told:
        tail = f" The user said: {told}."
    room = max(60, 214 - len(head) - len(tail))    # the count "(3 times in 2 sessions)" follows
    cause = shown_cause(failures.cause_line(last.text), room)
    if fix and fix in cause and ". " in cause[30:]:
        cause = cause[:cause.index(". ", 30)]   # "... To resolve this issue, run: <the fix>"
    end = "" if cause.endswith("…") else "."
    warned = _warned(last.text)
    if warned and len(head) + len(cause) + len(tail) + len(warned) < 206:
        cause = cause.rstrip(" .:;,") + f" ({warned})"
    return head + cause.rstrip(" .:;,") + end + tail


_WARN_LINE = re.compile(r"^\W*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\s*(?:AM|PM)?\]?\s*)?(?:WRN|WARN|"
                        r"WARNING|warning)\b[:\s]*(?P<what>.+)$")


def _warned(text: str) -> str | None:
    """A warning the failing output repeats at least three times ("Invalid .gitleaksignore
    entry fingerprint=..."), with how often: often the reason behind the failure."""
    seen: dict[str, list[str]] = {}
    for line in noise.strip_ansi(text or "").splitlines():
        m = _WARN_LINE.match(line.strip())
        if m:
            what = " ".join(m["what"].split())
            seen.setdefault(re.sub(r"=\S*", "=", what), []).append(what)
    if not seen:
        return None
    key, lines = max(seen.items(), key=lambda kv: len(kv[1]))
    return f"warned {len(lines)} times: {lines[0][:80]}" if len(lines) >= 3 else None


_LOCATION = re.compile(r"^(?:[\w.@+\\/~-]+?(?:\(\d+(?:,\d+)?\)|:\([^)]*\)|(?::\d+)+)):\s+")
_LOG_PREFIX = re.compile(r"^(?:npm (?:ERR!|error|WARN)|yarn (?:error|warn)|pnpm:?|\[(?:error|"
                         r"ERROR|stderr)\]|E\s{2,}|\*\s+[\w.]+:|[✖✗✘×❌]\s*)\s*")
_MODULE = re.compile(r"^(?:[a-z_][a-z0-9_]*\.)+(?=[A-Z]\w*(?:Error|Exception)\b)")
_PROJECT_TAG = re.compile(r"\s+\[[^\]\s]+\.(?:sln|csproj|fsproj|vcxproj)\]$")


def shown_cause(line: str, limit: int = 160) -> str:
    """A cause line as a reader wants it: without its file location (``x.ts(3,4): ``,
    ``codec.cpp:(.text+0x1a4): ``), the tool's log prefix (``npm ERR!``) or the project
    tag MSBuild appends; cut at a sentence end, else a word, before ``limit``."""
    text = _LOG_PREFIX.sub("", _LOCATION.sub("", line.strip()))
    text = _MODULE.sub("", text)        # "django.db.utils.OperationalError" -> its class
    text = _PROJECT_TAG.sub("", text).replace(" [recovered]", "").strip()
    text = " ".join(text.split())
    end = text.rfind(". ")
    if end > 20 and len(text[end + 2:].split()) <= 3 and not text.endswith((".", "!", ")")):
        text = text[:end + 1]           # "... operable program. Check" (a wrapped line)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    if end >= limit // 3:
        return cut[:end]
    return cut.rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def chain(command: str) -> list[str]:
    """The steps of a shell line split at ``&&``, ``||`` and ``;`` outside quotes."""
    parts, cur, quote = [], [], ""
    i = 0
    while i < len(command):
        c = command[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif command.startswith(("&&", "||"), i) or c == ";":
            parts.append("".join(cur).strip())
            cur = []
            i += 1 if c == ";" else 2
            continue
        cur.append(c)
        i += 1
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


_QUIET = frozenset({"cd", "echo", "tail", "head", "grep", "true", "sleep", "printf", "wc"})


def failing_step(command: str, cause: str = "", fix: str | None = None) -> str:
    """The step of a chain that failed: the one whose program the cause names, else the last
    step that does something (not ``cd``, ``echo``, ``git status``), else the step the fix
    repeats."""
    steps = chain(command)
    if len(steps) <= 1:
        return command
    for step in steps:
        if commands.program(step) and re.search(r"(?<![\w.])" + re.escape(
                commands.program(step)) + r"\b", cause):
            return step
    for step in steps:                  # "git commit" when the cause says "Commit blocked"
        words = step.split()
        if len(words) > 1 and len(words[1]) > 3 and re.search(
                r"\b" + re.escape(words[1]), cause, re.I):
            return step
    doing = [s for s in steps if not _looks(s)]
    if doing:
        return doing[-1]
    if fix:
        key = howto.command_key(chain(fix)[-1]).split()[:2]
        for step in steps:
            if howto.command_key(step).split()[:2] == key:
                return step
    return steps[-1]


def _looks(step: str) -> bool:
    """A step that only looks (``ls``, ``cat``, ``git status``, also run over ``ssh``) or
    says something."""
    remote = re.match(r"^ssh\s+(?:-\S+\s+(?:\S+\s+)?)*\S+\s+[\"'](.*?)[\"']?$", step)
    if remote:
        step = chain(remote[1])[-1] if remote[1] else step
    prog = commands.program(step).lower()
    words = step.split()
    return prog in _QUIET or prog in _LOOKING and (prog != "git" or len(words) > 1 and
                                                   words[1] in _GIT_LOOKS)


_GIT_LOOKS = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "remote",
                        "ls-files", "blame"})
_NOT_THERE = re.compile(r"No such file or directory|cannot find path|does not exist|"
                        r"cannot access", re.I)


def shown_command(command: str, limit: int = 60, values: bool = False) -> str:
    """A command as it ran, cut before its one-off arguments: a quoted value of a flag
    (``git commit -m "..."``) and what comes after it are left out, a quoted argument is
    kept (``ssh host "opkg remove x"``) but cut at a word, and the whole stays within
    ``limit`` characters with no flag left without its value."""
    part = re.split(r"\s+\|\s+|\s+2>&1|\s+>\s", command.strip())[0].strip()
    words = re.findall(r"\"[^\"]*\"?|'[^']*'?|\S+", part)
    out: list[str] = []
    for word in words:
        quoted = word[:1] in "\"'"
        if quoted and out and out[-1].startswith("-") and not values:
            out.pop()                   # -m "message": a one-off value, and its flag
            break
        room = limit - len(" ".join(out)) - 1
        if len(word) > room:
            if quoted and room > 12:
                cut = word[1:room - 1].rsplit(" ", 1)[0]
                cut = re.sub(r"(?:\s*(?:&&|\|\||;|\|))+$", "", cut)
                out.append(word[0] + cut + word[0])
            elif "/" in word and not quoted and len(word.rsplit("/", 1)[-1]) + 2 <= room:
                out.append("…/" + word.rsplit("/", 1)[-1])   # a long path: its file
            elif out and out[-1].startswith("-") and not word.startswith("-"):
                out.pop()               # "-Include a,b,c": the flag without its value
            break
        out.append(word)
    return " ".join(out) or part[:limit]


def fix_of(failing: CommandRun, runs: list[CommandRun],
           tried: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The step of the session that made a failing command work (see the module text);
    ``tried`` are commands that failed the same way, so none of them is the fix. The search
    ends at the first retry of the failing command that worked."""
    after = [r for r in runs if r.item.seq > failing.item.seq][:FIX_WINDOW]
    key = howto.command_key(_last_part(failing.command))
    cause = failures.cause_line(failing.item.text)
    for n, run in enumerate(after):
        if run.failed or len(run.command) > 160:
            continue
        parts = chain(run.command)
        retried = [i for i, p in enumerate(parts) if howto.command_key(p) == key]
        if retried:
            fix = _before_retry(n, run, parts, retried[0], after, failing, key)
            return fix if fix not in tried else None
        fix = _instead(run, failing, cause)
        if fix and fix not in tried:
            return fix
    return None


def _before_retry(n: int, run: CommandRun, parts: list[str], at: int, after: list[CommandRun],
                  failing: CommandRun, key: str) -> str | None:
    """The fix shown by a retry that worked: the steps chained before it (``uv sync &&
    uv run pytest``), the retry itself when it only added a flag or changed a message, else
    the first step between the failure and the retry that can change something."""
    if at > 0:
        return " && ".join(parts[:at])
    added = _flags(run.command) - _flags(failing.command)
    if added and " " in key or n == 0 and _options_only(run.command, failing.command):
        return run.command
    steps = [r for r in after[:n] if not r.failed and not _looks(r.command)]
    return steps[0].command if steps else None


def _instead(run: CommandRun, failing: CommandRun, cause: str) -> str | None:
    """A command that did what the failing one could not: the same program through a runner,
    another tool for the same job, or the install of what the failure names."""
    if _wraps(run.command, failing.command) or _replaces(run.command, failing.command):
        return run.command
    words = set(re.findall(r"[a-z][\w.-]{2,}", run.command.lower()))
    if _INSTALL.search(run.command) and (_MISSING.search(cause) or words & set(
            re.findall(r"[a-z][\w.-]{2,}", cause.lower()))):
        return run.command
    return None


def _options_only(run: str, failing: str) -> bool:
    """Two forms of one command that differ only in flags, the values given to flags
    (``-m "feat: ..."``) and ``KEY=value`` settings: not in what they run on."""
    def options(cmd: str) -> tuple[set[str], list[str]]:
        words = re.findall(r"\"[^\"]*\"|'[^']*'|\S+", _last_part(cmd))
        flags, rest = set(), []
        for n, w in enumerate(words):
            if w.startswith("-") or "=" in w or n and words[n - 1].startswith("-") and \
                    w[:1] in "\"'":
                flags.add(w)
            else:
                rest.append(w)
        return flags, rest
    fa, ra = options(run)
    fb, rb = options(failing)
    return ra == rb and fa != fb


def _last_part(command: str) -> str:
    parts = chain(command)
    return parts[-1] if parts else command


def _flags(command: str) -> set[str]:
    return set(re.findall(r"(?<!\S)--?[a-zA-Z][\w=-]*", command))


_RUNNERS = frozenset({"uv", "poetry", "bundle", "npx", "bunx", "pnpm", "yarn", "pipenv", "hatch",
                      "nix", "docker", "python", "python3", "mise", "rye", "pdm"})


def _wraps(run: str, failing: str) -> bool:
    """``uv run pytest -q`` wraps ``pytest -q``: the same program through a runner."""
    inner, outer = _last_part(failing).split(), _last_part(run).split()
    if not inner or inner[0] in _RUNNERS or outer[:1] == inner[:1]:
        return False
    return outer[0] in _RUNNERS and inner[0] in outer[1:4]


def _replaces(run: str, failing: str) -> bool:
    """``pnpm install`` does what ``npm install`` failed to: another program, the same
    purpose, and the same subcommand or the same argument."""
    a, b = _last_part(run).split(), _last_part(failing).split()
    if len(a) < 2 or len(b) < 2 or a[0] == b[0]:
        return False
    same_purpose = {p for p, _ in howto.purposes(_last_part(run))} & \
        {p for p, _ in howto.purposes(_last_part(failing))}
    args = {w for w in a[1:] if not w.startswith("-")} & {w for w in b[1:]
                                                         if not w.startswith("-")}
    return bool(same_purpose and (a[1] == b[1] or args - {"install", "add", "run", "test"}))


def _explained(failed: list[SpoolItem], items: Sequence[SpoolItem], cause: str) -> str | None:
    """What the user said right after a failure about its cause: the sentence of their
    next statement that names a word of the cause line that is a name from the code
    (``peek_token``, ``ZSTD``), without pasted output."""
    names = {w.lower() for w in re.findall(r"`([^`]+)`|\b([A-Za-z]+_\w+|[a-z]+[A-Z]\w*)\b",
                                           cause) for w in w if w}
    if not names:
        return None
    for fail in failed:
        later = [i for i in items if i.stream == fail.stream and i.seq > fail.seq]
        said = next((i for i in later if i.evidence and i.role == "user" and
                     i.kind == "statement"), None)
        if said is None:
            continue
        for sent in directives.split(noise.strip_paste(said.text)):
            if any(n in sent.lower() for n in names) and len(sent) <= 200 and \
                    not directives.is_question(sent):
                sent = _ASIDE.sub("", sent)
                return noise.clean_words(directives.plain_rule(sent)).rstrip(" .")
    return None


_ASIDE = re.compile(r"^(?:(?:ah|oh|right|yeah|yes|ok|okay|hm+|damn|ugh|sorry)\b[\s,.!:-]*)+",
                    re.I)


def _answer(command: str, text: str) -> bool:
    """A non-zero exit that is an answer: ``grep`` found nothing (also at the end of a
    pipe), ``diff`` found a difference, and nothing in the output says an error."""
    last = command.rsplit("|", 1)[-1]
    if commands.program(command) in commands.NEGATIVE_ANSWERS:
        return True
    return commands.program(last) in commands.NEGATIVE_ANSWERS and not _ERRORISH.search(text)


_ERRORISH = re.compile(r"error|not found|denied|failed|fatal|cannot|no such", re.I)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
