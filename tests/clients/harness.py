"""A throw-away machine for one real client session: HOME, a git repository, Dream's home,
``dream`` on PATH (this checkout, as pip or pipx would put it there), the clients' binaries,
and a network that reaches only the local model server."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 240


def snapshot(*roots: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under the roots (``.git`` and the ``skip`` folders left out)."""
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if ".git" in parts or any(p in skip for p in parts):
                continue
            out[str(path)] = path.read_bytes() if path.is_file() else b"<dir>"
    return out


class Machine:
    def __init__(self, root: Path, clients_bin: Path, project: str = "shop") -> None:
        self.root = root
        self.home = root / "home"
        self.repo = root / project
        self.dream_home = root / "dream-home"
        self.bin = root / "bin"
        for folder in (self.home, self.repo, self.bin):
            folder.mkdir(parents=True)
        shim = self.bin / "dream"
        shim.write_text(f"#!/bin/sh\nPYTHONPATH={REPO / 'src'} exec {sys.executable} -m dream "
                        '"$@"\n')
        shim.chmod(0o755)
        self.env = {
            "HOME": str(self.home), "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "PATH": os.pathsep.join([str(self.bin), str(clients_bin), "/usr/local/bin",
                                     "/usr/bin", "/bin"]),
            "DREAM_HOME": str(self.dream_home), "TMPDIR": str(root / "tmp"),
            "GIT_AUTHOR_NAME": "Dream Test", "GIT_AUTHOR_EMAIL": "test@dream.invalid",
            "GIT_COMMITTER_NAME": "Dream Test", "GIT_COMMITTER_EMAIL": "test@dream.invalid",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        }
        (root / "tmp").mkdir()
        self.run("git", "init", "-q", "-b", "main")
        (self.repo / "README.md").write_text(f"# {project}\n")
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "-m", "first")

    def run(self, *cmd: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            input: str | None = None, timeout: float = TIMEOUT, check: bool = True,
            drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in {**self.env, **(env or {})}.items() if k not in drop}
        proc = subprocess.run(list(cmd), cwd=cwd or self.repo, env=full, input=input,
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                                 f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc

    def dream(self, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        return self.run("dream", *args, **kw)

    def dream_json(self, *args: str) -> Any:
        return json.loads(self.dream(*args, "--json").stdout)

    def write_brief(self, text: str) -> Path:
        """Put a brief where the dream run renders it (what a dream would have written)."""
        path = Path(self.dream_json("brief")["path"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def configure(self, text: str) -> None:
        config = self.dream_home / "config.toml"
        config.write_text(config.read_text() + "\n" + text)

    def hook_log(self) -> list[str]:
        path = self.dream_home / "logs" / "hook.log"
        return path.read_text().splitlines() if path.exists() else []

    def items(self, source: str) -> list[dict[str, Any]]:
        conn = sqlite3.connect(self.dream_home / "dream.db")
        conn.row_factory = sqlite3.Row
        try:
            return [dict(r) for r in conn.execute(
                "SELECT role, kind, evidence, text, tool_name FROM items WHERE source=? "
                "ORDER BY seq", (source,))]
        finally:
            conn.close()

    def journal(self, kind: str) -> list[dict[str, Any]]:
        conn = sqlite3.connect(self.dream_home / "dream.db")
        try:
            return [{"key": k, **json.loads(d)} for k, d in conn.execute(
                "SELECT key, data FROM journal WHERE kind=? ORDER BY id", (kind,))]
        finally:
            conn.close()

    def note_commits(self, path: str) -> list[str]:
        """Commits of the notes home that touched ``path`` (a store-relative path)."""
        notes = self.dream_home / "notes"
        proc = self.run("git", "log", "--format=%H %s", "--", path, cwd=notes)
        return proc.stdout.splitlines()


def codex_trust_hooks(m: Machine, marker: str = "dream hook") -> list[str]:
    """Trust Dream's hooks as a person does in Codex's /hooks page, through Codex's own
    app-server (``hooks/list`` gives each hook's key and current hash, ``config/batchWrite``
    records the trust). Returns the keys trusted."""
    proc = subprocess.Popen(["codex", "app-server"], cwd=m.repo, env=m.env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    counter = iter(range(1, 100))

    def request(method: str, params: dict[str, Any]) -> Any:
        rid = next(counter)
        proc.stdin.write(json.dumps({"id": rid, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            reply = json.loads(line)
            if reply.get("id") == rid:
                if "error" in reply:
                    raise AssertionError(f"codex app-server {method}: {reply['error']}")
                return reply["result"]
        raise AssertionError(f"codex app-server closed before answering {method}")

    try:
        request("initialize", {"clientInfo": {"name": "dream-tests", "version": "1"}})
        proc.stdin.write(json.dumps({"method": "initialized"}) + "\n")
        listed = request("hooks/list", {"cwds": [str(m.repo)]})
        hooks = [h for entry in listed["data"] for h in entry["hooks"]
                 if marker in (h.get("command") or "")]
        edits = [{"keyPath": f'hooks.state."{h["key"]}".trusted_hash',
                  "value": h["currentHash"], "mergeStrategy": "upsert"} for h in hooks]
        if edits:
            request("config/batchWrite", {"edits": edits})
        return [h["key"] for h in hooks]
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
