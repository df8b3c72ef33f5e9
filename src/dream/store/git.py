"""Git plumbing for stores: commits with trailers, a persistent reader, revert.

Dream commits with the user's git identity when one is configured and with a Dream identity
otherwise, so a fresh machine can still write memory.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from dream.errors import EmptyRepository, GitFailed, UnknownCommit

_SHA_RE = re.compile(r"^[0-9a-fA-F]{4,64}$")
_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "Dream",
    "GIT_AUTHOR_EMAIL": "dream@localhost",
    "GIT_COMMITTER_NAME": "Dream",
    "GIT_COMMITTER_EMAIL": "dream@localhost",
}


def run_git(
    cwd: Path,
    *args: str,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    full_env = dict(os.environ)
    full_env.setdefault("GIT_TERMINAL_PROMPT", "0")
    if env:
        full_env.update(env)
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, input=input, capture_output=True, env=full_env
        )
    except FileNotFoundError as exc:
        raise GitFailed("git is not installed", "install git and try again") from exc
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(
            f"git {args[0]} failed in {cwd}: {err[-1] if err else 'exit ' + str(proc.returncode)}",
            "check the repository with 'git status'",
        )
    return proc


def format_trailers(trailers: Mapping[str, str | Sequence[str]]) -> str:
    lines = []
    for key, value in trailers.items():
        values = [value] if isinstance(value, str) else list(value)
        for v in values:
            clean = str(v).replace("\n", " ").strip()
            if clean:
                lines.append(f"{key}: {clean}")
    return "\n".join(lines)


class Repo:
    """A git repository with a work tree."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._reader: CatFile | None = None
        self._identity: dict[str, str] | None = None

    # -- basics ---------------------------------------------------------------------------
    def git(self, *args: str, input: bytes | None = None, check: bool = True,
            env: Mapping[str, str] | None = None) -> str:
        proc = run_git(self.path, *args, input=input, check=check, env=env)
        return proc.stdout.decode("utf-8", "replace")

    @classmethod
    def init(cls, path: Path) -> "Repo":
        path.mkdir(parents=True, exist_ok=True)
        if not (path / ".git").exists():
            run_git(path, "init", "-q", "-b", "main")
        return cls(path)

    def is_repo(self) -> bool:
        return (self.path / ".git").exists()

    def head(self) -> str | None:
        """The commit HEAD points at, or None in a repository with no commits."""
        proc = run_git(self.path, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        out = proc.stdout.decode().strip()
        return out or None

    def require_head(self) -> str:
        head = self.head()
        if head is None:
            raise EmptyRepository(
                f"the repository {self.path} has no commits",
                "make a first commit (or write a note) and try again",
            )
        return head

    def current_branch(self) -> str:
        return self.git("symbolic-ref", "--short", "-q", "HEAD", check=False).strip() or "HEAD"

    def resolve(self, rev: str) -> str:
        """Resolve a commit-ish to a full sha, or raise UnknownCommit."""
        if not rev or "\x00" in rev or rev.startswith("-"):
            raise UnknownCommit(f"'{rev}' is not a commit", "give a commit sha from 'git log'")
        proc = run_git(self.path, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        sha = proc.stdout.decode().strip()
        if proc.returncode != 0 or not sha:
            raise UnknownCommit(
                f"unknown commit '{rev}' in {self.path}",
                "list commits with 'git -C <store> log --oneline'",
            )
        return sha

    # -- writing --------------------------------------------------------------------------
    def identity_env(self) -> dict[str, str]:
        if self._identity is None:
            name = run_git(self.path, "config", "user.name", check=False).stdout.strip()
            email = run_git(self.path, "config", "user.email", check=False).stdout.strip()
            self._identity = {} if (name and email) else dict(_FALLBACK_IDENTITY)
        return self._identity

    def commit_all(
        self,
        subject: str,
        trailers: Mapping[str, str | Sequence[str]] | None = None,
        body: str = "",
        allow_empty: bool = False,
    ) -> str | None:
        """Stage every change in the work tree and commit it. Returns the sha, or None when
        there was nothing to commit (and ``allow_empty`` is false)."""
        self.git("add", "-A")
        if not allow_empty and self.head() is not None:
            if run_git(self.path, "diff", "--cached", "--quiet", check=False).returncode == 0:
                return None
        message = subject.strip()
        if body:
            message += "\n\n" + body.strip()
        if trailers:
            message += "\n\n" + format_trailers(trailers)
        args = ["commit", "-q", "--no-verify", "-F", "-"]
        if allow_empty:
            args.insert(1, "--allow-empty")
        self.git(*args, input=message.encode("utf-8"), env=self.identity_env())
        return self.require_head()

    def revert(self, sha: str, trailers: Mapping[str, str | Sequence[str]] | None = None) -> str:
        """Revert one commit with ``git revert`` and return the new commit."""
        full = self.resolve(sha)
        parents = self.git("rev-list", "--parents", "-n", "1", full).split()
        args = ["revert", "--no-edit", "--no-commit"]
        if len(parents) > 2:
            args += ["-m", "1"]
        proc = run_git(self.path, *args, full, check=False, env=self.identity_env())
        if proc.returncode != 0:
            run_git(self.path, "revert", "--abort", check=False)
            run_git(self.path, "reset", "-q", "--hard", "HEAD", check=False)
            raise GitFailed(
                f"could not revert {full[:12]}: later commits changed the same lines",
                "revert the later commits first, or edit the notes by hand",
            )
        subject = self.git("log", "-1", "--format=%s", full).strip()
        new = self.commit_all(f'Revert "{subject}"', trailers={"Reverts": full, **(trailers or {})})
        return new or self.require_head()

    # -- reading at a commit ----------------------------------------------------------------
    @property
    def reader(self) -> "CatFile":
        if self._reader is None:
            self._reader = CatFile(self.path)
        return self._reader

    def read_at(self, commit: str, path: str) -> bytes | None:
        return self.reader.read(commit, path)

    def list_files(self, commit: str) -> list[tuple[str, str]]:
        """(path, blob sha) of every file at a commit."""
        out = self.git("ls-tree", "-r", "-z", "--full-tree", commit)
        result = []
        for entry in out.split("\x00"):
            if not entry:
                continue
            meta, path = entry.split("\t", 1)
            _mode, kind, sha = meta.split()
            if kind == "blob":
                result.append((path, sha))
        return result

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


class CatFile:
    """One persistent ``git cat-file --batch`` process: a read is a pipe round trip,
    not a process start."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self.path,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._proc

    def read(self, commit: str, path: str) -> bytes | None:
        """Bytes of ``path`` at ``commit``; None when the path is not in that commit."""
        if "\n" in path or "\n" in commit:
            return None
        with self._lock:
            proc = self._start()
            assert proc.stdin and proc.stdout
            proc.stdin.write(f"{commit}:{path}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().decode().rstrip("\n")
            if header.endswith(" missing") or header.endswith(" ambiguous") or not header:
                return None
            parts = header.split()
            size = int(parts[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the object
            if parts[1] != "blob":
                return None
            return data

    def close(self) -> None:
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except Exception:
                self._proc.kill()
            finally:
                if self._proc.stdout:
                    self._proc.stdout.close()
            self._proc = None

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


def looks_like_sha(text: str) -> bool:
    return bool(_SHA_RE.match(text))
