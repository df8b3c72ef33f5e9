"""failures: repeated failures grouped by cause, each with a small proposed correction.

A failing tool result (``is_error=1``) gets a normalised signature
(:func:`dream.passes.signatures.signature`). Failures with one signature form a group; a
group is *repeated*, and becomes a proposal, when it happened at least twice in two
sessions or three times in one. A single failure is not a pattern and is only counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dream.passes.base import Candidate, PassResult, clip, plural, slugify, unique_slugs
from dream.passes.evidence import Evidence, Item
from dream.passes.signatures import cause_line, signature

NAME = "failures"

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
        return sorted({i.tool_name or "tool" for i in self.items})


_GENERIC = re.compile(r"^(?:error: )?(?:command )?(?:exited|exit|failed|aborted|returned)"
                      r"(?: with)?(?: (?:exit )?(?:code|status))?(?: <n>)?$|^command aborted$",
                      re.IGNORECASE)


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


def fix_for(sig: str) -> str:
    for pattern, fix in _FIXES:
        if pattern.search(sig):
            return fix
    return _DEFAULT_FIX


def groups(ev: Evidence) -> list[FailureGroup]:
    """Every failure group, repeated or not, in order of first appearance."""
    command_of: dict[str, str] = {}
    for runs in ev.commands().values():
        for run in runs:
            command_of[run.item.id] = run.command
    found: dict[str, FailureGroup] = {}
    for item in ev.tool_results():
        if not item.is_error:
            continue
        sig = signature(item.text)
        cmd = command_of.get(item.id)
        if not sig:
            continue
        if _GENERIC.search(sig) and cmd:
            # "exited with code 1" says nothing of the cause: the program is part of it
            if program(cmd) in NEGATIVE_ANSWERS:
                continue        # grep found nothing, diff found a difference: an answer
            sig = f"{program(cmd)}: {sig}"
        grp = found.setdefault(sig, FailureGroup(sig))
        grp.items.append(item)
        if cmd and cmd not in grp.commands:
            grp.commands.append(cmd)
    return list(found.values())


def run(ev: Evidence) -> PassResult:
    result = PassResult(NAME)
    all_groups = groups(ev)
    repeated = [g for g in all_groups if g.repeated]
    failing = sum(1 for i in ev.tool_results() if i.is_error)
    missing = []
    if not ev.tool_results():
        missing.append("no tool results in the evidence: failures cannot be grouped")
    elif not failing:
        missing.append("no failing tool results in the evidence")
    for grp in repeated:
        result.candidates.append(_candidate(grp))
    unique_slugs(result.candidates)
    result.journal = {
        "looked_at": {"tool_results": len(ev.tool_results()), "failing": failing},
        "signatures": len(all_groups),
        "repeated_groups": len(repeated),
        "single_failures": sum(len(g.items) for g in all_groups if not g.repeated),
        "groups": [{"signature": g.signature, "count": len(g.items),
                    "sessions": len(g.sessions)} for g in all_groups[:20]],
        "missing": missing,
    }
    return result


def _candidate(grp: FailureGroup) -> Candidate:
    n, s = len(grp.items), len(grp.sessions)
    fix = fix_for(grp.signature)
    where = f" (`{grp.commands[0]}`)" if grp.commands else ""
    example = cause_line(grp.items[-1].text)
    lines = [
        f"Repeated failure{where}: {plural(n, 'time')} in {plural(s, 'session')}.",
        "",
        f"Signature: `{grp.signature}`",
        f"Last seen: `{clip(example, 200)}`",
        f"Tools: {', '.join(grp.tools)}",
    ]
    if grp.commands:
        lines.append("Commands: " + ", ".join(f"`{c}`" for c in grp.commands[:5]))
    lines += ["", f"Proposed correction: {fix}."]
    return Candidate(
        slug=slugify(NAME, grp.signature),
        pass_name=NAME,
        kind="code",
        title=clip(f"Fix repeated failure: {grp.signature}", 120),
        size="S",
        risk="low",
        items=grp.items,
        change={"type": "work_item", "text": "\n".join(lines), "signature": grp.signature,
                "commands": grp.commands, "count": n, "sessions": s, "fix": fix},
        strength=n + 2 * s,
        finding=f"{grp.commands[0] if grp.commands else grp.tools[0]} failed {n}x in "
                f"{plural(s, 'session')}: {grp.signature}",
    )
