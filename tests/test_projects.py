"""Projects users can steer: transcripts recorded on another machine land in the
repository they belong to, collect says what it could not place, 'dream projects' lists
keys with folders and counts, and items move between projects without a wipe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FOREIGN = "/home/dev/webapp"        # another machine's folder: missing here


def transcript(path: Path, cwd: str, session: str = "s1") -> Path:
    """A real-format Claude Code session recorded in ``cwd``: a meta line and statements
    a review can read (a preference, a command that fails, then the fix)."""
    lines = [
        {"type": "system", "content": "<system-reminder>context</system-reminder>",
         "isMeta": True},
        {"type": "user", "message": {"role": "user", "content":
            "Always run the tests with pytest -q before committing, we prefer that."}},
        {"type": "user", "message": {"role": "user", "content":
            "Never push to main directly; we use pull requests in this project."}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Understood, I will use pull requests."}]}},
        {"type": "user", "message": {"role": "user", "content":
            "Remember that the webapp deploys with make deploy from the ops folder."}},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for n, line in enumerate(lines):
            fh.write(json.dumps({**line, "uuid": f"u{n}", "sessionId": session, "cwd": cwd,
                                 "timestamp": f"2026-11-20T10:0{n}:00.000Z"}) + "\n")
    return path


@pytest.fixture
def webapp(make_repo, monkeypatch, dream):
    repo = make_repo("webapp")
    monkeypatch.chdir(repo)
    dream("init")
    return repo


def here_key() -> str:
    from dream.store.project import identify

    return identify(Path.cwd()).key


def spool(dream_home: Path) -> dict[str | None, int]:
    import sqlite3

    conn = sqlite3.connect(dream_home / "dream.db")
    try:
        return dict(conn.execute("SELECT project_key, count(*) FROM items"
                                 " GROUP BY project_key").fetchall())
    finally:
        conn.close()


def test_foreign_folder_named_like_this_repository_is_placed_here(webapp, dream, tmp_path,
                                                                   dream_home):
    file = transcript(tmp_path / "copied" / "s1.jsonl", FOREIGN)
    out = dream("collect", str(file)).output
    assert f"recorded in {FOREIGN} (not on this machine) in this repository's project" in out
    assert set(spool(dream_home)) == {here_key()}
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["items"] > 0 and review["run"]["project_key"] == here_key()


def test_issue_scenario_items_under_a_foreign_key_move_here_without_a_wipe(
        make_repo, monkeypatch, dream, tmp_path, dream_home):
    # collected outside the repository first: the folder cannot be placed, collect says so
    file = transcript(tmp_path / "copied" / "s1.jsonl", FOREIGN)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.chdir(outside)
    dream("init")
    out = dream("collect", str(file)).output
    assert f"could not place items recorded in folders missing on this machine: {FOREIGN}" \
        in out and "--project" in out
    foreign = next(k for k in spool(dream_home) if k and k.startswith("webapp-"))

    repo = make_repo("webapp")
    monkeypatch.chdir(repo)
    dream("init")
    # a run and a review here take nothing, and say where the items went (meta not counted)
    run_out = dream("run").output
    assert "nothing new in the spool since the last run" not in run_out
    pending = spool(dream_home)[foreign] - 1            # the meta line is never claimable
    assert f"belong to other projects: {foreign} ({pending})" in run_out
    assert "dream projects move" in run_out
    review_out = dream("review", "start").output
    assert f"{foreign} ({pending})" in review_out
    # collecting again adds nothing: the items are already there
    assert "0 new items" in dream("collect", str(file)).output
    # 'dream projects' lists the key with its folder and counts
    listed = json.loads(dream("projects", "--json").output)
    row = next(r for r in listed if r["key"] == foreign)
    assert row["folders"] == [FOREIGN] and row["items"] == pending + 1
    assert row["pending"] == pending and row["stores"] == []
    # move them here, by name and key; nothing is wiped
    moved = json.loads(dream("projects", "move", foreign, "webapp", "--json").output)
    assert moved == {"from": foreign, "to": here_key(), "moved": pending + 1}
    assert spool(dream_home) == {here_key(): pending + 1}
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["items"] == pending + 1 and review["run"]["project_key"] == here_key()
    listed = json.loads(dream("projects", "--json").output)
    assert [r["folders"] for r in listed if r["key"] == here_key()] == [[FOREIGN]]


def test_collect_project_places_files_and_re_keys_what_was_collected(
        webapp, dream, tmp_path, dream_home):
    other = transcript(tmp_path / "copied" / "s2.jsonl", "/srv/somewhere/api", "s2")
    out = dream("collect", str(other)).output
    assert "could not place" in out and "/srv/somewhere/api" in out
    # naming the project moves what was collected before from the same files
    out = dream("collect", "--project", "webapp", str(other)).output
    assert "0 new items" in out and "moved 5 items collected before" in out
    assert spool(dream_home) == {here_key(): 5}
    # an unknown project is a one-line error listing the known ones
    bad = dream("collect", "--project", "nope", str(other), ok=False)
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1
    assert "known: webapp" in bad.output


def test_a_run_without_any_earlier_run_does_not_say_since_the_last_run(webapp, dream):
    out = dream("run").output
    assert "since the last run" not in out and "collect first" in out
    again = dream("run").output
    assert "nothing new in the spool since the last run" in again


def test_source_spellings_match_install(webapp, dream, tmp_path, dream_home):
    file = transcript(tmp_path / "copied" / "s1.jsonl", str(webapp))
    one = json.loads(dream("collect", "--source", "claude-code", str(file), "--json").output)
    two = json.loads(dream("collect", "--source", "claude_code", str(file), "--json").output)
    assert one["new_items"] == 5 and two["files_unchanged"] == 1
    plan = json.loads(dream("install", "claude_code", "--dry-run", "--json").output)
    assert plan["agent"] == "claude-code"


def test_collect_without_paths_finds_sessions_copied_from_another_machine(
        webapp, dream, tmp_path, monkeypatch, dream_home):
    claude = tmp_path / "claude-projects"
    transcript(claude / "-home-dev-webapp" / "s1.jsonl", FOREIGN)
    transcript(claude / "-home-dev-other" / "s9.jsonl", "/home/dev/other", "s9")
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(claude))
    monkeypatch.setenv("DREAM_PI_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("DREAM_CODEX_DIR", str(tmp_path / "none"))
    out = json.loads(dream("collect", "--json").output)
    assert out["files"] == 1 and out["new_items"] == 5
    assert out["projects"]["attributed"] == {FOREIGN: 5} and out["projects"]["unplaced"] == {}
    assert spool(dream_home) == {here_key(): 5}


def test_hook_takes_both_spellings_of_the_agent(webapp, dream_proc):
    payload = json.dumps({"session_id": "s", "cwd": str(webapp),
                          "hook_event_name": "UserPromptSubmit"})
    for spelling in ("claude_code", "claude-code"):
        proc = dream_proc("hook", "--agent", spelling, "--json", cwd=webapp, input=payload)
        assert proc.returncode == 0 and json.loads(proc.stdout)["agent"] == "claude-code"


# -- a transcript's git remote places it too -------------------------------------------------
TOKEN = "ghp_" + "Zq7RfT2mWc9XbK4pLs8NvD3hJy6GaE1uQo5i"     # synthetic, the shape only


def rollout(path: Path, cwd: str, remote: str | None, texts: list[str], start: int = 0,
            session: str = "c1") -> Path:
    """A real-format Codex rollout: session_meta (with its git block) and the user's words
    as event messages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    if start == 0:
        meta = {"id": session, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.104.0"}
        if remote:
            meta["git"] = {"commit_hash": "7078dc6b1ce5dd75a54ad14563c663530b82963b",
                           "branch": "main", "repository_url": remote}
        lines.append({"timestamp": "2026-11-20T10:00:00.000Z", "type": "session_meta",
                      "payload": meta})
    for n, text in enumerate(texts, start + 1):
        lines.append({"timestamp": f"2026-11-20T10:{n:02d}:00.000Z", "type": "event_msg",
                      "payload": {"type": "user_message", "message": text}})
    with path.open("a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    return path


@pytest.mark.parametrize("url, same", [
    ("git@github.com:acme/webapp.git", "https://github.com/Acme/WebApp"),
    ("ssh://git@github.com:22/acme/webapp.git/", "https://github.com/acme/webapp.git"),
    (f"https://x-access-token:{TOKEN}@github.com/acme/webapp.git", "github.com:acme/webapp"),
])
def test_remote_spellings_of_one_repository_compare_equal(url, same):
    from dream.store.project import normal_remote

    assert normal_remote(url) == normal_remote(same) == "github.com/acme/webapp"
    assert TOKEN.lower() not in (normal_remote(url) or "")


@pytest.mark.parametrize("junk", ["", "webapp", "/srv/git/webapp.git", None, 3,
                                  "https://github.com/"])
def test_what_is_not_a_remote_url_matches_nothing(junk):
    from dream.store.project import normal_remote

    assert normal_remote(junk) is None


def test_foreign_folder_whose_recorded_remote_is_this_repositorys_is_placed_here(
        webapp, dream, tmp_path, dream_home):
    from conftest import git

    git(webapp, "remote", "add", "origin", "git@github.com:acme/webapp.git")
    url = f"https://x-access-token:{TOKEN}@github.com/Acme/WebApp.git"
    mine = rollout(tmp_path / "copied" / "rollout-a.jsonl", "/home/dev/shop-frontend", url,
                   ["Always run the tests with pytest -q before committing."])
    theirs = rollout(tmp_path / "copied" / "rollout-b.jsonl", "/home/dev/api",
                     "git@github.com:acme/api.git", ["Use pnpm, never npm."], session="c2")
    out = dream("collect", str(mine), str(theirs)).output
    assert ("recorded in /home/dev/shop-frontend (not on this machine) in this repository's "
            f"project {here_key()}, by its git remote") in out
    assert "could not place items recorded in folders missing on this machine: /home/dev/api" \
        in out
    counts = spool(dream_home)
    assert counts[here_key()] == 1 and sum(counts.values()) == 2
    data = json.loads(dream("collect", "--json", str(mine)).output)
    assert data["new_items"] == 0
    # the token in the recorded URL is never stored nor printed
    raw = (dream_home / "dream.db").read_bytes()
    assert TOKEN.encode() not in raw and TOKEN not in out
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["items"] == 1 and review["run"]["project_key"] == here_key()


def test_a_grown_foreign_rollout_keeps_landing_here(webapp, dream, dream_proc, tmp_path,
                                                    dream_home):
    """Read again in a new process (which has not seen the rollout's head line), the
    appended lines are placed like the first ones."""
    from conftest import git

    git(webapp, "remote", "add", "origin", "https://github.com/acme/webapp")
    file = rollout(tmp_path / "copied" / "rollout-a.jsonl", "/home/dev/shop-frontend",
                   "git@github.com:acme/webapp.git", ["Never push to main directly."])
    assert dream_proc("collect", str(file), cwd=webapp).returncode == 0
    rollout(file, "", None, ["Deploy with make deploy from the ops folder."], start=1)
    proc = dream_proc("collect", "--json", str(file), cwd=webapp)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["new_items"] == 1 and out["projects"]["attributed"] == \
        {"/home/dev/shop-frontend": 1}
    assert out["projects"]["matched"] == {"/home/dev/shop-frontend": "git remote"}
    assert spool(dream_home) == {here_key(): 2}


def test_collect_without_paths_finds_a_codex_rollout_by_its_remote(
        webapp, dream, tmp_path, monkeypatch, dream_home):
    from conftest import git

    git(webapp, "remote", "add", "upstream", "git@github.com:acme/webapp.git")
    codex = tmp_path / "codex-sessions"
    rollout(codex / "2026" / "11" / "20" / "rollout-2026-11-20T10-00-00-c1.jsonl",
            "/home/dev/shop-frontend", "https://github.com/acme/webapp.git",
            ["Always run the tests with pytest -q before committing."])
    rollout(codex / "2026" / "11" / "20" / "rollout-2026-11-20T11-00-00-c2.jsonl",
            "/home/dev/api", "https://github.com/acme/api.git", ["Use pnpm."], session="c2")
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("DREAM_PI_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("DREAM_CODEX_DIR", str(codex))
    out = json.loads(dream("collect", "--json").output)
    assert out["files"] == 1 and out["new_items"] == 1
    assert out["projects"]["matched"] == {"/home/dev/shop-frontend": "git remote"}
    assert spool(dream_home) == {here_key(): 1}


# -- the same use-cases through the core and over MCP ----------------------------------------
def test_projects_list_and_move_are_core_functions(webapp, dream, tmp_path, dream_home):
    from dream.app import App
    from dream.core.projects import list_projects, move_items
    from dream.errors import BadInput

    dream("collect", str(transcript(tmp_path / "copied" / "s2.jsonl", "/srv/somewhere/api",
                                    "s2")))
    app = App.from_env()
    try:
        rows = {r.project.key: r for r in list_projects(app)}
        foreign = next(k for k in rows if k.startswith("api-"))
        assert rows[here_key()].here and not rows[foreign].here
        assert rows[foreign].project.folders == ("/srv/somewhere/api",)
        done = move_items(app, foreign, "webapp")
        assert done.as_dict() == {"from": foreign, "to": here_key(), "moved": 5}
        with pytest.raises(BadInput, match="no project named or keyed"):
            move_items(app, foreign, "webapp")      # no item carries that key any more
    finally:
        app.close()
    assert spool(dream_home) == {here_key(): 5}


def test_projects_over_mcp(webapp, dream, tmp_path, dream_home):
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client
    from test_mcp import call, ok, server_params

    dream("collect", str(transcript(tmp_path / "copied" / "s2.jsonl", "/srv/somewhere/api",
                                    "s2")))
    foreign = next(k for k in spool(dream_home) if k.startswith("api-"))

    async def scenario():
        async with stdio_client(server_params(webapp, dream_home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert tools["projects_list"].annotations.read_only_hint
                assert not tools["projects_move"].annotations.read_only_hint
                listed = (await ok(session, "projects_list"))["projects"]
                bad = await call(session, "projects_move", **{"from": "nope", "to": "webapp"})
                moved = await ok(session, "projects_move", **{"from": foreign, "to": "webapp"})
                return listed, bad, moved

    listed, bad, moved = anyio.run(scenario)
    assert {r["key"]: r["here"] for r in listed} == {here_key(): True, foreign: False}
    assert bad[0] is None and "no project named or keyed 'nope'" in bad[1]
    assert moved == {"from": foreign, "to": here_key(), "moved": 5}
    assert spool(dream_home) == {here_key(): 5}


def test_run_over_named_projects_from_anywhere(webapp, dream, make_repo, monkeypatch,
                                               tmp_path, dream_home):
    dream("collect", str(transcript(tmp_path / "copied" / "s1.jsonl", str(webapp))))
    api = make_repo("api")
    monkeypatch.chdir(api)
    dream("init")
    second = transcript(tmp_path / "copied" / "s2.jsonl", str(api), "s2")
    second.write_text(second.read_text().replace('"uuid": "u', '"uuid": "api-u'))
    dream("collect", str(second))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    one = json.loads(dream("run", "--project", "webapp", "--json").output)
    assert one["items"] == 4 and one["project_key"].startswith("webapp-")
    both = json.loads(dream("run", "--project", "webapp", "--project", "api", "--json").output)
    assert both["items"] == 4                    # webapp's were taken by the first run
    assert "api/brief.md" in str(sorted(p.relative_to(dream_home / "notes").as_posix()
                                        for p in (dream_home / "notes").rglob("brief.md")))
    bad = dream("run", "--project", "nope", ok=False)
    assert bad.exit_code == 1 and "no store knows a project named 'nope'" in bad.output


def test_more_unplaced_folders_than_listed_are_counted(make_repo, monkeypatch, dream, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.chdir(outside)
    dream("init")
    files = [transcript(tmp_path / "copied" / f"s{n}.jsonl", f"/home/dev/p{n}", f"s{n}")
             for n in range(7)]
    out = dream("collect", *map(str, files)).output
    assert "and 2 more folders" in out and "--json lists them all" in out
    report = json.loads(dream("collect", "--json", *map(str, files)).output)
    assert report["new_items"] == 0


def test_a_project_name_in_another_case_is_found(make_repo, monkeypatch, dream):
    repo = make_repo("M-Claude")
    monkeypatch.chdir(repo)
    dream("init")
    listed = json.loads(dream("projects", "list", "--json").output)
    assert [r["name"] for r in listed] == ["m-claude"]
    assert dream("run", "--project", "M-Claude").exit_code == 0
    assert dream("run", "--project", "m-claude").exit_code == 0


@pytest.mark.parametrize("folder", [r"C:\Users\me\code\WebApp", "C:/Users/me/code/webapp/",
                                    "/c/Users/me/code/webapp",
                                    r"\\?\C:\Users\me\code\webapp",
                                    r"\\fileserver\share\WEBAPP"])
def test_a_windows_folder_is_placed_by_its_name_like_a_posix_one(webapp, dream, tmp_path,
                                                                 dream_home, monkeypatch,
                                                                 folder):
    """Sessions recorded on Windows (drive letters, backslashes, Git Bash's /c/..., long
    paths, shares) match this repository by their last folder name, in any case."""
    file = transcript(tmp_path / "copied" / "s1.jsonl", folder)
    out = dream("collect", str(file)).output
    assert f"recorded in {folder} (not on this machine) in this repository's project" in out
    assert set(spool(dream_home)) == {here_key()}
    # discovery finds the session in Claude Code's folder for that Windows path too
    claude = tmp_path / "claude"
    encoded = "".join(c if c.isalnum() else "-" for c in folder)
    transcript(claude / encoded / "s2.jsonl", folder, session="s2")
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(claude))
    found = json.loads(dream("collect", "--json").output)
    assert found["files"] == 1 and found["projects"]["attributed"] == {folder: 5}


def test_a_windows_folder_of_another_name_keeps_a_readable_key_of_its_own(webapp, dream,
                                                                        tmp_path, dream_home):
    file = transcript(tmp_path / "copied" / "s1.jsonl", r"C:\Users\me\code\Billing")
    out = dream("collect", str(file)).output
    assert r"could not place items recorded in folders missing on this machine: " \
           r"C:\Users\me\code\Billing" in out
    assert [k for k in spool(dream_home) if k.startswith("billing-")]


def test_a_foreign_project_is_moved_by_the_folder_name_collect_printed(webapp, dream, tmp_path,
                                                                        dream_home):
    # collect says "could not place items recorded in ... /srv/somewhere/api"; 'dream
    # projects' shows no name for that key: the folder's name finds it, and a name that
    # finds nothing lists the keys items carry, not only the named projects
    dream("collect", str(transcript(tmp_path / "copied" / "s2.jsonl", "/srv/somewhere/api",
                                    "s2")))
    foreign = next(k for k in spool(dream_home) if k.startswith("api-"))
    bad = dream("projects", "move", "apii", "webapp", ok=False)
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1
    assert f"known: webapp, {foreign}" in bad.output
    moved = json.loads(dream("projects", "move", "api", "webapp", "--json").output)
    assert moved == {"from": foreign, "to": here_key(), "moved": 5}
    # two keys from folders of one name: the name alone is refused, naming both keys
    for session, folder in (("s3", "/srv/one/api"), ("s4", "/srv/two/api")):
        file = transcript(tmp_path / session / "s.jsonl", folder, session)
        file.write_text(file.read_text().replace('"uuid": "u', f'"uuid": "{session}-u'))
        dream("collect", str(file))
    keys = sorted(k for k in spool(dream_home) if k.startswith("api-"))
    assert len(keys) == 2, spool(dream_home)
    both = dream("projects", "move", "api", "webapp", ok=False)
    assert both.exit_code == 1 and len(both.output.strip().splitlines()) == 1
    assert f"'api' names several projects: {', '.join(keys)}" in both.output


def test_a_folder_moved_once_stays_moved_as_its_session_grows(make_repo, monkeypatch, dream,
                                                              tmp_path, dream_home):
    # 'dream projects move' (or 'collect --project') placed a foreign folder's items; the
    # session goes on, its file grows, and the next collect (a hook's, say) put the new
    # lines back under the foreign key, reported as unplaced, every time
    repo = make_repo("shop")
    monkeypatch.chdir(repo)
    dream("init")
    file = transcript(tmp_path / "copied" / "s1.jsonl", FOREIGN)
    lines = file.read_text().splitlines(keepends=True)
    file.write_text("".join(lines[:3]))
    first = json.loads(dream("collect", "--json", str(file)).output)
    assert first["projects"]["unplaced"] == {FOREIGN: 3}
    foreign = next(k for k in spool(dream_home) if k.startswith("webapp-"))
    dream("projects", "move", foreign, "shop")
    file.write_text("".join(lines))                    # the session went on
    grown = json.loads(dream("collect", "--json", str(file)).output)
    assert grown["new_items"] == 2
    assert grown["projects"]["unplaced"] == {}
    assert grown["projects"]["attributed"] == {FOREIGN: 2}
    assert spool(dream_home) == {here_key(): 5}
    # another foreign folder placed with --project follows its placement the same way
    other = transcript(tmp_path / "c2" / "s2.jsonl", "/srv/elsewhere/api", "s2")
    other.write_text(other.read_text().replace('"uuid": "u', '"uuid": "s2-u'))
    body = other.read_text().splitlines(keepends=True)
    other.write_text("".join(body[:2]))
    dream("collect", "--project", "shop", str(other))
    other.write_text("".join(body))
    again = json.loads(dream("collect", "--json", str(other)).output)
    assert again["projects"]["unplaced"] == {} and spool(dream_home) == {here_key(): 10}


def test_projects_columns_stay_in_line_with_a_long_key(webapp, dream, tmp_path):
    """A folder with a long name ('test-explain-checkpoint-boundaries' from a worktree)
    makes a key longer than the key column, and its row's counts were pushed out of line."""
    long_folder = "/Users/alex/workspace/cli/.worktrees/test-explain-checkpoint-boundaries"
    dream("collect", str(transcript(tmp_path / "wt" / "s1.jsonl", long_folder)))
    rows = [line for line in dream("projects").output.splitlines()
            if not line.startswith("      ")]
    assert len(rows) == 2 and any("test-explain-checkpoint-boundaries" in r for r in rows)
    assert len({row.index(" items (") for row in rows}) == 1, rows
