"""The corpus test: every planted kind through every door, then every byte looked at.

Each kind of tests/secret_corpus.py is planted in each of the seven source formats (the
text of user turns, tool calls with escaped quotes, tool results, other people's messages)
and in the other fields (author, stream, recipients, cwd, Git branch, tool name), typed in
through every direct door (notes write and update from the CLI and a real MCP client,
``correct``, ``prepare``, a hook payload, review accept), sent to a model through the
local OpenAI-compatible server, and dreamed over offline. Then each secret is looked for
in every file and file name under DREAM_HOME (``dream.db``, its WAL, logs, store files),
every git object of every store, every captured prompt and every command's output.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import zipfile
from pathlib import Path

from conftest import GIT_IDENTITY
from fake_servers import FakeOpenAIServer
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from secret_corpus import Plant, field_secrets, plants
from test_mcp import ok, server_params


def _lines(objs: list[dict]) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def plant_sources(folder: Path, cwd: str) -> dict[str, Path]:
    """One file per source format, each carrying every kind (as directives, so that a dream
    turns them into memory) and the field secrets in the fields each format has."""
    corpus = plants()
    fields = {k: p.secret for k, p in field_secrets().items()}
    texts = [f"From now on, remember {p.text}" for p in corpus]
    files: dict[str, Path] = {}
    bad_cwd = f"{cwd}/{fields['cwd']}"
    cc = [{"type": "user", "sessionId": "cc-1", "cwd": bad_cwd, "gitBranch":
           f"feature/{fields['branch']}", "uuid": f"u{i}", "timestamp": "2026-03-01T10:00:00Z",
           "message": {"role": "user", "content": t}} for i, t in enumerate(texts)]
    for i, t in enumerate(texts):  # tool calls (arguments with escaped quotes) and results
        cc.append({"type": "assistant", "sessionId": "cc-1", "uuid": f"a{i}", "message": {
            "role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}",
                                              "name": f"Bash_{fields['tool']}",
                                              "input": {"command": json.dumps({"cmd": t})}}]}})
        cc.append({"type": "user", "sessionId": "cc-1", "uuid": f"r{i}", "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                         "content": t, "is_error": True}]}})
    files["claude_code"] = folder / "cc.jsonl"
    files["claude_code"].write_text(_lines(cc))
    pi = [{"type": "session", "version": 3, "id": "pi-1", "cwd": bad_cwd,
           "timestamp": "2026-03-01T10:00:00Z"}]
    pi += [{"type": "message", "id": f"e{i}", "parentId": None,
            "timestamp": "2026-03-01T10:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": t}]}}
           for i, t in enumerate(texts)]
    files["pi"] = folder / "pi.jsonl"
    files["pi"].write_text(_lines(pi))
    codex = [{"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
              "payload": {"id": "cx-1", "cwd": bad_cwd}}]
    codex += [{"timestamp": "2026-03-01T10:00:01Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": t}} for t in texts]
    codex += [{"timestamp": "2026-03-01T10:00:02Z", "type": "response_item",
               "payload": {"type": "function_call_output", "call_id": "c1", "output": t}}
              for t in texts]
    files["codex"] = folder / "rollout-x.jsonl"
    files["codex"].write_text(_lines(codex))
    files["jsonl"] = folder / "chat.jsonl"
    files["jsonl"].write_text(_lines(
        [{"text": t, "author": f"Jordan {fields['author']}", "role": "other",
          "to": [f"Sam {fields['recipient']}"], "stream": f"ops-{fields['stream']}",
          "tool": f"t-{fields['tool']}", "cwd": bad_cwd} for t in texts]
        + [{"text": t, "role": "user", "stream": "me"} for t in texts]))
    mbox = b""
    for i, t in enumerate(texts):
        mbox += (f"From jordan@example.com Mon Mar  9 10:00:0{i % 10} 2026\n"
                 f"Message-ID: <s{i}@example.com>\n"
                 f"From: Jordan {fields['author']} <jordan@example.com>\n"
                 f"To: Sam {fields['recipient']} <sam@example.com>\n"
                 f"Subject: creds {i}\n\n>{t}\n\n").encode()  # mboxrd: '>From ' escapes
    files["mbox"] = folder / "mail.mbox"
    files["mbox"].write_bytes(mbox)
    files["slack"] = folder / "slack.zip"
    with zipfile.ZipFile(files["slack"], "w") as archive:
        archive.writestr("users.json", json.dumps(
            [{"id": "U1", "name": "jordan", "real_name": f"Jordan {fields['author']}"}]))
        archive.writestr("ops/2026-03-01.json", json.dumps(
            [{"type": "message", "user": "U1", "text": t, "ts": f"1772000000.{i:06d}"}
             for i, t in enumerate(texts)]))
    chat = "".join(f"01/03/2026, 10:{i:02d} - Jordan {fields['author']}: {t}\n"
                   for i, t in enumerate(texts))
    files["textchat"] = folder / "WhatsApp Chat with Jordan.txt"
    files["textchat"].write_text(chat)
    return files


def _variants(secret: str) -> set[bytes]:
    """Forms a leak could take: as is, JSON-escaped, lower-cased, slugged, and each long
    line or alphanumeric run of it (a clipped or re-wrapped copy)."""
    out = {secret, json.dumps(secret)[1:-1]}
    out |= {line for line in secret.splitlines() if len(line) >= 16}
    out |= {run for run in re.findall(r"[A-Za-z0-9]{12,}", secret)}
    if len(secret) >= 12:
        out.add(re.sub(r"[^a-z0-9]+", "-", secret.lower()).strip("-"))
    return {v.lower().encode() for v in out if len(v) >= 8 or v == secret}


def _store_objects(home: Path) -> dict[str, bytes]:
    """Every git object of every git repository under DREAM_HOME (trees hold file names)."""
    out = {}
    for git_dir in home.rglob(".git"):
        repo = git_dir.parent
        out[f"git objects of {repo}"] = subprocess.run(
            ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
            capture_output=True, check=True).stdout
    return out


def _everything(home: Path) -> dict[str, bytes]:
    blobs = {str(p): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    blobs["file names"] = "\n".join(str(p) for p in home.rglob("*")).encode()
    blobs.update(_store_objects(home))
    return blobs


def leaks(secrets: list[Plant], places: dict[str, bytes]) -> list[tuple[str, str]]:
    lowered = {where: data.lower() for where, data in places.items()}
    found = []
    for plant in secrets:
        for variant in _variants(plant.secret):
            for where, data in lowered.items():
                if variant in data:
                    found.append((plant.kind, where))
    return sorted(set(found))


def _mcp_writes(repo: Path, home: Path, texts: list[str]) -> list[str]:
    async def scenario() -> list[str]:
        outputs = []
        async with stdio_client(server_params(repo, home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                outputs.append(json.dumps(await ok(
                    session, "notes_write", address="@user/mcp-secrets.md",
                    text="# From MCP\n\n" + "\n".join(texts))))
                outputs.append(json.dumps(await ok(
                    session, "notes_update", address="@user/mcp-secrets.md",
                    text="\n".join(reversed(texts)), append=True)))
                shown = await ok(session, "notes_show", address="@user/mcp-secrets.md")
                outputs.append(json.dumps(shown))
        return outputs
    return asyncio.run(scenario())


def test_no_planted_kind_leaks_through_any_door(dream, dream_proc, repo: Path, tmp_path: Path,
                                                dream_home: Path, monkeypatch) -> None:
    corpus = plants()
    everything = corpus + list(field_secrets().values())
    assert len(corpus) >= 40
    outputs: dict[str, str] = {}

    def cli(*args: str, ok_: bool = True, input: str | None = None) -> str:
        result = dream(*args, ok=ok_, input=input)
        outputs[f"dream {' '.join(args)[:60]} #{len(outputs)}"] = result.output
        return result.output

    cli("init")
    folder = tmp_path / "planted"
    folder.mkdir()
    files = plant_sources(folder, str(repo.resolve()))
    report = json.loads(cli("collect", "--json", str(folder)))
    assert report["skipped"] == 0, report["skipped_items"]
    assert set(report["by_source"]) == set(files)
    assert report["redacted"] >= len(corpus) * len(files)

    # a hook payload whose session, cwd and transcript path carry secrets; the transcript
    # sits in a folder named after a secret-bearing cwd, as Claude Code names them
    fields = field_secrets()
    hook_dir = tmp_path / "claude-projects" / f"-home-me-{fields['cwd'].secret}"
    hook_dir.mkdir(parents=True)
    # the hook reads transcripts only under the agents' session folders
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(tmp_path / "claude-projects"))
    transcript = hook_dir / "session.jsonl"
    # (in the repository itself, so a review of this project has the evidence)
    bad_cwd = f"{repo.resolve()}/{fields['cwd'].secret}"
    transcript.write_text(files["claude_code"].read_text().replace("cc-1", "cc-hook")
                          .replace('"uuid": "', '"uuid": "hook-')
                          .replace(json.dumps(bad_cwd)[1:-1], str(repo.resolve())))
    payload = {"session_id": f"s-{fields['stream'].secret}", "hook_event_name": "Stop",
               "cwd": str(repo), "transcript_path": str(transcript)}
    cli("hook", "--agent", "claude-code", "--json", input=json.dumps(payload))
    cli("collect", str(transcript))  # from a folder named after a secret

    # direct doors: notes (CLI and MCP), prepare, and the address refused
    texts = [p.text for p in corpus]
    cli("notes", "write", "@user/typed-secrets.md", "# Typed\n\n" + "\n".join(texts))
    cli("notes", "update", "@user/typed-secrets.md", "\n".join(texts[::-1]), "--append")
    refused = dream("notes", "write", f"@user/{corpus[0].secret}.md", "x", ok=False)
    outputs["refused address"] = refused.output
    assert refused.exit_code != 0
    outputs.update({f"mcp {i}": o for i, o in enumerate(_mcp_writes(repo, dream_home, texts))})
    handoff = tmp_path / "handoff.md"
    handoff.write_text("Open work:\n" + "\n".join(texts))
    cli("prepare", "--learned", corpus[1].text, "--learned", corpus[2].text,
        "--learned", corpus[3].text, "--handoff", str(handoff))

    # a dream through the OpenAI protocol: every prompt is captured by the local server
    with FakeOpenAIServer(auto=True) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        cli("run", "--model", "openai:gpt-4o-mini", "--json")
        prompts = {f"prompt {i}": json.dumps(r.body).encode()
                   for i, r in enumerate(server.requests)}
    assert prompts
    # then offline, over the same evidence, so memory (notes, brief) is written from it
    cli("run", "--model", "rules", "--redo", "--json")
    notes = dream_home / "notes"
    records = subprocess.run(["git", "ls-files"], cwd=notes, capture_output=True, text=True,
                             check=True).stdout.split()
    assert any("[REDACTED:" in (notes / r).read_text() for r in records)

    # correct a record with a secret value
    record = next(r for r in records if re.search(r"/(notes|wiki|todos|events)/", r))
    address = "@" + record.removesuffix(".md")
    cli("correct", address, "text", corpus[4].text)
    # review: start offline, accept every proposal
    start = json.loads(cli("review", "start", "--model", "rules", "--all", "--json"))
    slugs = [p["slug"] for p in start.get("proposals", []) if p.get("kind") == "memory"]
    assert slugs, start
    accepted = json.loads(cli("review", "accept", *slugs, "--json"))
    assert any(a.get("status") == "accepted" for a in accepted), accepted
    # no file is named after a redacted span
    named = [p for p in dream_home.rglob("*") if "redacted" in p.name.lower()]
    assert not named, named
    places = {**_everything(dream_home), **prompts,
              **{k: v.encode() for k, v in outputs.items()}}
    found = leaks(everything, places)
    assert not found, "\n".join(f"{kind} leaked into {where}" for kind, where in found)
    # the placeholders did reach every kind of place: the test looked where memory went
    assert b"[REDACTED:" in places[f"git objects of {notes}"]
    assert any(b"[redacted:" in v.lower() for k, v in prompts.items())


def test_the_scan_finds_a_leak_when_there_is_one(tmp_path: Path) -> None:
    plant = plants()[0]
    (tmp_path / "x.txt").write_text(f"oops {plant.secret}")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=tmp_path, check=True,
                   env={**GIT_IDENTITY, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    (tmp_path / "x.txt").write_text("clean")
    places = _store_objects(tmp_path)
    assert leaks([plant], places) == [(plant.kind, f"git objects of {tmp_path}")]
