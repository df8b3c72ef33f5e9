"""Dream under concurrency, with real processes: racing review accepts, the CLI and
``dream serve`` at once, two runs, a run during a dream, many note writers, a writer that
must wait for the store write lock, and locks that say who holds them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO_ROOT, git
from review_fixtures.sessions import plant

ENV = {"PYTHONPATH": str(REPO_ROOT / "src")}


def spawn(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dream", *args], cwd=cwd,
                            env={**os.environ, **ENV, **(env or {})}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(procs: list[subprocess.Popen], timeout: float = 180) -> list[tuple[int, str, str]]:
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        out.append((p.returncode, stdout, stderr))
    return out


def commits(store: Path) -> list[str]:
    return git(store, "log", "--format=%s").splitlines()


def fsck_clean(store: Path) -> None:
    proc = subprocess.run(["git", "fsck", "--strict"], cwd=store, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def reviewed(dream, repo, tmp_path):
    """A project with collected sessions and one open review with proposals."""
    dream("init", "--json")
    paths = plant(tmp_path / "transcripts", str(repo), None)
    dream("collect", *map(str, paths.values()), "--json")
    review = json.loads(dream("review", "start", "--json").output)
    memory = [p["slug"] for p in review["proposals"] if p["pass"] == "memory"]
    assert len(memory) >= 2
    return review, memory


def test_racing_review_accepts_commit_once(dream, reviewed, repo, dream_home):
    review, memory = reviewed
    slug = memory[0]
    store = dream_home / "notes"
    before = commits(store)
    procs = [spawn("review", "accept", slug, "--run", review["run"]["id"], cwd=repo)
             for _ in range(4)]
    results = finish(procs)
    ok = [r for r in results if r[0] == 0]
    refused = [r for r in results if r[0] != 0]
    assert len(ok) == 1, results
    assert len(refused) == 3
    for code, _out, err in refused:
        assert code == 1 and err.count("\n") == 1 and "already accepted" in err, err
        assert "Traceback" not in err
    new = commits(store)[: len(commits(store)) - len(before)]
    assert len(new) == 1, new                                   # no duplicate promotion
    shown = json.loads(dream("review", "show", "--json").output)
    status = {p["slug"]: p["status"] for p in shown["proposals"]}
    assert status[slug] == "accepted"
    fsck_clean(store)
    assert git(store, "status", "--porcelain") == ""


def test_cli_and_serve_accept_at_once(reviewed, repo, dream_home):
    review, memory = reviewed
    run_id = review["run"]["id"]
    store = dream_home / "notes"
    before = len(commits(store))
    server = spawn("serve", "--port", "0", cwd=repo)
    try:
        line = server.stdout.readline()
        assert line.startswith("Dream review page: http://127.0.0.1:"), line
        url = line.split()[3].rstrip("/")
        with urllib.request.urlopen(f"{url}/runs/{run_id}", timeout=30) as page:
            html = page.read().decode()
        csrf = html.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        clis = [spawn("review", "accept", memory[0], memory[1], "--run", run_id, cwd=repo)
                for _ in range(2)]
        from urllib.parse import urlencode

        answers = []
        for slug in (memory[1], memory[0]):
            request = urllib.request.Request(
                f"{url}/runs/{run_id}/accept", data=urlencode({"slug": slug, "csrf": csrf})
                .encode(), method="POST")

            class NoRedirect(urllib.request.HTTPRedirectHandler):
                def redirect_request(self, *args, **kwargs):
                    return None

            try:
                with urllib.request.build_opener(NoRedirect).open(request, timeout=60) as r:
                    answers.append(r.status)
            except urllib.error.HTTPError as err:
                answers.append(err.code)
                err.close()
        results = finish(clis)
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)
    # each proposal was accepted exactly once, by whoever came first
    assert len(commits(store)) - before == 2, commits(store)
    shown = json.loads(subprocess.run(
        [sys.executable, "-m", "dream", "review", "show", run_id, "--json"],
        cwd=repo, env={**os.environ, **ENV}, capture_output=True, text=True).stdout)
    status = {p["slug"]: p["status"] for p in shown["proposals"]}
    assert status[memory[0]] == status[memory[1]] == "accepted"
    for code, _out, err in results:
        assert code == 0 or ("already accepted" in err and err.count("\n") == 1), err
    assert all(code in (303, 409, 400) for code in answers), answers
    fsck_clean(store)


def test_two_runs_one_refused_clearly(dream, repo, dream_home):
    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    lock = dream_home / "notes" / ".dream.lock.user"
    lock.write_text(json.dumps({"pid": os.getpid(), "host": os.uname().nodename,
                                "owner": "run", "command": "dream run",
                                "time": "2026-12-01T00:00:00Z"}))
    # a live holder: the second run is refused at once, told it is in use
    proc = subprocess.run([sys.executable, "-m", "dream", "run"], cwd=repo,
                          env={**os.environ, **ENV}, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1 and "in use" in proc.stderr and "dream run" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "rm " not in proc.stderr
    # a run ends by itself: 'dream end' (which ends an interactive dream) is no way out
    assert "dream end" not in proc.stderr and "wait for it to finish" in proc.stderr
    lock.unlink()
    procs = [spawn("run", "--json", cwd=repo) for _ in range(2)]
    results = finish(procs)
    codes = sorted(r[0] for r in results)
    assert codes in ([0, 0], [0, 1]), results
    for code, _out, err in results:
        if code:
            assert "in use" in err and err.count("\n") == 1, err
    fsck_clean(dream_home / "notes")
    assert not list((dream_home / "notes").glob(".dream.lock.*"))


def test_stale_lock_is_named_stale_with_its_fix(dream, repo, dream_home):
    dream("init")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = dream_home / "notes" / ".dream.lock.user"
    lock.write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename,
                                "owner": "run", "command": "dream run --mode nightly",
                                "time": "2026-12-01T00:00:00Z"}))
    result = dream("run", ok=False)
    assert result.exit_code == 1
    assert "stale" in result.output and f'rm "{lock}"' in result.output
    assert "dream run --mode nightly" in result.output
    assert lock.exists()                                 # never taken over silently
    doctor = json.loads(dream("doctor", "--json", ok=False).output)
    stale = [c for c in doctor["checks"] if c["name"] == "lock" and c["status"] != "ok"]
    assert stale and f'rm "{lock}"' in stale[0]["fix"]


def test_a_killed_runs_stale_locks_are_named_together(dream, repo, dream_home):
    # a run killed with -9 leaves a lock per scope (the project's and the personal one):
    # the refusal names both with one command, not one lock per attempt
    name = json.loads(dream("init", "--json").output)["project_name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    locks = [dream_home / "notes" / f".dream.lock.{n}" for n in (name, "user")]
    for lock in locks:
        lock.write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename,
                                    "owner": "run", "command": "dream run",
                                    "time": "2026-12-01T00:00:00Z"}))
    result = dream("run", ok=False)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert f'rm "{locks[0]}" "{locks[1]}"' in result.output, result.output
    assert all(lock.exists() for lock in locks)              # never taken over silently
    assert not list((dream_home / "notes").glob(".dream.lock.*.tmp"))


def test_sigterm_mid_run_releases_its_locks_and_fails_the_run(dream, repo, dream_home,
                                                             tmp_path):
    # 'kill', 'timeout', cron or systemd stop a job with SIGTERM: a run stopped so left its
    # locks stale and itself 'running' until someone ran rm by hand; now it unwinds as
    # Ctrl-C does. The model endpoint accepts and never answers, so the run is mid-call.
    import socket

    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"stream": "sms:sam", "role": "other", "author": "Sam",
                                "text": "Dinner at Nobu on Friday at 7?",
                                "time": "2026-03-02T09:00:00Z"}) + "\n")
    dream("collect", "--source", "jsonl", str(chat))
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)                           # connections complete, nothing answers
        config = dream_home / "config.toml"
        config.write_text(config.read_text().replace(
            "[model]\n", f'[model]\nopenai_base_url = '
                         f'"http://127.0.0.1:{silent.getsockname()[1]}/v1"\ntimeout = 120\n',
            1))
        proc = spawn("run", "--model", "openai:gpt-4o-mini", cwd=repo,
                     env={"OPENAI_API_KEY": "sk-test-not-a-real-key-000"})
        locks = dream_home / "notes"
        deadline = time.monotonic() + 60
        while not list(locks.glob(".dream.lock.*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(locks.glob(".dream.lock.*")), "the run never took its lock"
        time.sleep(1.0)                            # into the model call
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (out, err)
    assert err == "error: stopped (SIGTERM). Nothing half-written was kept; rerun the command.\n"
    assert not list(locks.glob(".dream.lock.*"))
    latest = json.loads(dream("runs", "--json").output)[0]
    assert latest["status"] == "failed"
    doctor = json.loads(dream("doctor", "--json").output)
    assert not [c for c in doctor["checks"] if c["status"] != "ok" and c["name"] in
                ("lock", "run")]


def test_run_during_a_dream_and_the_rename_bypass_are_refused(dream, repo, dream_home,
                                                                tmp_path):
    dream("init", "--name", "web")
    team = tmp_path / "team"
    dream("stores", "attach", str(team), "--name", "team", "--create")
    began = json.loads(dream("begin", "--json").output)
    assert began["project"] == "web"
    # moving the project while its dream is open is refused (the lock would be bypassed)
    moved = dream("init", "--store", "team", "--name", "webapp", ok=False)
    assert moved.exit_code == 1 and "bypass" in moved.output
    # a run over the project during the dream is refused at once
    run = dream("run", ok=False)
    assert run.exit_code == 1 and ".dream.lock.web" in run.output
    status = json.loads(dream("status", "--json").output)
    assert status["lock"]["state"] == "open"
    dream("end")
    dream("init", "--store", "team", "--name", "webapp")
    # a lock left under the old name still guards the project key
    lock = dream_home / "notes" / ".dream.lock.web"
    lock.write_text(json.dumps({"pid": os.getpid(), "host": os.uname().nodename,
                                "owner": "mcp-1", "project_key": began["project_key"],
                                "command": "dream mcp"}))
    run = dream("run", ok=False)
    assert run.exit_code == 1 and ".dream.lock.web" in run.output and "in use" in run.output
    assert json.loads(dream("status", "--json").output)["lock"]["path"] == str(lock)


def test_many_note_writers_lose_nothing(dream, repo, dream_home):
    dream("init")
    store = dream_home / "notes"
    before = len(commits(store))
    procs = [spawn("notes", "write", f"@user/race-{i}", f"note number {i}", cwd=repo)
             for i in range(6)]
    results = finish(procs)
    assert all(code == 0 for code, _o, _e in results), results
    assert len(commits(store)) - before == 6
    for i in range(6):
        shown = git(store, "show", f"HEAD:user/race-{i}.md")
        assert f"note number {i}" in shown
    assert git(store, "status", "--porcelain") == ""
    fsck_clean(store)


def test_a_writer_waits_then_names_the_holder(dream, repo, dream_home):
    dream("init")
    store = dream_home / "notes"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time; from dream.store.lock import write_lock\n"
         f"with write_lock({str(store)!r}, 'test holder'):\n"
         "    print('held', flush=True); time.sleep(60)"],
        env={**os.environ, **ENV}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        proc = subprocess.run([sys.executable, "-m", "dream", "notes", "write", "@user/x",
                               "waits"], cwd=repo, capture_output=True, text=True,
                              env={**os.environ, **ENV, "DREAM_LOCK_WAIT": "1"}, timeout=60)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1
        assert f"pid {holder.pid}" in proc.stderr and "waited 1s" in proc.stderr
        assert not (store / "user" / "x.md").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder died: the kernel released its lock, the next writer goes through
    dream("notes", "write", "@user/x", "now")
    assert "now" in git(store, "show", "HEAD:user/x.md")


def test_a_killed_note_write_is_not_swept_into_the_next_commit(dream, repo, dream_home):
    """A writer killed after writing its bytes but before its commit leaves no file in the
    work tree that a later, unrelated commit picks up half-written."""
    dream("init")
    store = dream_home / "notes"
    script = (
        "import os, signal, sys\n"
        "from dream.store import git\n"
        "def die(*a, **k): os.kill(os.getpid(), signal.SIGKILL)\n"
        "git.Repo._commit_tree = die\n"
        "sys.argv = ['dream', 'notes', 'write', '@user/big', '--file', sys.argv[1]]\n"
        "from dream.cli import main\n"
        "main()\n")
    big = repo.parent / "big.txt"
    big.write_text("x" * 500_000)
    proc = subprocess.run([sys.executable, "-c", script, str(big)], cwd=repo,
                          env={**os.environ, **ENV}, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL
    assert not list((store / ".git" / "dream-tmp").glob("*"))
    dream("notes", "write", "@user/other", "unrelated")
    files = git(store, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert files == ["user/other.md"]
    left = store / "user" / "big.md"
    assert not left.exists() or left.stat().st_size > 500_000      # whole, never half
    dream("run")
    for sha in git(store, "log", "--format=%H").splitlines():
        data = subprocess.run(["git", "show", f"{sha}:user/big.md"], cwd=store,
                              capture_output=True)
        assert data.returncode != 0 or len(data.stdout) > 500_000


def _descendants(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_collect_leaves_no_worker_behind(dream, repo, dream_home, tmp_path):
    import random

    dream("init")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    line = json.dumps({"role": "user", "text": "we deploy with make deploy " + "x" * 300})
    for n in range(4):
        (inbox / f"chat-{n}.jsonl").write_text((line + "\n") * 6000)
    rng = random.Random(13)
    orphans: list[int] = []
    for _kill in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-m", "dream", "collect", "--source", "jsonl", str(inbox)],
            cwd=repo, env={**os.environ, **ENV, "DREAM_COLLECT_WORKERS": "2"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(0.2, 1.5))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while _descendants(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _descendants(proc.pid)
        orphans += left
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert orphans == []
    # and the spool is still whole: a final collect finishes and a rerun adds nothing
    dream("collect", "--source", "jsonl", str(inbox))
    again = json.loads(dream("collect", "--source", "jsonl", str(inbox), "--json").output)
    assert again["new_items"] == 0
    import sqlite3

    conn = sqlite3.connect(dream_home / "dream.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_the_mcp_server_and_the_cli_write_at_once_and_lose_nothing(dream, repo, dream_home):
    """An agent writing notes through `dream mcp` while the user writes from the command
    line (two processes, one store): every note lands in its own commit, none is swept
    into another's, and the store is clean."""
    import threading

    dream("init")
    store = dream_home / "notes"
    before = len(commits(store))
    server = subprocess.Popen([sys.executable, "-m", "dream", "mcp"], cwd=repo, text=True,
                              env={**os.environ, **ENV}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def rpc(n: int, method: str, params: dict) -> dict:
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                       "params": params}) + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())

    rpc(0, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "1"}})
    cli_codes: list[int] = []

    def cli() -> None:
        for i in range(5):
            proc = subprocess.run([sys.executable, "-m", "dream", "notes", "write",
                                   f"@user/cli-{i}", f"from the shell {i}"], cwd=repo,
                                  env={**os.environ, **ENV}, capture_output=True, text=True,
                                  timeout=120)
            cli_codes.append(proc.returncode)

    thread = threading.Thread(target=cli)
    thread.start()
    answers = [rpc(i + 1, "tools/call", {"name": "notes_write", "arguments": {
        "address": f"@user/mcp-{i}", "text": f"from the agent {i}"}}) for i in range(5)]
    thread.join(timeout=180)
    server.stdin.close()
    server.wait(timeout=30)
    assert cli_codes == [0] * 5
    assert not any(a["result"].get("isError") for a in answers), answers
    subjects = commits(store)[:len(commits(store)) - before]
    assert sorted(subjects) == sorted([f"Write note @user/cli-{i}.md" for i in range(5)] +
                                      [f"Write note @user/mcp-{i}.md" for i in range(5)])
    for i in range(5):
        assert f"from the agent {i}" in git(store, "show", f"HEAD:user/mcp-{i}.md")
        assert f"from the shell {i}" in git(store, "show", f"HEAD:user/cli-{i}.md")
    assert git(store, "status", "--porcelain") == ""
    fsck_clean(store)


def test_attaching_a_team_remote_waits_for_a_writer_and_keeps_its_change(
        dream, repo, dream_home, tmp_path):
    """'stores attach --remote' saved store.toml from the copy it read before, without
    the store's write lock: a project that 'dream init' added meanwhile (init holds the
    lock and saves its own copy) was lost, or its commit raced a run's. It now waits for
    the lock and records the remote on store.toml as it is then."""
    dream("init")
    team = tmp_path / "team"
    dream("stores", "attach", str(team), "--create")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time; from dream.store.lock import write_lock\n"
         "from dream.store.store import Store\n"
         f"with write_lock({str(team)!r}, 'dream init'):\n"
         f"    store = Store.load({str(team)!r})\n"
         "    print('held', flush=True); time.sleep(1.5)\n"
         "    store.add_project('other-1234abcd', 'other', primary=True)\n"
         "    store.save(subject='Manage project other')\n"],
        env={**os.environ, **ENV}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        proc = subprocess.run(
            [sys.executable, "-m", "dream", "stores", "attach", str(team), "--remote",
             "https://git.example.com/team.git"], cwd=repo, capture_output=True, text=True,
            env={**os.environ, **ENV, "DREAM_LOCK_WAIT": "30"}, timeout=60)
        assert proc.returncode == 0, proc.stderr
    finally:
        holder.wait(timeout=30)
    assert holder.returncode == 0
    from dream.store.store import Store

    store = Store.load(team)
    assert store.remote == "https://git.example.com/team.git"
    assert store.project_name("other-1234abcd") == "other"
    assert commits(team)[:2] == ["Record team remote", "Manage project other"]
    assert git(team, "status", "--porcelain") == ""


def test_stores_attached_and_detached_at_once_are_all_kept(dream, repo, dream_home, tmp_path):
    """config.toml was saved from the copy each command read when it began: four
    'dream stores attach' at once left one store attached. Each now changes the file as it
    is, under the notes home's write lock; detaching at once forgets every one."""
    dream("init")
    paths = [tmp_path / f"team{n}" for n in range(4)]
    results = finish([spawn("stores", "attach", str(p), "--create", cwd=repo) for p in paths])
    assert all(code == 0 for code, _, _ in results), results
    from dream.config import Config

    assert sorted(Config.load(dream_home / "config.toml").store_paths) == \
        sorted(p.resolve() for p in paths)
    results = finish([spawn("stores", "detach", p.name, cwd=repo) for p in paths])
    assert all(code == 0 and "Traceback" not in err for code, _, err in results), results
    assert Config.load(dream_home / "config.toml").store_paths == []
    assert sorted(p.name for p in dream_home.iterdir()) == ["config.toml", "dream.db", "notes"]
