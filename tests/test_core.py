"""Home, init, project keys (worktrees included), status and stores."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git


def test_status_without_home_is_a_clear_error(dream, repo, dream_home):
    result = dream("status", ok=False)
    assert result.exit_code == 1
    assert "no Dream home" in result.output and "dream init" in result.output
    assert "Traceback" not in result.output
    assert not dream_home.exists()


def test_init_creates_home_store_and_primary(dream, repo, dream_home):
    out = json.loads(dream("init", "--json").output)
    assert out["in_git"] is True
    assert (dream_home / "notes" / ".dream" / "store.toml").exists()
    assert (dream_home / "config.toml").exists()
    assert (dream_home / "dream.db").exists()
    status = json.loads(dream("status", "--json").output)
    assert status["project_key"] == out["project_key"]
    assert set(status["store"]) == {"id", "name", "scope", "path"}
    assert status["store"]["scope"] == "user"
    assert status["lock"] is None
    log = git(dream_home / "notes", "log", "--format=%B")
    assert "Dream-Store:" in log


def test_init_refuses_a_name_no_address_can_hold(dream, repo, dream_home):
    # the name is the <name> of @projects/<name>/ and of the dream lock: a name that cannot
    # be one made every later run, begin and notes list fail (or wrote a folder no
    # address reaches); it is refused, with a usable name offered, and nothing changes
    dream("init")
    before = git(dream_home / "notes", "rev-parse", "HEAD")
    for bad, offered in (("../x", "x"), ("My Project!", "my-project"), ("a/b", "a-b"),
                         ("", None), ("a" * 200, "a" * 48), (".hidden", "hidden")):
        refused = dream("init", "--name", bad, ok=False)
        assert refused.exit_code == 1, bad
        assert len(refused.output.strip().splitlines()) == 1, refused.output
        assert "cannot be a project name" in refused.output
        if offered:
            assert f"--name {offered}" in refused.output, refused.output
    assert git(dream_home / "notes", "rev-parse", "HEAD") == before
    named = json.loads(dream("init", "--name", "web_app.v2", "--json").output)
    assert named["project_name"] == "web_app.v2"
    dream("notes", "write", "@projects/web_app.v2/a", "alpha")
    assert "web_app.v2" in dream("notes", "list").output


def test_a_folder_named_in_accented_latin_keeps_its_letters_and_its_key(
        dream, make_repo, monkeypatch, dream_home):
    """'Café' was named 'caf' and 'Größe' 'gr-e': accented letters were dropped as if
    they were punctuation. The readable name now keeps them as plain letters; the key is
    what it was (stores, the spool and commit trailers hold it: re-keying would need a
    migration), and a project a store already names keeps its name."""
    from dream.sources.discovery import moved_here
    from dream.store.project import identify

    cafe = make_repo("Café")
    monkeypatch.chdir(cafe)
    out = json.loads(dream("init", "--json").output)
    assert out["project_name"] == "cafe" and out["project_key"].startswith("caf-")
    assert out["name_lost_letters_of"] is None
    dream("notes", "write", "@projects/cafe/menu", "the menu lives in docs/")
    # a session recorded on another machine in a folder of that name is placed here
    assert moved_here("/Users/sam/code/CAFÉ", identify(cafe))
    grosse = make_repo("Größe")
    monkeypatch.chdir(grosse)
    assert json.loads(dream("init", "--json").output)["project_name"] == "grosse"
    # a store written before keeps the name it gave ('caf'): init changes nothing there
    store = dream_home / "notes" / ".dream" / "store.toml"
    store.write_text(store.read_text().replace('name = "cafe"', 'name = "caf"'))
    monkeypatch.chdir(cafe)
    again = json.loads(dream("init", "--json").output)
    assert (again["project_name"], again["project_key"]) == ("caf", out["project_key"])


def test_a_folder_named_in_another_script_is_said_to_lose_its_letters(
        dream, make_repo, monkeypatch, dream_home):
    """A note address holds ASCII only: 'проект' and '日本' both became 'project' without
    a word. init says so and how to choose a name; the second one gets its key as name."""
    names = []
    for folder in ("проект", "日本"):
        monkeypatch.chdir(make_repo(folder))
        text = dream("init").output
        assert f"leaves out those of '{folder}'" in text and "dream init --name NAME" in text
        names.append(json.loads(dream("status", "--json").output)["project_key"])
    assert names[0].startswith("project-") and names[0] != names[1]
    renamed = json.loads(dream("init", "--name", "nihon", "--json").output)
    assert renamed["project_name"] == "nihon" and renamed["name_lost_letters_of"] is None
    assert "leaves out" not in dream("init").output     # a name of its own now


def test_a_linked_worktree_names_the_letters_of_its_main_checkout(
        dream, make_repo, monkeypatch, tmp_path):
    """A linked worktree's project is named from its main checkout's folder, but init
    named the letters of the worktree's own folder: a worktree '日本-wt' of 'shop' was
    said to lose them (its name, 'shop', lost none), and a worktree 'wt' of '日本' was
    said to lose none (its name is 'project')."""
    from conftest import git

    shop = make_repo("shop")
    git(shop, "worktree", "add", "-q", str(tmp_path / "日本-wt"))
    monkeypatch.chdir(tmp_path / "日本-wt")
    out = json.loads(dream("init", "--json").output)
    assert out["project_name"] == "shop" and out["name_lost_letters_of"] is None
    nihon = make_repo("日本")
    git(nihon, "worktree", "add", "-q", str(tmp_path / "wt"))
    monkeypatch.chdir(tmp_path / "wt")
    text = dream("init").output
    assert "leaves out those of '日本'" in text, text


def test_renaming_a_project_takes_its_memory_along(dream, repo, dream_home):
    # 'dream init --name N' on a known project: its notes and records move to
    # projects/N/ in one commit, so the brief, search and every address keep working
    dream("init")
    dream("notes", "write", "@projects/proj/docs/tests", "run the tests with pytest -q")
    (dream_home / "notes" / "projects" / "proj" / "brief.md").write_text("# Brief\n")
    notes = dream_home / "notes"
    git(notes, "add", "-A")
    git(notes, "commit", "-q", "-m", "brief")
    before = git(notes, "rev-parse", "HEAD")
    out = json.loads(dream("init", "--name", "webapp", "--json").output)
    assert out["project_name"] == "webapp"
    assert git(notes, "rev-list", "--count", f"{before}..HEAD").strip() == "1"
    assert not (notes / "projects" / "proj").exists()
    assert (notes / "projects" / "webapp" / "brief.md").read_text() == "# Brief\n"
    assert "pytest -q" in dream("notes", "show", "@projects/webapp/docs/tests").output
    assert "projects/webapp/docs/tests.md" in dream("search", "pytest").output
    assert git(notes, "status", "--porcelain").strip() == ""
    # a folder of that name already there (notes written by hand) is never merged into
    (notes / "projects" / "other").mkdir()
    (notes / "projects" / "other" / "x.md").write_text("hand-written\n")
    refused = dream("init", "--name", "other", ok=False)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert "projects/other already holds notes" in refused.output
    assert json.loads(dream("status", "--json").output)["project_name"] == "webapp"


def test_linked_worktree_shares_project_key(dream, repo, tmp_path, monkeypatch):
    main_key = json.loads(dream("init", "--json").output)["project_key"]
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "feature")
    monkeypatch.chdir(wt)
    status = json.loads(dream("status", "--json").output)
    assert status["project_key"] == main_key
    assert status["managed"] is True


def test_outside_git_key_is_derived_from_folder(dream, tmp_path, monkeypatch):
    folder = tmp_path / "plain"
    folder.mkdir()
    monkeypatch.chdir(folder)
    result = dream("init")
    assert "not in a git repository" in result.output
    status = json.loads(dream("status", "--json").output)
    assert status["in_git"] is False and status["project_key"].startswith("plain-")


def test_unmanaged_repo_is_not_given_another_store(dream, repo, make_repo, monkeypatch):
    dream("init")
    other = make_repo("other")
    monkeypatch.chdir(other)
    status = json.loads(dream("status", "--json").output)
    assert status["managed"] is False and status["store"] is None


def test_attach_store_and_make_it_primary(dream, repo, make_repo):
    team = make_repo("team-store")
    dream("init")
    attached = json.loads(dream("stores", "attach", str(team), "--remote",
                                "git@example.invalid:team/memory.git", "--json").output)
    assert attached["scope"] == "shared"
    dream("init", "--store", attached["id"])
    status = json.loads(dream("status", "--json").output)
    assert status["store"]["id"] == attached["id"]
    listing = json.loads(dream("stores", "list", "--json").output)
    notes = next(s for s in listing if s["name"] == "notes")
    assert not any(p["primary"] for p in notes["projects"].values())
    assert (Path(team) / ".dream" / "store.toml").read_text().count("remote") == 1


def test_a_new_primary_store_leaves_the_notes_until_asked_to_move_them(dream, repo,
                                                                      make_repo, dream_home):
    """Switching the Primary Store says where the project's notes stay (a private store's
    notes are not published to a shared one unasked); --move-notes moves them, committed in
    the new store before they leave the old one."""
    home = json.loads(dream("init", "--json").output)
    name = home["project_name"]
    dream("notes", "write", f"@projects/{name}/deploy", "deploys go through the staging tag")
    team = make_repo("team-store")
    dream("stores", "attach", str(team), "--name", "team")
    notes = dream_home / "notes"
    switched = dream("init", "--store", "team")
    assert "store 'notes' keeps 1 file of this project" in switched.output
    assert "--move-notes" in switched.output
    assert (notes / "projects" / name / "deploy.md").is_file()
    moved = json.loads(dream("init", "--store", "team", "--move-notes", "--json").output)
    assert moved["earlier_notes"] == {"store": "notes", "path": f"projects/{name}",
                                      "files": 1, "moved": True}
    assert not (notes / "projects" / name / "deploy.md").exists()
    assert "staging tag" in (team / "projects" / name / "deploy.md").read_text()
    assert git(notes, "status", "--porcelain") == "" and git(team, "status", "--porcelain") == ""
    assert "from store notes" in git(team, "log", "-1", "--format=%s")
    assert "to store team" in git(notes, "log", "-1", "--format=%s")
    hits = json.loads(dream("search", "staging", "--json").output)["hits"]
    assert [h["path"] for h in hits] == [f"projects/{name}/deploy.md"]
    # back to the notes home with the notes: the folder there is free again, so they move
    back = json.loads(dream("init", "--store", "notes", "--move-notes", "--json").output)
    assert back["earlier_notes"]["moved"] and (notes / "projects" / name / "deploy.md").is_file()


def test_move_notes_never_merges_into_a_folder_that_holds_notes(dream, repo, make_repo,
                                                                dream_home):
    home = json.loads(dream("init", "--json").output)
    name = home["project_name"]
    dream("notes", "write", f"@projects/{name}/mine", "private note")
    team = make_repo("team-store")
    (team / "projects" / name).mkdir(parents=True)
    (team / "projects" / name / "theirs.md").write_text("# theirs\n\nteam note\n")
    git(team, "add", "-A")
    git(team, "commit", "-q", "-m", "team notes")
    dream("stores", "attach", str(team), "--name", "team")
    refused = dream("init", "--store", "team", "--move-notes", ok=False)
    assert refused.exit_code == 1 and "already holds notes in store 'team'" in refused.output
    assert "Traceback" not in refused.output
    assert (dream_home / "notes" / "projects" / name / "mine.md").is_file()
    status = json.loads(dream("status", "--json").output)
    assert status["store"]["name"] == "notes"          # refused before anything changed


def test_init_refuses_dreams_own_store_as_a_project(dream, repo, dream_home, monkeypatch):
    # 'dream init' typed inside the notes store (a git repository) made the store manage
    # itself as a project called 'notes': runs then wrote records into the repository they
    # read; it is refused in one line and the store is unchanged
    dream("init")
    notes = dream_home / "notes"
    before = git(notes, "rev-parse", "HEAD")
    for inside in (notes, notes / "projects"):
        inside.mkdir(exist_ok=True)
        monkeypatch.chdir(inside)
        refused = dream("init", ok=False)
        assert refused.exit_code == 1 and "cannot be a project of itself" in refused.output
        assert len(refused.output.strip().splitlines()) == 1, refused.output
    assert git(notes, "rev-parse", "HEAD") == before
    monkeypatch.chdir(repo)
    assert json.loads(dream("init", "--json").output)["in_git"] is True
