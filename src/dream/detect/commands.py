"""Commands and procedures: the shell commands a session ran, and the ones it repeats.

A command is counted only when a tool result (evidence) shows it ran: either the result
names it (a first line ``$ cmd``) or the shell call that produced it sits right before it in
the same session. The collector keeps a call as ``'<tool>: <input>'`` where the input is the
command itself or the call's JSON arguments (Claude Code ``Bash``, Pi ``bash``, Codex
``shell``/``exec_command`` are all shell tools).

A **procedure** is a repeated sequence: the same shell commands, in order, in several
sessions. Commands are normalised so volatile parts (numbers, hashes, temp names) do not
split a step, with immediate repeats collapsed (re-running ``pytest`` twice is one step). A
sequence is a run of at least ``MIN_LEN`` consecutive steps; it is *repeated* when it occurs
in at least two sessions, or three times in one. Only maximal sequences are kept: a shorter
one inside a longer one with the same sessions says nothing new.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dream.items import Item

SHELL_TOOLS = frozenset({
    "bash", "shell", "sh", "zsh", "exec_command", "local_shell", "shell_command",
    "run_command", "terminal", "command", "bashexecution", "container.exec",
})
# tools that read back a background shell's output (Claude Code)
SHELL_OUTPUT_TOOLS = frozenset({"bashoutput", "taskoutput"})


@dataclass(frozen=True)
class CommandRun:
    """One shell command that a tool result shows ran."""

    command: str
    item: Item            # the tool result (evidence)
    failed: bool


# Codex writes "Exit code: 1" at the top of a result it does not flag as an error
_EXIT_LINE = re.compile(r"^\s*(?:Exit code:?|Process exited with code) ([1-9]\d*)\b")


def exit_failed(text: str | None) -> bool:
    """A result whose header says its command exited non-zero: its first line, or a line of
    the header Codex writes before ``Output:`` ("Chunk ID: ... / Wall time: ... / Process
    exited with code 1"); or, for a background shell read back later, a non-zero
    ``<exit_code>``."""
    head = (text or "").split("\nOutput:", 1)[0] if "\nOutput:" in (text or "")[:400] \
        else (text or "").split("\n", 1)[0]
    return any(_EXIT_LINE.match(line) for line in head.splitlines()[:6]) or \
        bool(_EXIT_TAG.search((text or "")[:600]))


_EXIT_TAG = re.compile(r"<exit_code>\s*[1-9]\d*\s*</exit_code>")
# the shell's word that a program is not on the machine ("bash: line 1: sqitch: command not
# found", "zsh: command not found: kas")
_NOT_FOUND = re.compile(r"(?:^|[\s:])(?P<a>[\w.+-]+): (?:command )?not found\s*$"
                        r"|command not found: (?P<b>[\w.+-]+)\s*$", re.M)


def not_found(text: str | None) -> set[str]:
    """The programs a result says the shell could not find (``sqitch``)."""
    return {m["a"] or m["b"] for m in _NOT_FOUND.finditer(text or "")}


def local_copy(step: str, missing: set[str] | frozenset[str]) -> bool:
    """A step that calls by a path (``./sqitch``, ``bin/kas``) a program the shell could
    not find by its bare name: the project's own wrapper, another program than the bare
    one (which is not on the machine), so what the user said against the bare name ("no
    sqitch on the host") is not said against it."""
    first = step.split()[0] if step.split() else ""
    return "/" in first and first.rsplit("/", 1)[-1] in missing


def by_session(items: Sequence[Item]) -> dict[str, list[CommandRun]]:
    """Shell commands per session, in order, each backed by a tool result."""
    streams: dict[str, list[Item]] = {}
    for item in items:
        streams.setdefault(item.stream, []).append(item)
    out: dict[str, list[CommandRun]] = {}
    for stream, its in streams.items():
        runs = commands_of(its)
        if runs:
            out[stream] = runs
    return out


def commands_of(items: Sequence[Item]) -> list[CommandRun]:
    runs: list[CommandRun] = []
    pending: list[tuple[str, str]] = []      # (tool name, command) of calls awaiting a result
    after_result = False
    for item in items:
        tool = (item.tool_name or "").lower()
        if item.role == "user" and item.kind == "statement":
            pending.clear()     # a new turn: a call still waiting was never answered
            continue
        if not (item.evidence and item.kind == "tool_result"):
            if item.tool_name and after_result:
                pending.clear()     # a new batch of calls: the last batch was answered
            after_result = False
            if tool in SHELL_TOOLS:
                cmd = command_from_call(item.text, item.tool_name)
                if cmd:
                    pending.append((tool, cmd))
            continue
        named = command_from_result(item.text) if tool in SHELL_TOOLS or not tool else None
        if named is None and tool in SHELL_TOOLS:
            # the oldest pending shell call is the one this result answers
            idx = next((n for n, (t, _c) in enumerate(pending) if t == tool), None)
            if idx is None and pending:
                idx = 0
            if idx is not None:
                named = pending.pop(idx)[1]
        elif named is not None and pending:
            pending = [p for p in pending if p[1] != named]
        after_result = True
        if named:
            runs.append(CommandRun(named, item, (bool(item.is_error) or exit_failed(item.text))
                                   and not limit_reached(named, item.text)))
    return runs


# the status ``timeout`` exits with when the time it was given ran out
_TIMED_OUT = re.compile(r"^\s*(?:Exit code:?|Process exited with code) 124\b|<exit_code>\s*124\b",
                        re.M)
_SAYS_ERROR = re.compile(r"error|exception|not found|denied|failed|fatal|cannot|no such|panic"
                         r"|refused|traceback", re.I)


def limit_reached(command: str, text: str | None) -> bool:
    """A command the agent ran under ``timeout`` that was still running when its time ran
    out (status 124) and printed no error (``timeout 25 npm start``: the app started and
    kept running): the limit was the agent's way to stop it, not a failure."""
    head = (text or "")[:600]
    return program(command) == "timeout" and bool(_TIMED_OUT.search(head)) and \
        not _SAYS_ERROR.search(text or "")


def command_from_call(text: str, tool: str | None = None) -> str | None:
    """The command of a shell tool call. The collector keeps a call as ``'<tool>: <input>'``
    where the input is the command itself or the call's JSON arguments."""
    text = (text or "").strip()
    if tool and text.lower().startswith(tool.lower() + ":"):
        text = text[len(tool) + 1:].strip()
    if not text:
        return None
    if text[:1] in "{[":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in ("command", "cmd", "script"):
                value = data.get(key)
                if isinstance(value, list):
                    value = _unwrap_argv(value)
                if isinstance(value, str) and value.strip():
                    return clean_command(value)
            return None
        if isinstance(data, list):
            return clean_command(_unwrap_argv(data))
    text = text.removeprefix("$ ")
    return clean_command(text)


def command_from_result(text: str) -> str | None:
    """A command named by its result: a first line of the form ``$ cmd``."""
    first = (text or "").lstrip().split("\n", 1)[0]
    if first.startswith("$ ") and len(first) > 2:
        return clean_command(first[2:])
    return None


def _unwrap_argv(argv: list[Any]) -> str:
    parts = [str(a) for a in argv]
    if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] in ("-lc", "-c"):
        return parts[2]
    return " ".join(parts)


def clean_command(cmd: str) -> str:
    return re.sub(r"\s+", " ", cmd.strip())[:300]


def normalise_command(command: str) -> str:
    """A command with its volatile parts (paths of temp files, numbers, hashes) replaced, so
    ``pytest -k 12`` and ``pytest -k 13`` count as the same manual step."""
    out = command.strip()
    out = re.sub(r"\b(?:tmp|temp)[A-Za-z0-9_.-]*", "<tmp>", out, flags=re.IGNORECASE)
    out = re.sub(r"\b[0-9a-f]{7,40}\b", "<hex>", out, flags=re.IGNORECASE)
    out = re.sub(r"(?<![\w-])\d+(?![\w])", "<n>", out)
    return re.sub(r"\s+", " ", out)[:200]


# programs whose non-zero exit is an answer ("no match", "they differ"), not a failure
NEGATIVE_ANSWERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp",
                              "test", "[", "git-diff", "pgrep", "which", "command"})


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


def program(command: str) -> str:
    """The program a shell command runs (after any leading ``cd dir &&`` and env vars)."""
    for part in chain(command):
        words = [w for w in part.split() if "=" not in w.split("/")[0]]
        if words and words[0] != "cd":
            return words[0].rsplit("/", 1)[-1]
    return command.split()[0] if command.split() else "command"


def programs(items: Sequence[Item]) -> frozenset[str]:
    """The programs this project's shell commands ran (``cabal``, ``rebar3``, ``carton``)
    and the tools they ran as a subcommand (``rebar3 dialyzer``), lower-cased: the names a
    rule about a tool of this project uses, whatever the tool."""
    out = set()
    for runs in by_session(items).values():
        for run in runs:
            for step in chain(run.command):
                words = [w for w in step.lower().split() if "=" not in w]
                if words and words[0] == "cd":
                    continue
                name = program(step).lower()
                sub = words[1] if len(words) > 1 and words[0].endswith(name) else ""
                for word in (name, sub if len(sub) >= 4 and sub not in _PLAIN_SUBCOMMANDS
                             else ""):
                    if len(word) > 2 and re.fullmatch(r"[a-z][\w.+-]*", word):
                        out.add(word)
    return frozenset(out - _SHELL_PROGRAMS)


# subcommands that say what is done, not with which tool
_PLAIN_SUBCOMMANDS = frozenset({
    "run", "exec", "test", "tests", "build", "install", "add", "remove", "start", "stop",
    "check", "format", "lint", "sync", "update", "upgrade", "init", "clean", "list", "show",
    "help", "version", "status", "restore", "compile", "serve", "watch", "publish", "fetch",
    "push", "pull", "commit", "diff", "info", "config", "shell", "deploy", "apply", "plan"})


# the shell's own programs: they name no tool of a project
_SHELL_PROGRAMS = frozenset({
    "cd", "ls", "cat", "echo", "grep", "find", "sed", "awk", "head", "tail", "git", "ssh",
    "curl", "wget", "printf", "mkdir", "rm", "cp", "mv", "chmod", "touch", "which", "type",
    "pwd", "env", "export", "source", "eval", "diff", "sort", "xargs", "kill", "ps", "sleep",
    "tree", "sudo", "true", "false", "test", "apply_patch", "bash", "sh", "zsh", "tee"})


# -- procedures ---------------------------------------------------------------------------
MIN_LEN = 3
MAX_LEN = 12


@dataclass
class Procedure:
    steps: tuple[str, ...]                       # normalised commands
    examples: tuple[str, ...]                    # one real command per step
    occurrences: list[list[Item]] = field(default_factory=list)  # tool results per occurrence

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(occ[0].stream for occ in self.occurrences))

    @property
    def items(self) -> list[Item]:
        return [i for occ in self.occurrences for i in occ]

    @property
    def label(self) -> str:
        """Distinct words of the steps, in order (for slugs)."""
        words: list[str] = []
        for step in self.examples:
            for word in step.split()[:2]:
                word = word.strip("-./").lower()
                if word.isalnum() and word not in words:
                    words.append(word)
        return " ".join(words)


def _steps(runs: list[CommandRun]) -> list[tuple[str, CommandRun]]:
    out: list[tuple[str, CommandRun]] = []
    for run in runs:
        if run.failed:
            out.append(("<failed>", run))     # a failing command is not a step to repeat
            continue
        key = normalise_command(run.command)
        if out and out[-1][0] == key:
            continue
        out.append((key, run))
    return out


def repeated(commands: dict[str, list[CommandRun]]) -> list[Procedure]:
    """Repeated sequences in the commands of each session (:func:`by_session`)."""
    per_session = {s: _steps(r) for s, r in commands.items()}
    found: dict[tuple[str, ...], Procedure] = {}
    longest = min(MAX_LEN, max((len(v) for v in per_session.values()), default=0))
    for n in range(longest, MIN_LEN - 1, -1):
        for steps in per_session.values():
            i = 0
            while i + n <= len(steps):
                window = steps[i:i + n]
                key = tuple(k for k, _ in window)
                seq = found.get(key)
                if seq is None:
                    seq = found[key] = Procedure(key, tuple(r.command for _, r in window))
                seq.occurrences.append([r.item for _, r in window])
                i += 1
    kept: list[Procedure] = []
    candidates: list[Procedure] = []
    for key in sorted(found, key=lambda k: -len(k)):
        seq = found[key]
        if len(set(key)) < 2 or "<failed>" in key:
            continue                               # the same command over and over
        if len(seq.sessions) < 2 and len(seq.occurrences) < 3:
            continue
        candidates.append(seq)
    # the strongest first; a sequence sharing half its steps with a stronger one is the same
    # work seen from another angle
    candidates.sort(key=lambda s: (-len(s.sessions) * len(s.steps), -len(s.sessions),
                                   s.items[0].seq))
    for seq in candidates:
        if any(_overlap(seq.steps, k.steps) for k in kept):
            continue
        kept.append(seq)
    return kept


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(set(a) & set(b)) * 2 >= min(len(set(a)), len(set(b)))
