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

from dream.detect.finding import Finding, SpoolItem

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
    item: SpoolItem            # the tool result (evidence)
    failed: bool


# Codex writes "Exit code: 1" at the top of a result it does not flag as an error
_EXIT_LINE = re.compile(r"^\s*(?:Exit code:?|Process exited with code) ([1-9]\d*)\b")


def exit_failed(text: str | None) -> bool:
    """A result whose first line says its command exited non-zero (or, for a background
    shell read back later, whose ``<exit_code>`` is non-zero)."""
    return bool(_EXIT_LINE.match(text or "") or _EXIT_TAG.search((text or "")[:600]))


_EXIT_TAG = re.compile(r"<exit_code>\s*[1-9]\d*\s*</exit_code>")


def by_session(items: Sequence[SpoolItem]) -> dict[str, list[CommandRun]]:
    """Shell commands per session, in order, each backed by a tool result."""
    streams: dict[str, list[SpoolItem]] = {}
    for item in items:
        streams.setdefault(item.stream, []).append(item)
    out: dict[str, list[CommandRun]] = {}
    for stream, its in streams.items():
        runs = commands_of(its)
        if runs:
            out[stream] = runs
    return out


def commands_of(items: Sequence[SpoolItem]) -> list[CommandRun]:
    runs: list[CommandRun] = []
    pending: list[tuple[str, str]] = []      # (tool name, command) of calls awaiting a result
    for item in items:
        tool = (item.tool_name or "").lower()
        if not (item.evidence and item.kind == "tool_result"):
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
        if named:
            runs.append(CommandRun(named, item, bool(item.is_error) or exit_failed(item.text)))
    return runs


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
                    return _clean_command(value)
            return None
        if isinstance(data, list):
            return _clean_command(_unwrap_argv(data))
    text = text.removeprefix("$ ")
    return _clean_command(text)


def command_from_result(text: str) -> str | None:
    """A command named by its result: a first line of the form ``$ cmd``."""
    first = (text or "").lstrip().split("\n", 1)[0]
    if first.startswith("$ ") and len(first) > 2:
        return _clean_command(first[2:])
    return None


def _unwrap_argv(argv: list[Any]) -> str:
    parts = [str(a) for a in argv]
    if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] in ("-lc", "-c"):
        return parts[2]
    return " ".join(parts)


def _clean_command(cmd: str) -> str:
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


def program(command: str) -> str:
    """The program a shell command runs (after any leading ``cd dir &&`` and env vars)."""
    parts = re.split(r"\s*(?:&&|;|\|\|)\s*", command.strip())
    for part in parts:
        words = [w for w in part.split() if "=" not in w.split("/")[0]]
        if words and words[0] != "cd":
            return words[0].rsplit("/", 1)[-1]
    return command.split()[0] if command.split() else "command"


# -- procedures ---------------------------------------------------------------------------
MIN_LEN = 3
MAX_LEN = 12


@dataclass
class Procedure:
    steps: tuple[str, ...]                       # normalised commands
    examples: tuple[str, ...]                    # one real command per step
    occurrences: list[list[SpoolItem]] = field(default_factory=list)  # tool results per occurrence

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(occ[0].stream for occ in self.occurrences))

    @property
    def items(self) -> list[SpoolItem]:
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


# -- how to work here -----------------------------------------------------------------------
_PM = r"(?:npm|pnpm|yarn|bun)"
PURPOSES = [
    ("install", re.compile(
        _PM + r" (?:install|i|ci|add)\b|\buv (?:sync|add|pip install)\b|\bpip3? install\b|"
        r"\bpoetry (?:install|add)\b|\bmix (?:deps\.get|igniter\.install)\b|\bbundle install\b|"
        r"\bgo (?:mod (?:download|tidy)|get)\b|\bcargo (?:fetch|add)\b|\bmise install\b|"
        r"\bcomposer install\b|\bbrew install\b")),
    ("test", re.compile(
        r"\b(?:pytest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b|" + _PM +
        r" (?:run )?test\b|\bgo test\b|\bcargo (?:test|nextest)\b|\bmix test\b|"
        r"\bmake (?:test|check)\b|\b(?:mise|just|task) (?:run )?test\b|\bdeno test\b|"
        r"\bpython3? -m (?:pytest|unittest)\b|\bgradlew? test\b|\bmvn test\b")),
    ("lint", re.compile(
        r"\bruff check\b|\b(?:eslint|flake8|pylint|mypy|pyright|golangci-lint|shellcheck|"
        r"sobelow)\b|\bmix (?:credo|dialyzer|deps\.audit|compile --warnings-as-errors)\b|"
        r"\bcargo clippy\b|\bgo vet\b|\btsc --noEmit\b|\bbiome (?:check|lint)\b|" + _PM +
        r" run (?:lint|check|typecheck)\b|\b(?:mise|just|task) (?:run )?lint\b|\bmake lint\b")),
    ("format", re.compile(
        r"\bruff format\b|\b(?:prettier|black|gofmt|goimports|rustfmt)\b|\bcargo fmt\b|"
        r"\bmix format\b|" + _PM + r" run (?:format|fmt)\b|\b(?:mise|just|task) (?:run )?fmt\b|"
        r"\b(?:mise|just|task) (?:run )?format\b|\bmake fmt\b|\bbiome format\b")),
    ("build", re.compile(
        _PM + r" run build\b|\bcargo build\b|\bgo build\b|\bmix compile\b|\bmake(?: build)?$|"
        r"\bgradlew? build\b|\bmvn (?:package|install)\b|\bdocker build\b|\b(?:vite|next) build\b|"
        r"\b(?:mise|just|task) (?:run )?build\b|\buv build\b")),
    ("release", re.compile(
        _PM + r" (?:run )?(?:version|publish|release)\b|\bcargo publish\b|\bgoreleaser\b|"
        r"\b(?:mise|just|task) (?:run )?release\b|\bmake release\b")),
    ("tasks", re.compile(r"\bbd (?:create|ready|show|update|close|dep|list)\b|"
                         r"\bgh (?:issue|pr) create\b")),
    ("run", re.compile(
        r"\bmix phx\.server\b|\biex -S mix\b|" + _PM + r" (?:run )?(?:dev|start|serve)\b|"
        r"\bgo run\b|\bcargo run\b|\bnpx tsx\b|\buv run (?!pytest|ruff|mypy)\S+|"
        r"\bflask run\b|\buvicorn\b|\bdocker compose up\b|\brails s(?:erver)?\b")),
]
LABELS = {"install": "Install", "test": "Test", "lint": "Lint and check", "format": "Format",
          "build": "Build", "run": "Run", "release": "Release", "tasks": "Track tasks"}
_TAIL = re.compile(r"(?:\s*(?:2>&1|>\s*/dev/null|\|\s*(?:head|tail|grep|tee|less|cat)\b.*))+$")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
_TOOLCHAINS = ("uv", "pnpm", "npm", "yarn", "bun", "npx", "mix", "go", "cargo", "mise", "make",
               "poetry", "pip", "bundle", "just", "task", "deno", "gradle", "mvn", "docker",
               "python", "python3", "pytest", "ruff", "iex", "brew", "bd", "gh", "npx")


def purposes(command: str) -> list[tuple[str, str]]:
    """(purpose, the part of the command that has it) for each part of a command that
    installs, builds, tests, lints, formats or runs a project (``uv sync && uv run pytest``
    has two); empty for anything else (``git status``, ``ls``)."""
    out = []
    for part in re.split(r"\s*(?:&&|;|\|\|)\s*", command):
        part = _ENV.sub("", _TAIL.sub("", part.strip()))
        if not part or part.startswith(("cd ", "echo ", "git ", "ls", "cat ")):
            continue
        for name, rx in PURPOSES:
            if rx.search(part):
                out.append((name, part))
                break
    return out


def toolchain(command: str) -> str:
    first = command.split()[0].rsplit("/", 1)[-1] if command.split() else ""
    return first if first in _TOOLCHAINS else ""


def command_key(part: str) -> str:
    """The words of a command that name what it does, without paths, files and flags'
    values: ``go test ./cmd/...`` and ``go test ./...`` are one command."""
    words = []
    for w in part.split():
        if "/" in w or "." in w.strip(".") and not re.match(r"^[a-z]+\.[a-z_]+$", w) or \
                w.startswith(("-", "'", '"', "$")) or re.search(r"\d", w):
            break
        words.append(w)
        if len(words) == 4:
            break
    return " ".join(words) or part.split()[0]


def how_to_work(items: Sequence[SpoolItem]) -> list[Finding]:
    """The commands that install, build, test, lint, format and run the project, learned
    from shell commands whose tool results show they succeeded, each with its toolchain and
    how often and in how many sessions it ran."""
    seen: dict[tuple[str, str], list[tuple[str, CommandRun]]] = {}
    for runs in by_session(items).values():
        for run in runs:
            if run.failed or _FAILED_OUTPUT.search((run.item.text or "")[:2000]):
                continue
            for name, part in purposes(run.command):
                seen.setdefault((name, command_key(part)), []).append((part, run))
    out = []
    for (name, key), said in seen.items():
        forms = [p for p, _ in said]
        example = max(set(forms), key=lambda f: (forms.count(f), -len(f), f))
        if len(example) > 100:
            example = key           # "bd create --title=... --description=...": its name
        sessions = len({r.item.stream for _, r in said})
        tool = toolchain(example)
        fields = {"text": f"{LABELS[name]}: `{example}`", "type": "command",
                  "purpose": name, "toolchain": tool,
                  "said": f"{_n(len(said), 'time')} in {_n(sessions, 'session')}"}
        out.append(Finding("command", fields, [r.item.id for _, r in said][-5:],
                           name=f"command {name} {key}"))
    return out


_FAILED_OUTPUT = re.compile(r"\b(?:FAILED|FAIL:|[1-9]\d* failed|error TS\d+|npm ERR!|"
                            r"npm error|command not found|Traceback \(most recent|panic:)")


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
