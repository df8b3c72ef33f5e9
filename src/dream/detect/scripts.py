"""The scripts a project declares: the ``npm run`` scripts of the project's own
``package.json`` when a tool result shows it, run with the package manager the sessions
used. The dream run shows them as how to work here when no command that ran says it
(:func:`dream.detect.howto.how_to_work`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect import commands
from dream.detect.commands import by_session
from dream.detect.finding import Finding
from dream.items import Item

_SCRIPTS_BLOCK = re.compile(r'"scripts"\s*:\s*\{(?P<body>[^{}]*)\}?', re.S)
_SCRIPT = re.compile(r'"(?P<name>[\w:.@/-]+)"\s*:\s*"(?P<value>(?:[^"\\]|\\.)*)"')
_READS_MANIFEST = re.compile(r"(?<![\w/.-])(?:\./)?package\.json\b")
MAX_SCRIPTS = 6


def declared(items: Sequence[Item]) -> list[Finding]:
    """The scripts the project's own ``package.json`` declares, when a tool result shows it
    (the agent read the file at the root of the project, not one under ``node_modules``):
    one finding naming up to six ``npm run`` scripts with what each runs."""
    calls: dict[str, list[str]] = {}        # recent tool calls per session (parallel calls
    found: dict[str, tuple[str, Item]] = {}    # answer in any order)
    for item in items:
        if not item.evidence and item.tool_name:
            calls.setdefault(item.stream, []).append(item.text or "")
            calls[item.stream] = calls[item.stream][-8:]
            continue
        if not (item.evidence and item.kind == "tool_result"):
            continue
        if not any(_READS_MANIFEST.search(c) and "node_modules" not in c and not re.search(
                r"\b(?:packages|apps|libs)/", c) for c in calls.get(item.stream, [])):
            continue
        block = _SCRIPTS_BLOCK.search(item.text or "")
        if block:
            for m in _SCRIPT.finditer(block["body"]):
                found.setdefault(m["name"], (m["value"], item))
    if not found:
        return []
    runner = _package_manager(items)
    order = {"dev": 0, "start": 1, "build": 2, "test": 3, "lint": 4, "check": 5, "format": 6}
    names = sorted(found, key=lambda n: (order.get(n, 9), list(found).index(n)))[:MAX_SCRIPTS]
    shown: list[str] = []
    for name in names:
        value = found[name][0]
        one = f"`{runner} run {name}` ({value})" if len(value) <= 40 else \
            f"`{runner} run {name}`"
        if len(", ".join([*shown, one])) > 170:
            break
        shown.append(one)
    evidence = list(dict.fromkeys(found[n][1].id for n in names))
    fields = {"text": "Scripts in package.json: " + ", ".join(shown), "type": "command",
              "purpose": "scripts", "toolchain": runner}
    return [Finding("command", fields, evidence[:5], name="command scripts package json")]


def _package_manager(items: Sequence[Item]) -> str:
    """The JavaScript package manager the sessions ran with success (``pnpm test``), the one
    that runs the declared scripts; npm when none did."""
    ran = [commands.program(r.command) for runs in by_session(items).values() for r in runs
           if not r.failed]
    used = [p for p in ran if p in ("pnpm", "yarn", "bun", "npm")]
    return max(used, key=lambda p: (used.count(p), p != "npm")) if used else "npm"
