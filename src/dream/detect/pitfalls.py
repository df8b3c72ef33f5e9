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

from dream.detect import commands, failures, fixes, howto, objections, remarks, shell
from dream.detect.commands import CommandRun
from dream.detect.finding import Finding
from dream.items import Item

_EXIT_ONLY = re.compile(r"^\s*(?:Exit code:?|exit status|Command exited with code) ?\d+\s*$", re.I)

def pitfalls(items: Sequence[Item]) -> list[Finding]:
    """One finding per kept root cause among the shell failures of ``items``."""
    by_session = commands.by_session(items)
    run_of = {run.item.id: run for runs in by_session.values() for run in runs}
    found: dict[str, list[Item]] = {}
    # a command the user said no to right after it ran: its failure was the agent's mistake
    refused = objections.objected(items, howto.command_key)
    mistaken: set[str] = set()
    streams: dict[str, list[Item]] = {}
    for item in items:
        streams.setdefault(item.stream, []).append(item)
    for item in items:
        pasted = failures.pasted_failure(item)
        if pasted:      # the user saw it in their terminal: the same failure, counted
            found.setdefault(failures.signature(pasted), []).append(item)
            continue
        if not (item.evidence and item.kind == "tool_result") or not failures.failed(item):
            continue
        if (item.tool_name or "").lower() not in commands.SHELL_TOOLS | \
                commands.SHELL_OUTPUT_TOOLS or fixes.interrupted(item.text):
            continue
        sig = failures.signature(item.text)
        run = run_of.get(item.id)
        if run is not None and (_answer(run.command, item.text) or
                                commands.limit_reached(run.command, item.text)):
            continue
        if run is not None and refused and objections.covers(
                refused, objections.step_key(shell.failing_step(run.command), howto.command_key)):
            mistaken.add(item.id)
        if not sig or failures.GENERIC.search(sig) or \
                _EXIT_ONLY.match(failures.cause_line(item.text)):
            continue            # "Exit code 255" alone names no cause
        if run is not None and shell.looks(shell.failing_step(run.command)) and \
                shell.NOT_THERE.search(failures.cause_line(item.text)):
            continue            # "ls: x: No such file or directory": looking for something
        found.setdefault(sig, []).append(item)
    out = []
    order = {item.id: n for n, item in enumerate(items)}
    for failed in _merged(found, by_session, run_of, order, refused):
        sessions = list(dict.fromkeys(i.stream for i in failed))
        if all(i.role == "user" for i in failed):
            continue            # only ever pasted: the user reports it, the agent never ran it
        cause = failures.cause_line(failed[0].text)
        told = remarks.explained(failed, items, cause) or remarks.told_fix(failed, items)
        setup = fixes.ENVIRONMENT.search(cause) or any(
            fixes.ENVIRONMENT.search(line) for line in (failed[0].text or "")[:1500].splitlines()
            if _ERROR_LINE.search(line))
        runs = [run_of[i.id] for i in failed if i.id in run_of]
        ran = [i for i in failed if i.role != "user"]
        fix = fixes.fix(runs, by_session, refused) or (
            None if all(i.id in mistaken for i in failed)   # the user said no to it: they
            else _user_fix(runs, streams, by_session)       # answer the mistake, not a failure
            or _repeated_next_step(runs, streams, by_session, refused))
        shown = fix is not None and (any(fixes.shows(fix, run) for run in runs) or
                                     bool(fixes.SYSTEM_INSTALL.search(fix)) or
                                     _user_named(fix, runs, streams))
        if setup and runs and all(fixes.PRIVILEGED.match(shell.failing_step(r.command)) for r in runs):
            setup = None        # the agent asked for root once and was refused: no set-up
        if fix is None and not told and all(i.id in mistaken for i in failed):
            continue            # only the agent's mistake, and nothing shows what to do
        if len(failed) < 2 and fix is None and not told and \
                _fixed_in_code(runs, streams, by_session):
            continue            # an edit of the code, then the same command worked
        if fix is None and not told and _dropped(runs, by_session):
            continue            # a package tried once and done without: a one-off
        if len(failed) < 2 and not setup and not told and not shown and \
                not fixes.provided(runs, cause, by_session) and \
                not (fix and (_ERRORISH.search(cause) or failures.diagnostic(cause)) and
                     _only_step(fix, runs, streams, by_session,
                                flag=failures.diagnostic(cause))):
            continue            # a one-off failure mid-task is no pitfall
        if (fixes.CODE_ERROR.search(cause) or _TEST_FAILED.match(cause)) and \
                len(sessions) < 2 and not told and \
                not (fix and fixes.CODE_ERROR.search(cause) and
                     any(fixes.named_by(fix, r) and commands.program(fix) !=
                         commands.program(shell.failing_step(r.command)) for r in runs)):
            # a compile or type error, or a failing test, mid-change; unless the compiler
            # named another program's step that fixed it ("help: consider downloading the
            # target with `rustup target add wasm32-unknown-unknown`"): the machine lacked
            # something, the code was right
            continue
        shared = _shared_cause(failed)
        text = _line(runs, ran[-1], fix, told, shared)
        fields = {"text": text, "type": "failure",
                  "said": f"{_n(len(failed), 'time')} in {_n(len(sessions), 'session')}"}
        sig = failures.normalise(shared) if shared else failures.signature(failed[0].text)
        out.append(Finding("failure", fields, [i.id for i in failed][-5:],
                           name=f"pitfall {sig[:60]}"))
    return out


def _merged(found: dict[str, list[Item]], by_session: dict[str, list[CommandRun]],
            run_of: dict[str, CommandRun], order: dict[str, int],
            refused: set[str]) -> list[list[Item]]:
    """The failures of each cause, causes said alike put together: two cause lines that
    share most of their words ("connection to server at ... port <n> failed: Connection
    refused" in ``psql`` and in ``manage.py``), or two causes of one program that the same
    step fixed in different sessions (``go.mod`` out of date, a ``go.sum`` entry missing:
    ``go mod tidy``). A quoted name in a cause line is the instance, not the cause
    ("Could not resolve \"node:crypto\"" and "... \"buffer\""), except in an error of the
    code being changed, where the name is what went wrong."""
    groups = [list(failed) for failed in found.values()]
    words = [_words(_instance_free(failures.signature(g[0].text))) for g in groups]
    fixed = []
    for g in groups:
        runs = [run_of[i.id] for i in g if i.id in run_of]
        fix = fixes.fix(runs, by_session, refused)
        fixed.append((howto.command_key(shell.chain(fix)[-1]) if fix else None,
                      {commands.program(shell.failing_step(r.command)) for r in runs}))
    n = 0
    while n < len(groups):
        m = n + 1
        while m < len(groups):
            alike = len(words[n] & words[m]) >= 3 and \
                len(words[n] & words[m]) / len(words[n] | words[m]) >= 0.6
            same_fix = fixed[n][0] is not None and fixed[n][0] == fixed[m][0] and \
                fixed[n][1] & fixed[m][1] and \
                not {i.stream for i in groups[n]} & {i.stream for i in groups[m]}
            if alike or same_fix:
                groups[n] += groups.pop(m)
                words[n] |= words.pop(m)
                fixed.pop(m)
                continue
            m += 1
        n += 1
    return [sorted(g, key=lambda i: order[i.id]) for g in groups]


_QUOTED = re.compile(r"'[^'\s]{1,80}'|\"[^\"\s]{1,80}\"|`[^`\s]{1,80}`")
# a test that failed: the state of the code under change, a pitfall only across sessions
_TEST_FAILED = re.compile(r"^\s*(?:FAIL|FAILED)\s+\S|^\s*--- FAIL:")


def _instance_free(sig: str) -> str:
    return sig if fixes.CODE_ERROR.search(sig) else _QUOTED.sub(" ", sig)


# a tool that edits files of the code (Claude Code Edit/Write, Pi edit, Codex apply_patch)
_EDIT_TOOL = re.compile(r"^(?:edit|multiedit|write|apply_patch|str_replace\w*|notebookedit)$", re.I)


def _fixed_in_code(runs: list[CommandRun], streams: dict[str, list[Item]],
                   by_session: dict[str, list[CommandRun]]) -> bool:
    """A failure followed by an edit of the code and then the same command working, with no
    shell step between: the mistake was in the code being changed, however its message
    reads ("depends on a source named 'raw.shipment' which was not found")."""
    for run in runs:
        later = [r for r in by_session.get(run.item.stream, []) if r.item.seq > run.item.seq]
        if not later or later[0].failed or howto.command_key(shell.failing_step(
                later[0].command)) != howto.command_key(shell.failing_step(run.command)):
            return False
        between = [i for i in streams.get(run.item.stream, [])
                   if run.item.seq < i.seq < later[0].item.seq and i.kind == "tool_result"]
        if not any(_EDIT_TOOL.match(i.tool_name or "") and not fixes.REJECTED_CALL.search(
                (i.text or "")[:400]) for i in between):
            return False
    return bool(runs)


def _only_step(fix: str, runs: list[CommandRun], streams: dict[str, list[Item]],
               by_session: dict[str, list[CommandRun]], flag: bool = False) -> bool:
    """The failing command worked when run again right away with the fix chained before it,
    or with a flag added, and no edit of the code in between (``make`` failed on stale build
    products, ``make clean && make`` built; ``cargo test`` failed to link the Python
    extension, ``cargo test --no-default-features`` passed): nothing else changed, so the
    fix is what the checkout needed. A flag counts only under a compiler's or linker's own
    diagnostic (``flag``): a refused install retried with ``--local`` is a
    choice of where to install, not a fact of the build. A
    formatter is no such step: it rewrites the code (``packer fmt .`` before a check)."""
    if any(name == "format" for name, _ in howto.purposes(fix)):
        return False
    for run in runs:
        for retry in fixes.chained_before_retry(fix, [run], by_session, flag):
            between = [i for i in streams.get(run.item.stream, [])
                       if run.item.seq < i.seq < retry.item.seq and i.kind == "tool_result"]
            if not any(_EDIT_TOOL.match(i.tool_name or "") for i in between):
                return True
    return False


def _dropped(runs: list[CommandRun], by_session: dict[str, list[CommandRun]]) -> bool:
    """Every failing command added one package (``pip install pyyaml-include``) and no
    later command installed it another way: the work went on without it, so its failure
    says nothing lasting about the project. A failure whose command is not in the bundle
    (its call fell in an earlier run) shows no package, so it is not one."""
    if not runs:
        return False
    added = set()
    for run in runs:
        step = shell.failing_step(run.command)
        if not howto.adds_package(step):
            return False
        added |= {w for w in step.split()[2:] if not w.startswith("-")}
    later = [r for rs in by_session.values() for r in rs if not r.failed and
             r.item.seq > min(run.item.seq for run in runs)]
    return bool(added) and not any(set(r.command.split()) & added for r in later)


def _user_fix(runs: list[CommandRun], streams: dict[str, list[Item]],
              by_session: dict[str, list[CommandRun]]) -> str | None:
    """The command the user named in backticks right after a failure (no command worked in
    between), when the agent ran it next and it worked ("don't pip install wheels. `make
    dev` — it creates .venv and runs maturin develop inside it"): the user's fix."""
    for run in runs:
        said = next((i for i in streams.get(run.item.stream, []) if i.seq > run.item.seq
                     and i.is_statement), None)
        if said is None or fixes.PRIVILEGED.match(shell.failing_step(run.command)):
            continue            # "sudo apt-get ...": the user answers the ask for root
        later = [r for r in by_session.get(run.item.stream, []) if r.item.seq > run.item.seq]
        if any(not r.failed for r in later if r.item.seq < said.seq):
            continue            # something worked before the user spoke: not what they answer
        after = next((r for r in later if r.item.seq > said.seq), None)
        if after is None or after.failed or shell.looks(after.command) or \
                fixes.interrupted(after.item.text):
            continue
        named = [" ".join(n.split()) for n in re.findall(r"`([^`]+)`", said.text or "")]
        step = shell.chain(after.command)[0]
        if any(len(n.split()) >= 2 and (step == n or step.startswith(n + " ")) and
               howto.command_key(n) != howto.command_key(shell.failing_step(run.command))
               for n in named):
            return after.command
    return None


def _next_step(run: CommandRun, streams: dict[str, list[Item]],
               by_session: dict[str, list[CommandRun]],
               refused: set[str]) -> tuple[str, str] | None:
    """The command the session ran right after a failure, only looking around in between,
    when it worked and can change something (no check, formatter or start of the app), and no
    edit of the code came before it; not the failing command run again (a retry is
    :func:`fixes.fix_of`'s to read). With the key of its first step."""
    key = howto.command_key(shell.failing_step(run.command))
    later = [r for r in by_session.get(run.item.stream, []) if r.item.seq > run.item.seq]
    for step in later[:fixes.FIX_WINDOW]:
        if fixes.interrupted(step.item.text):
            continue            # refused or stopped: it never ran
        if shell.looks(step.command) and not step.failed:
            continue            # "grep -n gen Taskfile.yml": looking for what to do
        steps = shell.chain(step.command)
        first = steps[0] if steps else step.command
        first_key = howto.command_key(first)
        if step.failed or not shell.changes(first) or shell.edits(step.command) or \
                first_key == key or \
                {name for name, _ in howto.purposes(first)} & _NO_FIX or \
                objections.covers(refused, first_key):
            return None
        between = [i for i in streams.get(run.item.stream, [])
                   if run.item.seq < i.seq < step.item.seq and i.kind == "tool_result"]
        if any(_EDIT_TOOL.match(i.tool_name or "") for i in between):
            return None         # the code was changed first: the fix was in the code
        return first_key, step.command
    return None


# what a step is for when it cannot be what a failure needed: it checks the code, rewrites
# it, or starts the app ("pnpm lint" run next in each session is the next task)
_NO_FIX = frozenset({"test", "lint", "format", "run", "release"})


def _repeated_next_step(runs: list[CommandRun], streams: dict[str, list[Item]],
                        by_session: dict[str, list[CommandRun]],
                        refused: set[str]) -> str | None:
    """The step that came right after the failure in two sessions or more, the same command
    each time, and worked (``xcodebuild`` cannot find a new module, ``tuist generate`` runs
    next, in each session): what the failure needs, though the failing command itself was
    not run again (the work went on with another command). The shortest form it ran in."""
    found: dict[str, dict[str, str]] = {}
    for run in runs:
        step = _next_step(run, streams, by_session, refused)
        if step:
            found.setdefault(step[0], {}).setdefault(run.item.stream, step[1])
    steps = [list(per.values()) for per in found.values() if len(per) >= 2]
    return min(steps[0], key=len) if len(steps) == 1 else None


def _user_named(fix: str, runs: list[CommandRun], streams: dict[str, list[Item]]) -> bool:
    """The user's next words after a failure name the step that then fixed it: the step
    itself, its program and subcommand when the failing command was another one, or a flag
    it added ("--profile sandbox!!"), in whatever language the rest is said."""
    tried = {tuple(shell.failing_step(r.command).split()[:2]) for r in runs}
    flags = {f for r in runs for f in fixes.flags(r.command)}
    marks = set()
    for step in shell.chain(fix):
        if not shell.changes(step):
            continue
        words = step.split()
        marks.add(" ".join(words).removeprefix("./"))
        if len(words) >= 2 and tuple(words[:2]) not in tried:
            marks.add(" ".join(words[:2]).removeprefix("./"))
        marks |= {f for f in fixes.flags(step) - flags if len(f) >= 4}
    for run in runs:
        said = next((i for i in streams.get(run.item.stream, []) if i.seq > run.item.seq
                     and i.is_statement), None)
        text = " ".join((said.text or "").lower().split()) if said else ""
        if any(mark.lower() in text for mark in marks):
            return True
    return False


def _words(sig: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z_]{2,}", sig.lower())
            if w not in {"path", "file", "hex", "uuid", "tmp", "time", "the", "and", "for"}}


# a web address, or a host with its port ("127.0.0.1:9222", "localhost:6006")
_ADDRESS = re.compile(r"://|[\w.-]:\d+\b")


def _shared_cause(failed: list[Item]) -> str | None:
    """The cause the failures of a pitfall share, when they said it of different things
    ("No module named 'babel'" in one session, "... 'weasyprint'" in the other; "plugin
    buf.build/protocolbuffers/go: resource_exhausted" and "plugin buf.build/grpc/go: ..."):
    the words they share, each name that differs left out ("No module named '…'"), so the
    line does not say that one of them happened every time. None when every failure said
    the same, or when they differ in more than two words, in an address, or in length."""
    causes = list(dict.fromkeys(shell.shown_cause(failures.cause_line(i.text), 400)
                                for i in failed))
    if len(causes) < 2:
        return None
    split = [c.split() for c in causes]
    if len({len(words) for words in split}) != 1:
        return None
    out, differ = [], 0
    for words in zip(*split):
        if len(set(words)) == 1:
            out.append(words[0])
            continue
        differ += 1
        if any(_ADDRESS.search(w) or "[REDACTED" in w for w in words) or \
                len({re.sub(r"\d+", "", w) for w in words}) == 1:
            return None         # another address, a number, a secret left out: no name
        m = re.match(r"^(\W*)(.*?)(\W*)$", words[-1])
        out.append(f"{m[1]}…{m[3]}")
    return " ".join(out) if differ <= 2 else None


def _line(runs: list[CommandRun], last: Item, fix: str | None, told: str | None,
          shared: str | None = None) -> str:
    """``cmd`` fails with: <cause>. Fix: run ``fix`` (or: what the user said about it);
    ``shared`` is the cause said of different things (:func:`_shared_cause`)."""
    keys = list(dict.fromkeys(howto.command_key(shell.failing_step(r.command)) for r in runs))
    if len(keys) >= 3:
        programs = list(dict.fromkeys(commands.program(r.command) for r in runs))
        head = f"Different `{programs[0]}` commands fail with: " if len(programs) == 1 else \
            "Different commands (" + ", ".join(f"`{p}`" for p in programs[:3]) + ") fail with: "
    elif runs:
        step = shell.failing_step(runs[-1].command, failures.cause_line(last.text), fix)
        head = f"`{shell.shown_command(step)}` fails with: "
    else:
        head = "Fails with: "
    tail = ""
    if fix:
        steps = [p for p in shell.chain(fix) if shell.changes(p)] or shell.chain(fix)
        room = 90 if len(steps) == 1 else 64    # a retry with a flag added: the flag shows
        tail = " Fix: run `" + " && ".join(shell.shown_command(p, room, values=True)
                                           for p in steps[:2]) + "`."
    elif told:
        tail = f" The user said: {told}."
    room = max(60, 214 - len(head) - len(tail))    # the count "(3 times in 2 sessions)" follows
    cause = shell.shown_cause(shared or failures.cause_line(last.text), room)
    if fix and fix in cause and ". " in cause[30:]:
        cause = cause[:cause.index(". ", 30)]   # "... To resolve this issue, run: <the fix>"
    end = "" if cause.endswith("…") else "."
    warned = shell.warned(last.text)
    if warned and len(head) + len(cause) + len(tail) + len(warned) < 206:
        cause = cause.rstrip(" .:;,") + f" ({warned})"
    return head + cause.rstrip(" .:;,") + end + tail


def _answer(command: str, text: str) -> bool:
    """A non-zero exit that is an answer: ``grep`` found nothing (also at the end of a
    pipe), ``diff`` found a difference, and nothing in the output says an error."""
    last = command.rsplit("|", 1)[-1]
    if commands.program(command) in commands.NEGATIVE_ANSWERS:
        return True
    return commands.program(last) in commands.NEGATIVE_ANSWERS and not _ERRORISH.search(text)


# a line of the output that reports an error ("error: externally-managed-environment")
_ERROR_LINE = re.compile(r"^\W*(?:error|fatal)\b|^\s*[×✖✗]\s|\[error\]", re.I)
_ERRORISH = re.compile(r"error|not found|denied|failed|fatal|cannot|no such", re.I)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
