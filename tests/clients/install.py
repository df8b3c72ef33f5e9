"""Install the real coding agents the client tests drive, from the npm registry.

    python tests/clients/install.py [--latest] [--dir DIR]

The versions are pinned in ``tests/clients/versions.json`` (upgrading one is a deliberate
commit). They go to ``<repo>/.clients/<versions hash>/`` (git-ignored; ``DREAM_CLIENTS_DIR``
moves it), installed once and reused while the pins stay the same; a worktree links to the
install another worktree of the same repository already made. ``--latest`` installs the
newest published versions into ``.clients/latest/`` instead, for a run against them.

Prints one progress line per step. When npm is missing or the registry cannot be reached it
prints one line saying so and exits 0: the client tests then skip with that line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERSIONS = Path(__file__).resolve().parent / "versions.json"
BINARIES = {"@anthropic-ai/claude-code": "claude", "@openai/codex": "codex",
            "@mariozechner/pi-coding-agent": "pi"}
STATUS = "status.json"        # what the last install found, read by the tests


def pinned() -> dict[str, str]:
    return json.loads(VERSIONS.read_text(encoding="utf-8"))


def base_dir() -> Path:
    raw = os.environ.get("DREAM_CLIENTS_DIR")
    return Path(raw).expanduser() if raw else REPO / ".clients"


def target_dir(versions: dict[str, str] | None, latest: bool = False) -> Path:
    if latest:
        return base_dir() / "latest"
    digest = hashlib.sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:12]
    return base_dir() / digest


def npm_env() -> dict[str, str]:
    # no install scripts are needed (the binaries come as platform packages); no audit, no
    # funding messages, no update check
    return {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false",
            "npm_config_audit": "false"}


def latest_versions(timeout: float = 60) -> dict[str, str] | None:
    """The newest published version of each client, or None when the registry is away."""
    out = {}
    for package in BINARIES:
        try:
            proc = subprocess.run(["npm", "view", package, "version"], capture_output=True,
                                  text=True, timeout=timeout, env=npm_env())
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0 or not proc.stdout.strip():
            return None
        out[package] = proc.stdout.strip()
    return out


def read_status(folder: Path) -> dict:
    try:
        return json.loads((folder / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def from_sibling_worktree(folder: Path, versions: dict[str, str]) -> bool:
    """Link ``folder`` to the same install in another worktree of this repository (one
    copy of ~900 MB per machine, not per checkout)."""
    if os.environ.get("DREAM_CLIENTS_DIR") or folder.exists() or folder.is_symlink():
        return False
    try:
        listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=REPO,
                                capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    for line in listed.splitlines():
        if not line.startswith("worktree "):
            continue
        other = Path(line.removeprefix("worktree ")) / ".clients" / folder.name
        if other.resolve() != folder.resolve() and installed(other, versions):
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.symlink_to(other.resolve(), target_is_directory=True)
            return True
    return False


def installed(folder: Path, versions: dict[str, str]) -> bool:
    status = read_status(folder)
    return status.get("ok") is True and status.get("versions") == versions and all(
        (folder / "node_modules" / ".bin" / name).exists() for name in BINARIES.values())


def install(latest: bool = False, log=print) -> dict:
    """Install (or find installed) the clients; returns the status the tests read."""
    if shutil.which("npm") is None:
        status = {"ok": False, "reason": "npm is not installed (install Node.js 20 or later)"}
        log(f"clients: {status['reason']}")
        return status
    versions = latest_versions() if latest else pinned()
    if versions is None:
        status = {"ok": False, "reason": "the npm registry cannot be reached"}
        log(f"clients: {status['reason']}; the real-client tests will skip")
        base_dir().mkdir(parents=True, exist_ok=True)
        (base_dir() / "unreachable.json").write_text(json.dumps(status))
        return status
    folder = target_dir(versions, latest)
    if folder.is_symlink() and not folder.exists():
        folder.unlink()          # linked to a worktree that is gone: install here instead
    if not latest and from_sibling_worktree(folder, versions):
        log(f"clients: using the install of another worktree of this repository ({folder} "
            f"-> {folder.resolve()})")
    if installed(folder, versions):
        log(f"clients: {', '.join(f'{p}@{v}' for p, v in versions.items())} already in "
            f"{folder}")
        return read_status(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"name": "dream-test-clients", "private": true}\n')
    specs = [f"{p}@{v}" for p, v in versions.items()]
    log(f"clients: installing {' '.join(specs)} into {folder} (about 900 MB, once)")
    proc = subprocess.run(["npm", "install", "--no-save", "--loglevel=error", *specs],
                          cwd=folder, capture_output=True, text=True, timeout=1800,
                          env=npm_env())
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["npm install failed"])[-1]
        unreachable = any(code in proc.stderr for code in ("ENOTFOUND", "EAI_AGAIN",
                                                           "ECONNREFUSED", "ETIMEDOUT"))
        status = {"ok": False, "reason": ("the npm registry cannot be reached: " if unreachable
                                          else "npm install failed: ") + reason}
        log(f"clients: {status['reason']}")
        (folder / STATUS).write_text(json.dumps(status))
        return status
    status = {"ok": True, "versions": versions, "dir": str(folder),
              "bin": str(folder / "node_modules" / ".bin")}
    (folder / STATUS).write_text(json.dumps(status, indent=2))
    log(f"clients: installed in {folder}")
    return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latest", action="store_true",
                        help="Install the newest npm versions instead of the pinned ones.")
    args = parser.parse_args()
    status = install(latest=args.latest, log=lambda line: print(line, flush=True))
    if status.get("ok"):
        print(json.dumps(status["versions"]))
    sys.exit(0)


if __name__ == "__main__":
    main()
