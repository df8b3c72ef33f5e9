"""Bundled sample sessions and the ``dream demo`` that dreams over them.

``claude_code/`` holds two small coding-agent sessions in the Claude Code JSONL shape (their
``cwd`` is the placeholder ``{PROJECT}``, replaced by the demo's project folder), and
``messages/personal.jsonl`` a week of personal messages in the generic JSONL chat format.
They are written for the demo, not copied from anyone's data.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dream.app import App
from dream.home import Home
from dream.store.git import run_git

SAMPLES = Path(__file__).parent
_IDENTITY = {"GIT_AUTHOR_NAME": "Dream Demo", "GIT_AUTHOR_EMAIL": "demo@dream.invalid",
             "GIT_COMMITTER_NAME": "Dream Demo", "GIT_COMMITTER_EMAIL": "demo@dream.invalid"}


def stage_samples(target: Path, project: Path) -> dict[str, Path]:
    """Copy the samples into ``target`` with the coding sessions pointed at ``project``."""
    target.mkdir(parents=True, exist_ok=True)
    sessions = target / "claude_code"
    sessions.mkdir(exist_ok=True)
    quoted = json.dumps(str(project))[1:-1]
    for src in sorted((SAMPLES / "claude_code").glob("*.jsonl")):
        text = src.read_text(encoding="utf-8").replace("{PROJECT}", quoted)
        (sessions / src.name).write_text(text, encoding="utf-8")
    messages = target / "personal.jsonl"
    shutil.copy(SAMPLES / "messages" / "personal.jsonl", messages)
    return {"claude_code": sessions, "jsonl": messages}


DEMO_MARK = ".dream-demo"
DEMO_PARTS = ("home", "shop-api", "inbox")


def _prepare_root(root: Path) -> bool:
    """Make ``root`` ready for a demo; True when a previous demo there was removed first.

    A folder holding an earlier demo (its ``.dream-demo`` mark) is started over: only the
    demo's own parts are removed. Any other non-empty folder is refused, so a typo never
    deletes someone's files."""
    from dream.errors import BadInput

    if root.exists() and not root.is_dir():
        raise BadInput(f"{root} is not a folder", "give 'dream demo --home' a folder")
    restarted = (root / DEMO_MARK).exists()
    if restarted:
        for part in DEMO_PARTS:
            shutil.rmtree(root / part, ignore_errors=True)
    elif root.exists() and any(root.iterdir()):
        raise BadInput(f"{root} is not empty and holds no earlier demo",
                       "give 'dream demo --home' an empty or new folder")
    root.mkdir(parents=True, exist_ok=True)
    (root / DEMO_MARK).write_text("made by 'dream demo'; rerunning it starts over here\n")
    return restarted


def make_project(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    run_git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# shop-api\n\nA demo project for Dream.\n")
    run_git(path, "add", "README.md")
    run_git(path, "commit", "-q", "-m", "first", env=_IDENTITY)
    return path


def run_demo(home: Path | None, brief_tokens: int, echo: Callable[[str], None],
             fmt_header: str, fmt_run: Callable[[Any], str]) -> Any:
    from dream import runs
    from dream.pipeline.run import RunOptions, run_dream
    from dream.pipeline.state import Scope
    from dream.spool.collect import collect

    keep = home is not None
    root = Path(home).expanduser().resolve() if home else Path(tempfile.mkdtemp(
        prefix="dream-demo-"))
    restarted = _prepare_root(root)
    app = App(Home(root / "home"), cwd=make_project(root / "shop-api"))
    try:
        store = app.ensure_home()
        project = app.project()
        store.add_project(project.key, project.name, primary=True)
        store.save(subject=f"Manage project {project.name}")
        if restarted:
            echo(f"Starting over: removed the previous demo in {root}")
        echo(f"Dream demo in {root} (a throw-away DREAM_HOME; yours is not touched)")
        echo(f"project {project.name} ({project.key}) -> store at {store.path}")
        echo("")
        paths = stage_samples(root / "inbox", project.root)
        total = 0
        for kind, path in paths.items():
            report = collect(app, [path], kind)
            total += report.new_items
            echo(f"collected {report.new_items:>3} items from {kind} samples "
                 f"({report.evidence} are evidence)")
        echo("")
        scopes = [Scope(store, f"projects/{project.name}", project.key, project.name),
                  Scope(store, "user", None, "user")]
        opts = RunOptions(model="rules", brief_tokens=brief_tokens, mode="ondemand")
        rows = run_dream(app.db, app.home.notes_path, scopes, opts, project.key)
        r = rows[-1]
        echo(f"dream run {r.id}: {r.status}, {r.items} items in {r.bundles} "
             f"bundles, {r.calls} rules calls, commit {(r.commit or '-')[:12]} on "
             f"{r.branch}")
        echo("")
        echo("What happened: the items were grouped by person and thread (the dinner's SMS,")
        echo("group-chat line and email form one bundle), the offline rules provider proposed")
        echo("typed, keyed changes citing their evidence, code applied them with per-field")
        echo("provenance in one git commit, and a brief was rendered per scope. The assistant's")
        echo("wrong answer about the lunch is not evidence; the user's correction is.")
        for scope in scopes:
            brief = store.path / scope.root / "brief.md"
            if brief.exists():
                echo("")
                echo(f"---- {scope.root}/brief.md " + "-" * 40)
                echo(brief.read_text(encoding="utf-8").rstrip())
        echo("")
        echo("---- dream runs " + "-" * 50)
        echo(fmt_header)
        for row in runs.recent(app.db):
            echo(fmt_run(row.as_dict()))
        echo("")
        if keep:
            echo(f"Look around: git -C {store.path} show --stat HEAD; "
                 f"DREAM_HOME={app.home.root} dream runs show {r.id}")
        else:
            echo("The demo home was temporary and is removed now; "
                 "keep it with 'dream demo --home DIR'.")
        return r
    finally:
        app.close()
        store_repo = app.__dict__.get("stores")
        del store_repo
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
