"""One commit per run, built with git plumbing on a run branch, no checkout needed.

Blobs are written with ``git hash-object -w --stdin-paths``, staged into a temporary index
(``GIT_INDEX_FILE``) seeded from the base commit, turned into a tree and a commit with
``commit-tree``, and only then does ``update-ref`` move ``refs/heads/dream/run/<id>``
(compare-and-swap against "no branch yet"). A run killed before that last step leaves every
ref where it was; loose objects it wrote are garbage git collects later.

Set ``DREAM_TEST_KILL_AT=apply`` to make the process SIGKILL itself after the blobs and
tree are written and before any ref moves (used by the crash test).
"""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

from dream.errors import GitFailed
from dream.secrets import redact
from dream.store.git import Repo, format_trailers

KILL_ENV = "DREAM_TEST_KILL_AT"
ZERO = "0" * 40


def kill_point(name: str) -> None:
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def run_branch(run_id: str) -> str:
    return f"dream/run/{run_id}"


def build_commit(repo: Repo, base: str | None, files: dict[str, bytes | None], subject: str,
                 trailers: dict, body: str = "") -> str | None:
    """Write ``files`` (path -> bytes, None deletes) on top of ``base``; return the new
    commit sha, or None when the tree would not change."""
    with tempfile.TemporaryDirectory(prefix="dream-commit-") as tmp:
        index = str(Path(tmp) / "index")
        env = {"GIT_INDEX_FILE": index}
        if base:
            repo.git("read-tree", base, env=env)
        else:
            repo.git("read-tree", "--empty", env=env)
        writes = sorted((p, d) for p, d in files.items() if d is not None)
        deletes = sorted(p for p, d in files.items() if d is None)
        lines: list[str] = []
        if writes:
            paths = []
            for n, (_path, data) in enumerate(writes):
                blob_path = Path(tmp) / f"b{n}"
                # defence in depth: no blob of a run holds a secret, whatever made it
                blob_path.write_bytes(redact(data.decode("utf-8", "surrogateescape"))[0]
                                      .encode("utf-8", "surrogateescape"))
                paths.append(str(blob_path))
            out = repo.git("hash-object", "-w", "--no-filters", "--stdin-paths",
                           input=("\n".join(paths) + "\n").encode()).split()
            if len(out) != len(writes):
                raise GitFailed("git hash-object returned the wrong number of objects",
                                "check the store with 'git fsck'")
            lines += [f"100644 {sha}\t{path}" for (path, _), sha in zip(writes, out, strict=True)]
        lines += [f"0 {ZERO}\t{path}" for path in deletes]
        if lines:
            repo.git("update-index", "--index-info", input=("\n".join(lines) + "\n").encode(),
                     env=env)
        tree = repo.git("write-tree", env=env).strip()
    if base and repo.git("rev-parse", f"{base}^{{tree}}").strip() == tree:
        return None
    message = subject.strip() + ("\n\n" + body.strip() if body.strip() else "")
    message += "\n\n" + format_trailers(trailers) + "\n"
    args = ["commit-tree", tree]
    if base:
        args += ["-p", base]
    commit = repo.git(*args, input=message.encode("utf-8"),
                      env=repo.identity_env()).strip()
    kill_point("apply")
    return commit


def set_branch(repo: Repo, branch: str, commit: str) -> None:
    """Create the run branch (fails if it exists with another commit)."""
    old = repo.git("rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).strip()
    repo.git("update-ref", f"refs/heads/{branch}", commit, old or ZERO)


def promote(repo: Repo, commit: str, base: str | None) -> bool:
    """Fast-forward the store's current branch (and work tree) to ``commit``. False when
    the branch moved since ``base`` (the caller rebuilds on the new head)."""
    head = repo.head()
    if head != base:
        return False
    repo.check_index_lock()
    # check=True: a merge that fails for another reason (a file in the way, a lock taken
    # meanwhile) says so instead of passing for "the store moved"
    repo.git("merge", "--ff-only", "-q", commit, env=repo.identity_env())
    return repo.head() == commit


def diff_stat(repo: Repo, base: str | None, commit: str) -> str:
    if not base:
        return repo.git("show", "--stat", "--format=", commit).strip("\n")
    return repo.git("diff", "--stat", base, commit).strip("\n")
