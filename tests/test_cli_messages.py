"""What a newcomer meets on the command line: a rerunnable demo, runs that say what became
of them, stores that refuse typos, one-line errors, honest counts and a compact context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import REPO_ROOT, git
from test_scenarios import stage


# -- demo, runs, stores ----------------------------------------------------------------------
def test_demo_home_can_be_run_again_and_refuses_a_foreign_folder(dream_proc, tmp_path):
    home = tmp_path / "demo"
    first = dream_proc("demo", "--home", str(home), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = dream_proc("demo", "--home", str(home), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Starting over: removed the previous demo in {home}")
    assert "Dinner at Nobu" in again.stdout
    # the user's correction of the lunch changed the event: it is not also a note
    assert "2026-03-12 12:30: Lunch at Hoppers" in again.stdout
    assert "No, that's wrong" not in again.stdout
    assert git(home / "home" / "notes", "status", "--porcelain") == ""
    busy = tmp_path / "mine"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine\n")
    refused = dream_proc("demo", "--home", str(busy), cwd=tmp_path)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    assert "holds no earlier demo" in refused.stderr and (busy / "keep.txt").exists()


def test_runs_show_the_decision_and_the_project(dream, repo, tmp_path):
    dream("init")
    stage(tmp_path, "a", [{"id": "a1", "time": "2026-03-09T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Dinner at Nobu on Friday at 7pm, booked."}])
    auto = json.loads(dream("run", "--model", "rules", "--json").output)
    stage(tmp_path, "b", [{"id": "b1", "time": "2026-03-10T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Lunch at Hoppers on Monday at noon, booked."}])
    left = json.loads(dream("run", "--model", "rules", "--apply", "review", "--json").output)
    stage(tmp_path, "c", [{"id": "c1", "time": "2026-03-11T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Coffee at Monmouth on Tuesday at 9am, booked."}])
    gone = json.loads(dream("run", "--model", "rules", "--apply", "review", "--json").output)
    dream("runs", "discard", gone["id"])
    rows = {r["id"]: r for r in json.loads(dream("runs", "--json").output)}
    assert rows[auto["id"]]["decision"] == "promoted"
    assert rows[left["id"]]["decision"] == "awaiting review"
    assert rows[gone["id"]]["decision"] == "discarded"
    table = dream("runs").output.splitlines()
    assert "decision" in table[0] and "project" in table[0]
    line = next(x for x in table if x.startswith(left["id"]))
    assert "awaiting review" in line and repo.name in line
    shown = dream("runs", "show", left["id"]).output
    assert "decision:       awaiting review" in shown
    # nothing of either is on the main line: revert says why, as docs/notes.md quotes it
    waiting = dream("revert", left["id"], ok=False)
    assert waiting.exit_code == 1 and waiting.output.strip() == (
        f"error: run {left['id']} was left for review and is not on the store's main line, so "
        f"there is nothing to revert. drop it with 'dream runs discard {left['id']}'.")
    discarded = dream("revert", gone["id"], ok=False)
    assert discarded.exit_code == 1 and f"run {gone['id']} was discarded: nothing of it is on " \
        "the store's main line" in discarded.output
    docs = (REPO_ROOT / "docs" / "notes.md").read_text(encoding="utf-8")
    said = " ".join(docs.split("## Revert", 1)[1].split("\n## ", 1)[0].split())
    assert "was left for review and is not on the store's main line, so there is nothing to " \
        "revert. drop it with 'dream runs discard RUN'" in said and "was discarded" in said
    assert "dream runs discard RUN" in (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def test_stores_attach_refuses_a_missing_path_and_detach_forgets(dream, repo, tmp_path):
    dream("init")
    typo = tmp_path / "tema"
    refused = dream("stores", "attach", str(typo), ok=False)
    assert refused.exit_code == 1 and "--create" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not typo.exists()
    made = json.loads(dream("stores", "attach", str(typo), "--create", "--json").output)
    assert (typo / ".git").is_dir() and made["name"] == "tema"
    assert "tema" in dream("stores", "list").output
    out = dream("stores", "detach", "tema").output
    assert "untouched" in out and (typo / ".git").is_dir()
    assert "tema" not in dream("stores", "list").output
    home = dream("stores", "detach", "notes", ok=False)
    assert home.exit_code == 1 and "cannot be detached" in home.output
    # a Primary Store is detached only with --force
    dream("stores", "attach", str(typo))
    dream("init", "--store", "tema")
    primary = dream("stores", "detach", "tema", ok=False)
    assert primary.exit_code == 1 and "Primary Store of" in primary.output
    dream("stores", "detach", "tema", "--force")
    assert json.loads(dream("status", "--json").output)["managed"] is False
    assert Path(typo / ".dream" / "store.toml").exists()


def test_an_attached_store_gone_or_now_a_file_names_detach(dream, repo, tmp_path):
    """A [[stores]] path that is a file (a config edited by hand) was 'PATH/.dream/
    store.toml: not a directory. check the path', on every command; it is named like a
    store that is gone, with the detach that forgets it."""
    dream("init")
    store = tmp_path / "team"
    dream("stores", "attach", str(store), "--create")
    (store / ".dream" / "store.toml").unlink()
    gone = dream("status", ok=False)
    assert gone.exit_code == 1 and gone.output.strip() == (
        f"error: attached store {store} is gone (no .dream/store.toml there). put it back, "
        f"or forget it with 'dream stores detach {store}'.")
    shutil.rmtree(store)
    store.write_text("not a store")
    now_file = dream("search", "tea", ok=False)
    assert now_file.exit_code == 1 and now_file.output.strip() == (
        f"error: attached store {store} is a file, not a store's folder. put it back, or "
        f"forget it with 'dream stores detach {store}'.")
    assert "untouched" in dream("stores", "detach", str(store)).output
    assert dream("status").exit_code == 0 and store.read_text() == "not a store"


# -- one-line errors, bare commands ------------------------------------------------------------
def test_usage_errors_are_one_line_with_the_help_hint(dream_proc, repo):
    for args, needle in ((["run", "--foo"], "No such option '--foo'. Try 'dream run --help'."),
                         (["correct"], "Missing argument 'ADDRESS'. Try 'dream correct --help'."),
                         (["nosuch"], "No such command 'nosuch'. Try 'dream --help'."),
                         (["run", "--mode", "x"], "Try 'dream run --help'.")):
        proc = dream_proc(*args, cwd=repo)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
        assert needle in proc.stderr


def test_bare_dream_and_bare_groups_print_help_and_succeed(dream_proc, repo):
    bare = dream_proc(cwd=repo)
    assert bare.returncode == 0 and bare.stdout.startswith("Usage: dream")
    assert "collect" in bare.stdout and bare.stderr == ""
    group = dream_proc("stores", cwd=repo)
    assert group.returncode == 0 and "detach" in group.stdout


def test_hints_are_not_doubled(dream, repo, tmp_path, monkeypatch):
    no_home = dream("search", "x", ok=False)
    assert no_home.output.count("dream init") == 1
    dream("init")
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.chdir(other)
    out = dream("search", "x", ok=False).output
    assert out.count("dream init") == 1 and len(out.strip().splitlines()) == 1


# -- honest counts ---------------------------------------------------------------------------------
def _messages(n: int, stream: str, cwd: str | None = None) -> list[dict]:
    out = []
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    for i in range(n):
        line = {"id": f"{stream}{i}", "time": f"2026-03-01T10:{i:02d}:00Z",
                "stream": f"{stream}-{i}", "role": "other", "author": f"Friend{i}",
                "text": f"Dinner at Place{i} on {days[i % 7]} at {1 + i % 11}pm, booked."}
        if cwd:
            line.update(role="user", text=f"From now on always run check number {i} first.",
                        cwd=cwd)
        out.append(line)
    return out


def test_max_items_bounds_the_whole_run(dream, repo, tmp_path):
    dream("init")
    stage(tmp_path, "mixed", _messages(4, "proj", str(repo)) + _messages(4, "sms"))
    first = json.loads(dream("run", "--model", "rules", "--max-items", "5", "--json").output)
    assert first["items"] == 5
    rounds = json.loads(dream("run", "--model", "rules", "--max-items", "2", "--rounds", "5",
                              "--json").output)
    assert [r["items"] for r in rounds["runs"]] == [2, 1]


def test_a_cut_brief_says_how_many_lines_were_left_out(dream, repo, tmp_path, dream_home):
    from dream.app import App
    from dream.pipeline.render import render_brief
    from dream.pipeline.state import Scope, load_state

    dream("init")
    stage(tmp_path, "many", _messages(12, "sms"))
    dream("run", "--model", "rules")
    app = App.from_env()
    try:
        store = app.notes_store()
        state = load_state(Scope(store, "user", None, "user"), store.repo.head())
    finally:
        app.close()

    def body(text: str) -> list[str]:
        return [x for x in text.splitlines() if x.startswith("- ")]

    whole = render_brief(state, 100_000)
    assert "left out" not in whole and len(body(whole)) >= 8
    for cap in (120, 200, 300):
        cut = render_brief(state, cap)
        last = cut.rstrip("\n").splitlines()[-1]
        assert last.startswith("_") and "more lines left out" in last, cut
        left_out = int(last.strip("_").split()[0])
        assert len(body(cut)) + left_out == len(body(whole))
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "left out" not in brief


# -- context for agents ------------------------------------------------------------------------------
def test_context_is_compact_and_gives_provenance_on_request(dream, repo, tmp_path):
    dream("init")
    stage(tmp_path, "d", [{"id": "d1", "time": "2026-03-09T18:00:00Z", "stream": "sms-jo",
                           "role": "other", "author": "Jo",
                           "text": "Dinner at Nobu on Friday at 7pm, booked."}])
    dream("run", "--model", "rules")
    compact = dream("context", "--objective", "dinner Nobu").output
    full = dream("context", "--objective", "dinner Nobu", "--provenance").output
    assert "Dinner at Nobu" in compact and "Dinner at Nobu" in full
    assert "said_at" not in compact and "evidence:" not in compact
    assert "said_at" in full and "sha256" in full
    assert compact.startswith("# Memory for: dinner Nobu")
    assert len(compact) < len(full) / 2


def test_stores_attach_never_makes_a_plain_folder_a_repository_unasked(dream, repo, tmp_path):
    # 'dream stores attach ~' or '/etc' must not 'git init' and commit there: an existing
    # folder that is no git repository is refused like a missing one, unless --create
    dream("init")
    plain = tmp_path / "documents"
    plain.mkdir()
    (plain / "taxes.txt").write_text("mine\n")
    refused = dream("stores", "attach", str(plain), ok=False)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert "is not a git repository" in refused.output and "--create" in refused.output
    assert sorted(p.name for p in plain.iterdir()) == ["taxes.txt"]
    assert "documents" not in dream("stores", "list").output
    afile = tmp_path / "notes.txt"
    afile.write_text("x\n")
    refused = dream("stores", "attach", str(afile), "--create", ok=False)
    assert refused.exit_code == 2 and "is a file" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and afile.read_text() == "x\n"
    made = json.loads(dream("stores", "attach", str(plain), "--create", "--json").output)
    assert made["name"] == "documents" and (plain / ".git").is_dir()
    assert git(plain, "ls-files").split() == [".dream/store.toml", ".gitignore"]


def test_a_store_folder_gone_missing_is_named_and_can_be_detached(dream, repo, tmp_path):
    # a team clone deleted or a drive unmounted: every command names it with the way out,
    # and the way out ('dream stores detach PATH') works
    dream("init")
    team = tmp_path / "team"
    dream("stores", "attach", str(team), "--create")
    moved = tmp_path / "team-moved"
    team.rename(moved)
    for args in (["status"], ["stores", "list"], ["notes", "list"]):
        failed = dream(*args, ok=False)
        assert failed.exit_code == 1 and len(failed.output.strip().splitlines()) == 1
        assert f"dream stores detach {team}" in failed.output, failed.output
    doctor = dream("doctor", ok=False).output
    assert f"fix: put it back, or forget it with 'dream stores detach {team}'" in doctor
    out = dream("stores", "detach", str(team)).output
    assert str(team) in out
    assert "team" not in dream("stores", "list").output
    assert dream("status").exit_code == 0
    assert (moved / ".dream" / "store.toml").exists()   # its files stay untouched


def test_runs_limit_and_an_ambiguous_run_prefix_say_what_is_wrong(dream, repo, dream_home):
    # '--limit 0' printed "no dream runs yet" over a list of runs, '--limit -1' listed
    # them all; a prefix two runs share was "no dream run", which reads as a typo
    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    first = json.loads(dream("run", "--json").output)["id"]
    dream("notes", "write", "@user/coffee", "and coffee after lunch")
    second = json.loads(dream("run", "--redo", "--json").output)["id"]
    for bad in ("0", "-1"):
        refused = dream("runs", "--limit", bad, ok=False)
        assert refused.exit_code == 2 and "Invalid value for '--limit'" in refused.output
    shared = next(n for n in range(len(first), 0, -1) if first[:n] == second[:n])
    prefix = first[:shared]
    refused = dream("runs", "show", prefix, ok=False)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert f"'{prefix}' is the start of 2 run ids" in refused.output
    assert first in refused.output and second in refused.output
    assert "give more of the id" in refused.output
    assert first in dream("runs", "show", first).output


def test_the_command_line_runs_from_a_worker_thread(repo, dream_home):
    # the SIGTERM handler the command line installs can only be set from the main thread:
    # a program that runs Dream's commands from a worker thread must still get them
    import threading

    from click.testing import CliRunner

    from dream.cli import cli

    results = []
    worker = threading.Thread(target=lambda: results.append(
        CliRunner().invoke(cli, ["init", "--json"], catch_exceptions=True)))
    worker.start()
    worker.join(timeout=120)
    assert results and results[0].exception is None, results[0].exception
    assert json.loads(results[0].output)["in_git"] is True


def test_a_run_id_with_like_wildcards_is_taken_literally(dream, repo, tmp_path):
    """'dream runs discard %' matched every run id ('%' was dropped before SQL LIKE), so
    with one run left for review it discarded that run; '%' names no run."""
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    left = json.loads(dream("run", "--model", "rules", "--apply", "review", "--json").output)
    for args in (("runs", "discard", "%"), ("runs", "show", "%"), ("runs", "promote", "_%")):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "no dream run" in result.output, (args, result.output)
    shown = json.loads(dream("runs", "show", left["id"][:12], "--json").output)
    assert shown["id"] == left["id"] and shown["decision"] == "awaiting review"
