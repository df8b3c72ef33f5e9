"""Who holds a lock, and the store write lock every writer takes.

**Holders.** Every lock Dream writes records its holder: pid, host, the process's start
time (so a reused pid is not mistaken for the holder) and its command line.
:func:`holder_state` tells a lock whose process is alive on this host (``alive``: in use,
never to be taken over) from one whose process is gone (``dead``: stale, cleared by the
command the error names) and from one held on another host (``unknown``).

**The store write lock.** Every change to a store (a note written, a run applied, a review
accepted, a run promoted, a revert) happens inside :func:`write_lock` on that store:
``fcntl.flock`` on ``<store>/.git/dream-write.lock``, so it serialises processes and is
released by the kernel when the holder dies (a write lock is never stale). A writer waits up
to :data:`WAIT_SECONDS` (``DREAM_LOCK_WAIT`` overrides it) and then fails with one line
naming the holder. Inside one process the lock is re-entrant per thread, and other threads
wait as other processes do. Writers re-read what they act on once they hold it.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream.errors import LockHeld

LOCK_PREFIX = ".dream.lock."     # dream locks: <notes home>/.dream.lock.<project name>
CLI_OWNER = "cli"                # a dream begun from the command line outlives its process
WAIT_SECONDS = 30.0
WRITE_LOCK = "dream-write.lock"


# -- holders ------------------------------------------------------------------------------------
def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), or None."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


_IDENTITY: dict[int, dict[str, Any]] = {}
_COMMAND: dict[tuple[str, ...], str] = {}


def _identity() -> dict[str, Any]:
    """pid, host and process start of this process: read once per process (a forked child
    reads its own), since every write lock records them."""
    pid = os.getpid()
    found = _IDENTITY.get(pid)
    if found is None:
        found = {"pid": pid, "host": socket.gethostname()}
        ticks, boot = _start_ticks(pid), _boot_id()
        if ticks and boot:
            found["proc_start"] = f"{boot}:{ticks}"
        _IDENTITY.clear()
        _IDENTITY[pid] = found
    return found


def _command() -> str:
    argv = tuple(sys.argv)
    found = _COMMAND.get(argv)
    if found is None:
        prog = Path(argv[0]).name if argv and argv[0] else "python"
        if prog in ("__main__.py", "dream"):
            prog = "dream"
        found = shlex.join([prog, *argv[1:]])[:300]
        _COMMAND.clear()
        _COMMAND[argv] = found
    return found


def holder(**extra: Any) -> dict[str, Any]:
    """This process as a lock holder."""
    ident = _identity()
    info = {"pid": ident["pid"], "host": ident["host"],
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "command": _command()}
    if "proc_start" in ident:
        info["proc_start"] = ident["proc_start"]
    info.update(extra)
    return info


def holder_state(info: dict[str, Any]) -> str:
    """``alive`` (its process runs on this host), ``dead`` (it does not) or ``unknown``
    (another host, or a lock that names no process)."""
    pid, host = info.get("pid"), info.get("host")
    if not isinstance(pid, int) or pid <= 0 or host != socket.gethostname():
        return "unknown"
    recorded = info.get("proc_start")
    if recorded and _boot_id():
        ticks = _start_ticks(pid)
        return "alive" if ticks and recorded == f"{_boot_id()}:{ticks}" else "dead"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "dead"
    except PermissionError:
        return "alive"
    return "alive"


def describe(info: dict[str, Any]) -> str:
    """'pid 123 on host, since T: dream run' (what is known of the holder)."""
    if not info:
        return "an unknown process"
    parts = []
    if "pid" in info:
        parts.append(f"pid {info['pid']}" + (f" on {info['host']}" if info.get("host") else ""))
    if info.get("time"):
        parts.append(f"since {info['time']}")
    text = ", ".join(parts) or "an unknown process"
    if info.get("command"):
        text += f": {info['command']}"
    elif info.get("owner"):
        text += f": {info['owner']}"
    return text


# -- dream locks (taken by dream.notes.dreaming; read here, cheaply) ------------------------
def read_lock(path: Path) -> dict[str, Any] | None:
    """The lock's content, or None when there is no lock. Unreadable content comes back
    as ``{"raw": ...}`` (a lock is a lock whatever it says)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return {"raw": "(a folder, not a lock file)"}
    try:
        data = json.loads(raw.decode("utf-8"))
        return data if isinstance(data, dict) else {"raw": str(data)}
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {"raw": raw.decode("utf-8", "replace")[:200]}


def clear_command(*paths: Path) -> str:
    """The shell command that clears the locks left at ``paths`` (a folder there: rmdir),
    one ``rm`` for the files and one ``rmdir`` for the folders."""
    folders = [p for p in paths if Path(p).is_dir()]
    files = [p for p in paths if p not in folders]
    return " && ".join(f"{verb} " + " ".join(f'"{p}"' for p in group)
                       for verb, group in (("rm", files), ("rmdir", folders)) if group)


def lock_state(info: dict[str, Any]) -> str:
    """``open`` (a dream begun from the command line: it outlives its process and ends
    with ``dream end``), ``in use`` (its process is alive on this host), ``stale`` (it is
    gone) or ``unknown`` (held on another host, or written by an older Dream)."""
    if info.get("owner") == CLI_OWNER:
        return "open"
    return {"alive": "in use", "dead": "stale"}.get(holder_state(info), "unknown")


def held_locks(notes_path: Path) -> list[Path]:
    return sorted(Path(notes_path).glob(f"{LOCK_PREFIX}*"))


# -- the store write lock -------------------------------------------------------------------------
class _Held:
    def __init__(self) -> None:
        self.mutex = threading.RLock()
        self.depth = 0
        self.fd: int | None = None
        self.path: Path | None = None   # the lock file, once known to be under .git


_HELD: dict[str, _Held] = {}
_HELD_GUARD = threading.Lock()
_KEYS: dict[str, str] = {}


def _held(store_path: Path) -> _Held:
    """The in-process state of a store's lock, keyed by the store's resolved path (the
    resolution is remembered per spelling of the path: a writer of many notes resolves
    it once)."""
    given = os.fspath(store_path)
    with _HELD_GUARD:
        key = _KEYS.get(given)
        if key is None:
            key = str(Path(given).resolve())
            if os.path.isabs(given):
                _KEYS[given] = key
        return _HELD.setdefault(key, _Held())


def lock_file(store_path: Path) -> Path:
    git = Path(store_path) / ".git"
    return (git if git.is_dir() else Path(store_path) / ".dream") / WRITE_LOCK


def read_holder(store_path: Path) -> dict[str, Any]:
    try:
        data = json.loads(lock_file(store_path).read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _wait_seconds(wait: float | None) -> float:
    if wait is not None:
        return wait
    try:
        return float(os.environ.get("DREAM_LOCK_WAIT", WAIT_SECONDS))
    except ValueError:
        return WAIT_SECONDS


def _refusal(store_path: Path, what: str, waited: float) -> LockHeld:
    info = read_holder(store_path)
    return LockHeld(f"store {store_path} is being written by {describe(info)}; "
                    f"{what} waited {waited:.0f}s for it",
                    "try again when that command has finished")


@contextmanager
def write_lock(store_path: Path, what: str = "a write", wait: float | None = None
               ) -> Iterator[None]:
    """Hold the store's write lock for the block (see the module docstring)."""
    held = _held(store_path)
    budget = _wait_seconds(wait)
    deadline = time.monotonic() + budget
    if not held.mutex.acquire(timeout=max(budget, 0.001)):
        raise _refusal(Path(store_path), what, budget)
    try:
        if held.depth == 0:
            path = held.path or lock_file(Path(store_path))
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except FileNotFoundError:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            if held.path is None and path.parent.name == ".git":
                held.path = path    # a git store's lock stays where it is
            try:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise _refusal(Path(store_path), what, budget) from None
                        time.sleep(0.02)
                os.ftruncate(fd, 0)
                os.pwrite(fd, (json.dumps(holder(what=what)) + "\n").encode(), 0)
            except BaseException:
                os.close(fd)
                raise
            held.fd = fd
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0 and held.fd is not None:
                fd, held.fd = held.fd, None
                try:
                    os.ftruncate(fd, 0)
                finally:
                    os.close(fd)        # closing the descriptor releases the flock
    finally:
        held.mutex.release()


@contextmanager
def write_locks(paths: list[Path], what: str = "a write") -> Iterator[None]:
    """Several stores' write locks, always taken in the same order (no deadlock)."""
    ordered = sorted({str(Path(p).resolve()): Path(p) for p in paths}.items())
    if not ordered:
        yield
        return
    (_, first), rest = ordered[0], [p for _, p in ordered[1:]]
    with write_lock(first, what), write_locks(rest, what):
        yield
