"""Planted agent sessions for the review tests, written as real Claude Code transcripts
(one JSON record a line: user records with typed text or tool_result blocks, assistant
records with tool_use blocks), so they go through ``dream collect`` like any session.

What is planted (``plant(folder, cwd)``):

- **a failing test command in three sessions** (s1, s2, s3): ``pytest -q tests/test_api.py``
  fails with ``ModuleNotFoundError: No module named 'requests'``, each time from another
  checkout path and line number;
- **a user correcting the same habit twice** (s1 and s3): don't debug with print, use logging;
- **the same five shell commands in order in four sessions** (s1..s4);
- **an explicit request to remember** (s2) and a **newer preference that contradicts a
  note** (s4: use pnpm, not npm);
- a **clean session** (``clean``) where nothing repeats: a question, two successful
  commands and a thank-you.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

FIVE_STEPS = ["git pull --rebase", "make deps", "make build", "make test", "make lint"]
FAILING = "pytest -q tests/test_api.py"
CORRECTIONS = {
    "s1": "no, don't use print statements for debugging, use the logging module",
    "s3": "I said don't use print statements for debugging. Use the logging module instead.",
}
REMEMBER = "Remember that the staging database listens on port 5433."
PREFERENCE = "From now on use pnpm, not npm, to install packages."


class Session:
    def __init__(self, session_id: str, cwd: str, day: int) -> None:
        self.id = session_id
        self.cwd = cwd
        self.day = day
        self.minute = 0
        self.records: list[dict] = []
        self.parent: str | None = None

    def _base(self, kind: str) -> dict:
        self.minute += 1
        rec = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.id, "version": "2.1.39", "gitBranch": "main",
            "type": kind, "uuid": str(uuid.uuid4()),
            "timestamp": f"2026-11-{self.day:02d}T10:{self.minute:02d}:00.000Z",
        }
        self.parent = rec["uuid"]
        return rec

    def user(self, text: str) -> "Session":
        rec = self._base("user")
        rec["message"] = {"role": "user", "content": text}
        self.records.append(rec)
        return self

    def bash(self, command: str, output: str, is_error: bool = False) -> "Session":
        tool_id = "toolu_" + uuid.uuid4().hex[:20]
        call = self._base("assistant")
        call["message"] = {"model": "claude-opus-4-6", "role": "assistant", "type": "message",
                           "content": [{"type": "tool_use", "id": tool_id, "name": "Bash",
                                        "input": {"command": command}}]}
        self.records.append(call)
        result = self._base("user")
        result["message"] = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": output,
             "is_error": is_error}]}
        self.records.append(result)
        return self

    def say(self, text: str) -> "Session":
        rec = self._base("assistant")
        rec["message"] = {"model": "claude-opus-4-6", "role": "assistant", "type": "message",
                          "content": [{"type": "text", "text": text}]}
        self.records.append(rec)
        return self

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.id}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return path


def _pytest_failure(checkout: str, line: int) -> str:
    return (
        "============================= test session starts ==============================\n"
        f"collected 0 items / 1 error\n\nERROR collecting tests/test_api.py\n"
        f"ImportError while importing test module '{checkout}/tests/test_api.py'.\n"
        "Traceback:\n"
        f"{checkout}/tests/test_api.py:{line}: in <module>\n    import requests\n"
        "E   ModuleNotFoundError: No module named 'requests'\n"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_api.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection "
        f"!!!!!!!!!!!!!!!!!!!!\n1 error in 0.{line}s"
    )


def _five_steps(s: Session, n: int) -> None:
    outputs = [f"Updating a1b2c3{n}..d4e5f6{n}\nFast-forward", "deps ok", f"built {n} targets",
               f"{10 + n} passed in 1.{n}s", "lint ok"]
    for cmd, out in zip(FIVE_STEPS, outputs):
        s.bash(cmd, out)


def sessions(cwd: str) -> dict[str, Session]:
    out: dict[str, Session] = {}
    s1 = Session("s1-" + uuid.uuid4().hex[:8], cwd, 2)
    s1.user("run the api tests please")
    s1.bash(FAILING, _pytest_failure(f"/home/dev/w1/{Path(cwd).name}", 3), is_error=True)
    s1.say("The tests fail because requests is missing. I added a print to debug.")
    s1.user(CORRECTIONS["s1"])
    _five_steps(s1, 1)
    out["s1"] = s1

    s2 = Session("s2-" + uuid.uuid4().hex[:8], cwd, 3)
    s2.user("let's look at the failing api test again")
    s2.bash(FAILING, _pytest_failure(f"/tmp/tmpx81kq/{Path(cwd).name}", 7), is_error=True)
    s2.user(REMEMBER)
    _five_steps(s2, 2)
    out["s2"] = s2

    s3 = Session("s3-" + uuid.uuid4().hex[:8], cwd, 4)
    s3.user("try the tests once more")
    s3.bash(FAILING, _pytest_failure(f"/home/dev/w3/{Path(cwd).name}", 12), is_error=True)
    s3.say("I will add print() calls to see what happens.")
    s3.user(CORRECTIONS["s3"])
    _five_steps(s3, 3)
    out["s3"] = s3

    s4 = Session("s4-" + uuid.uuid4().hex[:8], cwd, 5)
    s4.user("ship the release")
    _five_steps(s4, 4)
    s4.user(PREFERENCE)
    out["s4"] = s4

    clean = Session("clean-" + uuid.uuid4().hex[:8], cwd, 6)
    clean.user("what does the config loader do?")
    clean.bash("ls src", "app.py\nconfig.py")
    clean.bash("cat src/config.py", "def load():\n    return {}")
    clean.say("It returns an empty dict.")
    clean.user("thanks, that helps")
    out["clean"] = clean
    return out


def plant(folder: Path, cwd: str, only: list[str] | None = None) -> dict[str, Path]:
    """Write the planted sessions (or ``only`` some of them) under ``folder``."""
    return {name: s.write(folder) for name, s in sessions(cwd).items()
            if only is None or name in only}
