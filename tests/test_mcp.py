"""A real MCP client (the SDK's stdio client) against `python -m dream mcp`; the shutdown
tests drive the server line by line instead, so they can signal it and wait on its exit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest
from conftest import GIT_IDENTITY, REPO_ROOT, git
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HIDDEN = {"dream_begin", "dream_forget", "dream_end"}


def server_params(repo: Path, home: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": str(REPO_ROOT / "src"), "DREAM_HOME": str(home), **GIT_IDENTITY}
    return StdioServerParameters(command=sys.executable, args=["-m", "dream", "mcp"],
                                 env=env, cwd=str(repo))


async def call(client: ClientSession, tool_name: str, **args):
    result = await client.call_tool(tool_name, args)
    text = result.content[0].text if result.content else ""
    if result.is_error:
        return None, text
    return json.loads(text), None


async def ok(client: ClientSession, tool_name: str, **args):
    data, err = await call(client, tool_name, **args)
    assert err is None, f"{tool_name} failed: {err}"
    return data


@pytest.fixture
def initialised(repo, dream_proc, dream_home):
    assert dream_proc("init", cwd=repo).returncode == 0
    return repo, dream_home


def test_client_writes_finds_dreams_forgets_and_sees_commits(initialised):
    repo, home = initialised

    async def scenario():
        async with stdio_client(server_params(repo, home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = {t.name: t for t in (await session.list_tools()).tools}
                assert {"notes_write", "notes_find", "notes_show", "notes_list",
                        "notes_update", "notes_crumple", "tool_search",
                        "memory_search"} <= set(listed)
                assert not HIDDEN & set(listed)
                assert listed["notes_show"].annotations.read_only_hint is True
                assert listed["notes_update"].annotations.destructive_hint is True
                assert listed["notes_write"].input_schema["required"] == ["address", "text"]

                await ok(session, "notes_write", address="@projects/proj/deploy.md",
                         text="# Deploy\n\nRun the blue-green script before tagging.\n")
                await ok(session, "notes_write", address="@projects/proj/old-tip.md",
                         text="Use the legacy deploy script.\n")
                found = await ok(session, "notes_find", query="blue-green", per_page=5)
                assert [h["address"] for h in found["hits"]] == ["@projects/proj/deploy.md"]
                await ok(session, "notes_crumple", address="@projects/proj/old-tip.md")
                listed_notes = await ok(session, "notes_list", prefix="@projects/proj",
                                        status="crumpled")
                assert [n["address"] for n in listed_notes["notes"]] == \
                    ["@projects/proj/old-tip.md"]

                # dream tools are hidden, found by tool_search, then callable
                search = await ok(session, "tool_search", query="dream")
                names = [t["name"] for t in search["tools"]]
                assert HIDDEN <= set(names)
                begin_schema = next(t for t in search["tools"] if t["name"] == "dream_begin")
                assert begin_schema["inputSchema"]["type"] == "object"
                began = await ok(session, "dream_begin")
                assert began["project"] == "proj"
                assert {n["address"] for n in began["notes"]} >= {
                    "@projects/proj/deploy.md", "@projects/proj/old-tip.md"}
                assert Path(began["lock"]).exists()
                # other projects stay read-only while the dream is open
                _, scope_err = await call(session, "notes_write",
                                          address="@projects/other/x.md", text="x")
                assert scope_err and "outside the open dream" in scope_err
                # a second dream in the same session is refused with what to do
                _, twice = await call(session, "dream_begin")
                assert twice and "dream_end" in twice
                # a live note refuses to be forgotten, with a sentence saying what to do
                _, err = await call(session, "dream_forget", address="@projects/proj/deploy.md")
                assert err and "crumple" in err
                forgot = await ok(session, "dream_forget", address="@projects/proj/old-tip.md")
                assert forgot["forgotten"] == "@projects/proj/old-tip.md"
                ended = await ok(session, "dream_end")
                assert ended["commit"] and not Path(began["lock"]).exists()
                return began, ended

    began, ended = anyio.run(scenario)
    notes = home / "notes"
    assert not (notes / "projects/proj/old-tip.md").exists()
    log = git(notes, "log", "--format=%H %s")
    assert ended["commit"] == log.splitlines()[0].split()[0]
    body = git(notes, "show", "-s", "--format=%B", ended["commit"])
    assert f"Dream-Run: {began['run_id']}" in body
    removed = git(notes, "show", "--name-status", "--format=", ended["commit"])
    assert "D\tprojects/proj/old-tip.md" in removed
    subjects = git(notes, "log", "--format=%s")
    assert "Dream baseline for proj" in subjects


def test_hostile_address_and_bad_arguments_are_clean_tool_errors(initialised):
    repo, home = initialised

    async def scenario():
        async with stdio_client(server_params(repo, home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                errors = []
                for address in ("@projects/../../../etc/passwd", "/etc/passwd",
                                "@user/.git/config", "@projects/proj/a\x00b"):
                    _, err = await call(session, "notes_show", address=address)
                    errors.append(err)
                _, missing = await call(session, "notes_write", address="@user/x")
                await ok(session, "notes_write", address="@user/y.md", text="y\n")
                _, exists = await call(session, "notes_write", address="@user/y.md", text="z")
                errors.append(exists)
                _, typed = await call(session, "notes_find", query="x", page="two")
                _, unknown = await call(session, "no_such_tool")
                _, no_dream = await call(session, "dream_end")
                return errors, missing, typed, unknown, no_dream

    errors, missing, typed, unknown, no_dream = anyio.run(scenario)
    for err in errors:
        assert err and "Traceback" not in err and err.endswith(".")
    assert "address" in errors[0]
    assert "needs the argument 'text'" in missing
    # the fix is named as a tool and an argument, not as a command line and a flag
    assert "notes_update" in errors[-1] and "replace=true" in errors[-1]
    assert "dream notes" not in errors[-1] and "--" not in errors[-1]
    assert "must be an integer" in typed
    assert "tool_search" in unknown
    assert "dream_begin" in no_dream
    assert not (home / "notes" / "etc").exists()


class RawServer:
    """``python -m dream mcp`` driven line by line (JSON-RPC over its stdin/stdout), so a
    test holds the process itself: it can signal it and wait on its exit."""

    def __init__(self, repo: Path, home: Path, env: dict[str, str] | None = None) -> None:
        import subprocess

        params = server_params(repo, home)
        self.proc = subprocess.Popen([params.command, *params.args], cwd=repo, text=True,
                                     env={**os.environ, **params.env, **(env or {})},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 1
        self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "0"}})
        self.reply(1)
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0",
                                          "method": "notifications/initialized"}) + "\n")

    def send(self, method: str, params: dict) -> int:
        msg_id, self.next_id = self.next_id, self.next_id + 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return msg_id

    def reply(self, msg_id: int) -> dict:
        for line in self.proc.stdout:
            answer = json.loads(line)
            if answer.get("id") == msg_id:
                return answer
        raise AssertionError(f"the server ended before answering request {msg_id}")

    def call(self, tool: str, **args) -> dict:
        answer = self.reply(self.send("tools/call", {"name": tool, "arguments": args}))
        assert answer["result"]["isError"] is False, answer
        return json.loads(answer["result"]["content"][0]["text"])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:      # stdin's last flush into a server that is gone
                pass


def test_sigterm_mid_dream_releases_the_lock(initialised):
    repo, home = initialised
    lock = home / "notes" / ".dream.lock.proj"
    server = RawServer(repo, home)
    try:
        server.call("notes_write", address="@projects/proj/a.md", text="a\n")
        began = server.call("dream_begin")
        server.call("notes_update", address="@projects/proj/a.md", text="b\n")
        assert began["project"] == "proj"
        assert json.loads(lock.read_text())["pid"] == server.proc.pid
        os.kill(server.proc.pid, signal.SIGTERM)
        # wait on the server's exit, not on a clock: on a loaded machine the server may
        # need more than any fixed deadline to run its handler (the timeout only stops a
        # hang). 128 + SIGTERM says the handler ran; -SIGTERM would be the bare default.
        assert server.proc.wait(timeout=300) == 128 + signal.SIGTERM
    finally:
        server.close()
    assert not lock.exists()
    notes = home / "notes"
    # shutdown releases without the final commit: the edit is left uncommitted
    assert "Dream over proj" not in git(notes, "log", "--format=%s")
    assert (notes / "projects/proj/a.md").read_text().strip().endswith("b")


def test_sigterm_while_dream_begin_commits_leaves_no_lock(initialised, tmp_path):
    """A stop that lands inside dream_begin (lock taken, baseline commit running) unwinds
    the call: the lock it took goes with it, instead of a stale lock naming a dead server."""
    repo, home = initialised
    lock = home / "notes" / ".dream.lock.proj"
    mark = tmp_path / "baseline-started"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real_git = shutil.which("git")
    wrapper = bin_dir / "git"
    # the baseline commit's ref update stalls (as a slow disk would) and says it started
    wrapper.write_text("#!/bin/sh\n"
                       'case "$*" in *"Dream baseline"*) touch "$MARK"; exec sleep 300;; esac\n'
                       f'exec "{real_git}" "$@"\n')
    wrapper.chmod(0o755)
    server = RawServer(repo, home, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                                    "MARK": str(mark)})
    try:
        server.send("tools/call", {"name": "dream_begin", "arguments": {}})
        deadline = time.monotonic() + 300           # a hang guard, not a measure
        while not mark.exists() and time.monotonic() < deadline:
            assert server.proc.poll() is None, "the server ended before the baseline commit"
            time.sleep(0.05)
        assert lock.exists()
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(timeout=300) == 128 + signal.SIGTERM
    finally:
        server.close()
    assert not lock.exists()


def test_stdin_eof_mid_dream_releases_the_lock(initialised):
    repo, home = initialised
    server = RawServer(repo, home)
    try:
        assert server.call("dream_begin")["project"] == "proj"
        assert (home / "notes" / ".dream.lock.proj").exists()
        server.proc.stdin.close()                # the client goes away: EOF
        assert server.proc.wait(timeout=30) == 0
    finally:
        server.close()
    assert not (home / "notes" / ".dream.lock.proj").exists()
    assert "Dream over proj" not in git(home / "notes", "log", "--format=%s")


@pytest.mark.shared_data
def test_history_memory_and_review_tools(initialised, dream_proc, tmp_path):
    repo, home = initialised
    from conftest import SHARED_DATA

    transcript = tmp_path / "t.jsonl"
    shutil.copy(SHARED_DATA / "claude_code" / "spotter__short.jsonl", transcript)
    assert dream_proc("collect", str(transcript), cwd=repo).returncode == 0

    async def scenario():
        async with stdio_client(server_params(repo, home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"history_search", "history_show", "memory_search", "memory_read",
                        "memory_context", "review_prepare", "review_proposals"} <= names
                streams = await ok(session, "history_search", query="the", per_page=2)
                assert streams["total"] > 0 and len(streams["hits"]) <= 2
                stream = streams["hits"][0]["stream"]
                page = await ok(session, "history_show", session=stream, per_page=3)
                assert page["stream"] == stream and len(page["items"]) <= 3
                assert page["has_more"] == (page["pages"] > 1)
                await ok(session, "notes_write", address="@projects/proj/db.md",
                         text="Postgres runs on port 5433 in development.\n")
                hits = await ok(session, "memory_search", query="postgres port")
                assert hits["hits"][0]["path"] == "projects/proj/db.md"
                doc = await ok(session, "memory_read", path=hits["hits"][0]["path"],
                               commit=hits["hits"][0]["commit"])
                assert "5433" in doc["content"]
                snap = await ok(session, "memory_context", objective="postgres port")
                assert snap["documents"][0]["path"] == "projects/proj/db.md"
                _, two = await call(session, "review_prepare", learned=["a", "b"],
                                    handoff="open work")
                prepared = await ok(session, "review_prepare",
                                    learned=["one", "two", "three"], handoff="Open work: x.")
                _, none = await call(session, "review_proposals")
                return None, two, prepared, none

    _, two, prepared, none = anyio.run(scenario)
    assert two and "three" in two
    assert prepared["learned"] == ["one", "two", "three"]
    assert none and none.endswith(".") and "Traceback" not in none


def test_project_dir_comes_from_claude_project_dir(initialised, tmp_path):
    repo, home = initialised
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    params = server_params(repo, home)
    params = StdioServerParameters(command=params.command, args=params.args, cwd=str(elsewhere),
                                   env={**params.env, "CLAUDE_PROJECT_DIR": str(repo)})

    async def scenario():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                began = await ok(session, "dream_begin")
                await ok(session, "dream_end")
                return began

    assert anyio.run(scenario)["project"] == "proj"


def test_batches_and_invalid_requests_are_answered_never_left_hanging(initialised):
    # JSON-RPC 2.0 (and MCP 2025-03-26, which the server accepts) lets a client send a
    # batch: an array answered by an array. Junk that is JSON but no request gets an
    # Invalid Request error, so a client never waits for an answer that will not come.
    repo, home = initialised
    import subprocess

    ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    lines = [json.dumps([ping, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                         {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                          "params": {"name": "notes_list",
                                     "arguments": {"prefix": "@user/", "page": 0}}}]),
             "[]", "42", json.dumps([{"jsonrpc": "2.0", "method": "notifications/x"}]),
             json.dumps(ping)]
    params = server_params(repo, home)
    proc = subprocess.run([params.command, *params.args], cwd=repo, text=True,
                          env={**os.environ, **params.env}, capture_output=True,
                          input="\n".join(lines) + "\n", timeout=60)
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(replies) == 4, replies           # the batch of notifications gets nothing
    batch, empty, scalar, last = replies
    assert [r["id"] for r in batch] == [7, 8] and batch[0]["result"] == {}
    listed = batch[1]["result"]
    assert listed["isError"] is True
    assert listed["content"][0]["text"] == ("argument 'page' of notes_list must be between 1 "
                                            "and 1000000. fix the value.")
    for bad in (empty, scalar):
        assert bad["id"] is None and bad["error"]["code"] == -32600
    assert last == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_json_nested_too_deeply_is_a_parse_error_not_the_servers_end(initialised):
    """A line of 100,000 '[' (JSON Python cannot read without a RecursionError) ended the
    server with a traceback, and every later request went unanswered."""
    repo, home = initialised
    import subprocess

    ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    params = server_params(repo, home)
    proc = subprocess.run([params.command, *params.args], cwd=repo, text=True,
                          env={**os.environ, **params.env}, capture_output=True,
                          input="[" * 100_000 + "]" * 100_000 + "\n" + json.dumps(ping)
                          + "\n", timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    deep, last = [json.loads(line) for line in proc.stdout.splitlines()]
    assert deep["id"] is None and deep["error"]["code"] == -32700
    assert last == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_half_an_emoji_from_the_client_never_ends_the_server(initialised):
    # a JavaScript client that cuts a string inside an emoji sends a lone "\ud83d": the
    # server wrote it back in its error text, could not encode its own reply and died,
    # taking every tool with it for the rest of the session
    repo, home = initialised
    import subprocess

    def call(n, name, **args):
        return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                           "params": {"name": name, "arguments": args}})

    lines = [call(1, "notes_write", address="@user/emoji", text="half \ud83d here"),
             call(2, "notes_write", address="@user/e\ud83d", text="x"),
             call(3, "notes_find", query="half \ud83d"),
             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"})]
    assert "\\ud83d" in lines[0]                 # the escape, as the client sends it
    params = server_params(repo, home)
    proc = subprocess.run([params.command, *params.args], cwd=repo, text=True,
                          env={**os.environ, **params.env}, capture_output=True,
                          input="\n".join(lines) + "\n", timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    assert sorted(replies) == [1, 2, 3, 4]
    assert replies[1]["result"]["isError"] is False
    assert (home / "notes" / "user" / "emoji.md").read_text(encoding="utf-8").endswith(
        "half \ufffd here\n")
    assert replies[2]["result"]["isError"] is True
    assert "forbidden name" in replies[2]["result"]["content"][0]["text"]
    assert replies[4]["result"] == {}


def test_an_agent_cannot_replace_the_brief_through_notes_write(initialised):
    """notes_write with replace=true at a brief.md made the agent's text the brief every
    later session starts with, past the person's review; it is a clean tool error now."""
    repo, home = initialised
    brief = home / "notes" / "projects" / "proj" / "brief.md"
    brief.parent.mkdir(parents=True)
    brief.write_text("# Brief: projects/proj\n")
    git(home / "notes", "add", "projects/proj/brief.md")
    git(home / "notes", "commit", "-qm", "a brief a run rendered")

    async def scenario():
        async with stdio_client(server_params(repo, home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                _, replaced = await call(session, "notes_write",
                                         address="@projects/proj/brief.md",
                                         text="Skip the tests.", replace=True)
                _, updated = await call(session, "notes_update",
                                        address="@projects/proj/brief", text="Skip them.")
                return replaced, updated

    for err in anyio.run(scenario):
        assert err and "is the brief Dream renders" in err and "Traceback" not in err
    assert brief.read_text() == "# Brief: projects/proj\n"
