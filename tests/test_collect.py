"""dream collect: spool, gate, watermark, entities and bad input, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest
from conftest import SHARED_DATA


def items(home: Path, where: str = "1=1", params: tuple = ()) -> list[sqlite3.Row]:
    conn = sqlite3.connect(home / "dream.db")
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(f"SELECT * FROM items WHERE {where} ORDER BY seq", params).fetchall()
    finally:
        conn.close()


def collect_json(dream, *args: str, ok: bool = True) -> dict:
    result = dream("collect", "--json", *args, ok=ok)
    return json.loads(result.output)


@pytest.fixture
def home(dream, repo, dream_home: Path) -> Path:
    dream("init")
    return dream_home


@pytest.mark.shared_data
def test_collect_real_samples_then_nothing_new(dream, home: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(SHARED_DATA / "claude_code", data / "claude_code")
    shutil.copytree(SHARED_DATA / "pi", data / "pi")
    shutil.copytree(SHARED_DATA / "messages", data / "messages")
    first = collect_json(dream, str(data))
    rows = items(home)
    assert first["new_items"] == len(rows) > 2500
    # the sanitiser of one real M-Claude session broke two of its lines: each is one
    # counted skip with its file:line, and every other line is read
    assert first["files_failed"] == 0 and first["skipped"] == 2
    assert sorted((Path(s["file"]).name, s["line"]) for s in first["skipped_items"]) == [
        ("M-Thisness__M-Claude__3af9b1a7-6512-4883-ad18-320658ced099.jsonl", 424),
        ("M-Thisness__M-Claude__3af9b1a7-6512-4883-ad18-320658ced099.jsonl", 513)]
    assert first["by_source"] == {"claude_code": 1329, "pi": 2311, "slack": 158}
    assert first["evidence"] == sum(r["evidence"] for r in rows)
    # the gate: only statements, others' messages and tool results are evidence
    for row in rows:
        assert row["evidence"] == (row["kind"] in ("statement", "message", "tool_result"))
        assert row["role"] in ("user", "assistant", "tool", "other", "system")
    assert all(r["evidence"] == 0 for r in rows if r["role"] == "assistant")
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids)
    again = collect_json(dream, str(data))
    assert again["new_items"] == 0 and again["duplicates"] == 0
    assert again["files_unchanged"] == again["files"] == first["files"]
    assert len(items(home)) == len(rows)


def test_final_line_without_newline_is_read_once_and_growth_keeps_line_numbers(
        dream, home: Path, tmp_path: Path) -> None:
    """A finished transcript may end without a newline (the Entire CLI's do): a whole JSON
    object there is read; a truncated one waits; lines appended later keep their numbers."""
    def line(n: int) -> bytes:
        return json.dumps({"text": f"note number {n} about the parser", "id": f"m{n}",
                           "time": f"2026-03-01T09:0{n}:00Z"}).encode()

    path = tmp_path / "chat.jsonl"
    path.write_bytes(line(1) + b"\n" + line(2))
    first = collect_json(dream, "--source", "jsonl", str(path))
    assert first["new_items"] == 2 and first["skipped"] == 0
    with open(path, "ab") as handle:
        handle.write(b"\n" + line(3) + b"\n" + line(4)[:20])  # the 4th is half-written
    second = collect_json(dream, "--source", "jsonl", str(path))
    assert second["new_items"] == 1 and second["skipped"] == 0
    refs = [r["ref"].rsplit(":", 1)[-1] for r in items(home)]
    assert refs == ["1", "2", "3"]
    with open(path, "ab") as handle:
        handle.write(line(4)[20:] + b"\n")
    third = collect_json(dream, "--source", "jsonl", str(path))
    assert third["new_items"] == 1
    assert [r["ref"].rsplit(":", 1)[-1] for r in items(home)] == ["1", "2", "3", "4"]


@pytest.mark.shared_data
def test_grown_file_adds_only_new_lines_and_waits_for_partial_line(
        dream, home: Path, tmp_path: Path) -> None:
    source = (SHARED_DATA / "claude_code" / "spotter__tool_heavy.jsonl").read_bytes()
    lines = source.splitlines(keepends=True)
    path = tmp_path / "sess.jsonl"
    path.write_bytes(b"".join(lines[:8]))  # the Bash tool_use (line 5), not its result
    first = collect_json(dream, str(path))
    count = len(items(home))
    assert first["new_items"] == count > 0
    # the file is being written: half a line arrives
    with open(path, "ab") as handle:
        handle.write(b"".join(lines[8:20]) + lines[20][:40])
    second = collect_json(dream, str(path))
    assert second["skipped"] == 0  # the partial line is not an error, just not yet read
    after_second = items(home)
    assert len(after_second) == count + second["new_items"]
    assert not any(r["ref"].endswith(":21") for r in after_second)
    # the result on line 11 knows its tool from the call collected the time before
    result = [r for r in after_second if r["ref"].endswith(":11")]
    assert [(r["tool_name"], r["is_error"], r["kind"]) for r in result] == [
        ("Bash", 0, "tool_result")]
    with open(path, "ab") as handle:
        handle.write(lines[20][40:] + b"".join(lines[21:]))
    third = collect_json(dream, str(path))
    rows = items(home)
    assert len(rows) == len(after_second) + third["new_items"]
    # every record of the file is there once, exactly as a one-go read gives it
    from test_sources import read
    once, _ = read(path, "claude_code")
    assert sorted(r["ref"] for r in rows) == sorted(m.ref for m in once)
    conn = sqlite3.connect(home / "dream.db")
    marks = conn.execute("SELECT size, lines FROM source_files WHERE path=?",
                         (str(path.resolve()),)).fetchone()
    conn.close()
    assert marks == (len(source), len(lines))
    assert collect_json(dream, str(path))["files_unchanged"] == 1


def test_replaced_and_truncated_files_are_reread_without_duplicates(
        dream, home: Path, tmp_path: Path) -> None:
    lines = [json.dumps({"text": f"line {i}", "id": f"m{i}", "stream": "s"}) + "\n"
             for i in range(10)]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(lines))
    assert collect_json(dream, "--source", "jsonl", str(path))["new_items"] == 10
    # truncated to fewer lines then grown with new ones: re-read from the start
    path.write_text("".join(lines[:3]) + json.dumps({"text": "new", "id": "n1",
                                                      "stream": "s"}) + "\n")
    report = collect_json(dream, "--source", "jsonl", str(path))
    assert report["files_replaced"] == 1
    assert report["new_items"] == 1 and report["duplicates"] == 3
    # replaced by a file of the same size with another head
    text = path.read_text().replace("line 0", "LINE 0")
    path.write_text(text)
    report = collect_json(dream, "--source", "jsonl", str(path))
    assert report["files_replaced"] == 1 and report["new_items"] == 0
    assert len(items(home)) == 11


def test_a_repeated_message_id_loses_nothing_that_differs_and_is_reported(
        dream, home: Path, tmp_path: Path) -> None:
    """The generic format promises one message per id in a stream; an export that breaks
    it: a word-for-word repeat is skipped, a different message under the same id is kept,
    and the summary says how many of each and where, in one line."""
    def line(text: str, id_: str, minute: int) -> str:
        return json.dumps({"text": text, "id": id_, "stream": "sms",
                           "time": f"2026-03-11T16:{minute:02d}:00Z"}) + "\n"

    path = tmp_path / "chat.jsonl"
    path.write_text(line("Dinner with Jordan on Friday at 8", "m1", 40)
                    + line("Dinner with Jordan on Friday at 8", "m1", 40)
                    + line("Actually make it Saturday", "m1", 45)
                    + line("Bring the wine", "m2", 50))
    report = collect_json(dream, str(path))
    assert report["new_items"] == 3 and report["duplicates"] == 0
    repeated = report["repeated_ids"]
    assert (repeated["skipped"], repeated["kept"]) == (1, 1)
    assert [(r["where"], r["same_id_as"], r["kept"]) for r in repeated["items"]] == [
        (f"{path}:2", f"{path}:1", False), (f"{path}:3", f"{path}:1", True)]
    assert sorted(r["text"] for r in items(home)) == [
        "Actually make it Saturday", "Bring the wine", "Dinner with Jordan on Friday at 8"]

    # the file grows by a repeat of m2; the text summary says it in one line
    with path.open("a") as f:
        f.write(line("Bring the wine", "m2", 50))
    out = dream("collect", str(path)).output.splitlines()
    said = [text for text in out if "repeated message ids" in text]
    assert said == [f"repeated message ids: 1 line repeated an earlier message word for "
                    f"word (skipped): {path}:5 (same id as {path}:4, skipped) "
                    "(all in --json: repeated_ids)"]
    assert len(items(home)) == 3

    # read again from the start (truncated): the kept message is not added or reported twice
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    report = collect_json(dream, str(path))
    assert report["new_items"] == 0 and report["files_replaced"] == 1
    assert report["repeated_ids"]["kept"] == 0 and report["duplicates"] == 2
    assert len(items(home)) == 3


@pytest.mark.shared_data
def test_bad_input_is_skipped_and_reported(dream, home: Path, tmp_path: Path) -> None:
    good = (SHARED_DATA / "claude_code" / "spotter__short.jsonl").read_text().splitlines()
    path = tmp_path / "bad.jsonl"
    body = good[:4] + [good[4][:60], "{\"type\": \"alien\", \"sessionId\": \"x\"}", "[1, 2]",
                       "\x00\x01 not json"] + good[5:]
    path.write_text("\n".join(body) + "\n")
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)
    evil = tmp_path / "export.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("users.json", json.dumps([{"id": "U1", "name": "jordan"}]))
        archive.writestr("general/2024-01-01.json", json.dumps(
            [{"type": "message", "user": "U1", "text": "hello <@U1>", "ts": "1704100000.0001"},
             "not a message"]))
        archive.writestr("../../escape/2024-01-01.json", json.dumps(
            [{"type": "message", "user": "U1", "text": "evil", "ts": "1704100001.0"}]))
        archive.writestr("/abs/2024-01-01.json", "[]")
        archive.writestr("broken/2024-01-02.json", "{not json")
    report = collect_json(dream, str(path), str(binary), str(evil))
    where = {(s["where"].replace(str(tmp_path) + "/", ""), s["reason"].split(" (")[0])
             for s in report["skipped_items"]}
    assert ("bad.jsonl:5", "invalid JSON") in where
    assert ("bad.jsonl:6", "unknown record type 'alien'") in where
    assert ("bad.jsonl:7", "not a JSON object") in where
    assert ("bad.jsonl:8", "invalid JSON") in where
    assert ("image.png", "not a format Dream reads") in where
    assert any(w == "export.zip" and r.startswith("unsafe member path '../../escape")
               for w, r in where)
    assert any(r.startswith("unsafe member path '/abs") for _, r in where)
    assert any("broken/2024-01-02.json: unreadable JSON" in r for _, r in where)
    assert ("export.zip!general/2024-01-01.json", "not a Slack message object") in {
        (w.rsplit(":", 1)[0], r) for w, r in where}
    assert report["skipped"] == len(report["skipped_items"]) == 9
    assert not (tmp_path.parent / "escape").exists() and not Path("/abs").exists()
    texts = [r["text"] for r in items(home)]
    assert "hello @jordan" in texts and "evil" not in texts
    assert "mix phx.server doesnt seem to start" in texts
    # nothing lost or duplicated: a second collect adds nothing and skips nothing new
    again = collect_json(dream, str(path), str(evil))
    assert again["new_items"] == 0 and again["skipped"] == 0


def test_exit_code_only_when_nothing_could_be_read(dream_proc, repo: Path, tmp_path: Path,
                                                   dream) -> None:
    dream("init")
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\x00\x01\x02" * 1000)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{oops\n{\"sessionId\": 1, \"type\": \"weird\"}\n")
    proc = dream_proc("collect", "--source", "claude_code", str(binary), str(garbage),
                      cwd=repo)
    assert proc.returncode == 1, proc.stderr
    assert "nothing could be read" in proc.stderr and "Traceback" not in proc.stderr
    assert "skipped" in proc.stdout
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"text": "hello"}) + "\n")
    proc = dream_proc("collect", "--json", str(binary), str(good), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["new_items"] == 1
    proc = dream_proc("collect", str(tmp_path / "missing.jsonl"), cwd=repo)
    assert proc.returncode != 0 and proc.stderr.startswith("error: ")
    assert "no such file" in proc.stderr and "Traceback" not in proc.stderr
    proc = dream_proc("collect", "--source", "nope", str(good), cwd=repo)
    assert proc.returncode == 2 and "nope" in proc.stderr


def test_entities_let_names_addresses_and_mentions_meet(dream, home: Path,
                                                         tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text("\n".join(json.dumps(x) for x in [
        {"text": "Dinner at 8?", "author": "Jordan", "role": "other", "stream": "sms"},
        {"text": "ask @jordan about the wine, or mail jordan@example.com", "role": "user"},
        {"text": "Sam said Jordan is vegetarian", "role": "user"},
    ]) + "\n")
    collect_json(dream, str(chat))
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(b"From x Mon Mar  9 10:00:00 2026\nMessage-ID: <a@b>\n"
                     b"From: Jordan <jordan@example.com>\nTo: me@example.org\n"
                     b"Subject: hi\n\nhello\n")
    collect_json(dream, str(mbox))
    rows = items(home)
    entities = [json.loads(r["entities"]) for r in rows]
    assert entities[0] == ["jordan"]
    assert entities[1] == ["jordan@example.com", "jordan"]
    assert entities[2] == ["jordan"]  # a name already known from an earlier message
    assert set(entities[3]) >= {"jordan", "jordan@example.com", "me@example.org"}
    assert all("jordan" in e for e in entities)


def test_collect_without_home_is_a_clear_error(dream, repo: Path) -> None:
    result = dream("collect", ok=False)
    assert result.exit_code != 0 and "dream init" in result.output


def test_an_export_with_no_message_of_yours_says_who_me_is_not(dream, home: Path,
                                                               tmp_path: Path) -> None:
    """A chat export read before [collect] me names the user: every message is someone
    else's and a run would find nothing the user agreed or booked; collect says so once,
    and not once a sender of the export is the user."""
    chat = tmp_path / "WhatsApp Chat with Priya.txt"
    chat.write_text("14/05/2026, 18:01 - Priya: Climbing on Saturday at 10?\n"
                    "14/05/2026, 18:03 - Dev Patel: yes, I'll book the wall\n")
    out = dream("collect", "--source", "textchat", str(chat)).output
    assert f"no message in {chat} is yours: [collect] me in config.toml is not set" in out
    config = home / "config.toml"
    config.write_text(config.read_text() + '\n[collect]\nme = ["Dev Patel"]\n')
    other = tmp_path / "WhatsApp Chat with Ola.txt"
    other.write_text("15/05/2026, 09:00 - Ola: Lunch Friday?\n"
                     "15/05/2026, 09:02 - Dev Patel: sure, 1pm\n")
    report = collect_json(dream, "--source", "textchat", str(other))
    assert report["not_yours"] == [] and report["new_items"] == 2
    only_them = tmp_path / "WhatsApp Chat with Kai.txt"
    only_them.write_text("16/05/2026, 09:00 - Kai: Running late, start without me\n")
    report = collect_json(dream, "--source", "textchat", str(only_them))
    assert report["not_yours"] == [str(only_them)]


def test_an_empty_file_is_nothing_to_read_yet_not_an_unknown_format(dream, home: Path,
                                                                     tmp_path: Path) -> None:
    """A session file its agent has only just created is empty: named, it is skipped as
    empty (exit 0), not refused as a format Dream does not read; in a folder it is passed
    over like a stray file, also with the .jsonl suffix sessions have."""
    empty = tmp_path / "sessions" / "3f2e.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    report = collect_json(dream, str(empty))
    assert report["skipped_items"][0]["reason"] == "empty file: nothing to read yet"
    assert report["files_failed"] == 0
    report = collect_json(dream, str(empty.parent))
    assert report["skipped"] == 0 and report["files_failed"] == 0
    unknown = tmp_path / "notes.bin"
    unknown.write_bytes(b"\x00\x01\x02")
    assert "not a format Dream reads" in dream("collect", str(unknown), ok=False).output


def test_config_names_the_person_in_personal_streams(dream, home: Path, tmp_path: Path) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + '\n[collect]\nme = ["Me@Example.org"]\n')
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(b"From a Mon Mar  9 10:00:00 2026\nMessage-ID: <1@x>\n"
                     b"From: Me <me@example.org>\nSubject: plan\n\nI will book Zuma.\n\n"
                     b"From b Mon Mar  9 11:00:00 2026\nMessage-ID: <2@x>\nIn-Reply-To: <1@x>\n"
                     b"From: Jordan <jordan@example.com>\nSubject: Re: plan\n\nGreat\n")
    collect_json(dream, str(mbox))
    rows = items(home)
    assert [(r["role"], r["kind"], r["stream"]) for r in rows] == [
        ("user", "statement", "mail:1@x"), ("other", "message", "mail:1@x")]


def _claude_line(uuid: str, when: str, text: str, cwd: str) -> str:
    return json.dumps({"type": "user", "sessionId": "s-times", "cwd": cwd, "uuid": uuid,
                       "timestamp": when, "message": {"role": "user", "content": text}})


def test_a_message_edited_after_it_was_collected_is_reported_not_dropped_silently(
        dream, home: Path, tmp_path: Path) -> None:
    """A transcript rewritten with one message's words changed (same uuids) was read
    again and counted 'already collected' without a word: item ids are stable, so the
    spool keeps the first words. The summary now says which messages differ."""
    cwd = str(tmp_path / "gone")
    path = tmp_path / "session.jsonl"
    said = ["deploy with make ship", "the staging db is on port 5433", "thanks"]

    def write(texts: list[str]) -> None:
        path.write_text("".join(_claude_line(f"u{i}", f"2026-03-01T10:0{i}:00Z", text, cwd)
                                + "\n" for i, text in enumerate(texts)))

    write(said)
    assert collect_json(dream, str(path))["new_items"] == 3
    write(said)                                 # rewritten, the same words: nothing to say
    os.utime(path, (1, 1))
    report = collect_json(dream, str(path))
    assert report["new_items"] == 0 and report["changed"] == 0
    write([said[0], "the staging db is on port 6543", said[2]])
    report = collect_json(dream, str(path))
    assert report["new_items"] == 0 and report["changed"] == 1
    assert [c["where"] for c in report["changed_items"]] == [f"{path}:2"]
    assert [r["text"] for r in items(home)] == said      # the first words are kept
    write([said[0], "port 7000 now", said[2]])
    lines = dream("collect", str(path)).output.splitlines()
    assert [line for line in lines if "other words" in line] == [
        f"note: 1 message read again with other words than when first collected "
        f"({path}:2; all in --json: changed_items): the spool keeps the first words, which "
        "runs read; 'dream scrub VALUE' removes words that must go"]


def test_a_time_that_is_no_time_or_in_the_future_is_replaced_and_reported(
        dream_proc, dream_home: Path, repo: Path, tmp_path: Path) -> None:
    """A line dated 2099 or 'garbage-time' is kept (nothing lost) with the time of the line
    before it, each one reported with its file:line, and the brief is never 'As of 2099';
    the last good time carries over to lines a later collect reads from the grown file."""
    assert dream_proc("init", cwd=repo).returncode == 0
    log = tmp_path / "times.jsonl"
    log.write_text("\n".join([
        _claude_line("u1", "2026-11-30T10:00:00Z", "Always run make check before committing.",
                     str(repo)),
        _claude_line("u2", "2099-01-01T10:00:00Z", "Never push to main directly.", str(repo)),
        _claude_line("u3", "garbage-time", "Use pnpm, not npm.", str(repo))]) + "\n")
    proc = dream_proc("collect", "--json", "--source", "claude_code", str(log), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["new_items"] == 3 and report["skipped"] == 0 and report["retimed"] == 2
    assert [(r["where"], r["reason"]) for r in report["retimed_items"]] == [
        (f"{log}:2", "timestamp 2099-01-01T10:00:00.000Z is more than a day in the future; "
                     "kept with the time of the line before (2026-11-30T10:00:00.000Z)"),
        (f"{log}:3", "timestamp 'garbage-time' is not a time; kept with the time of the "
                     "line before (2026-11-30T10:00:00.000Z)")]
    assert [r["said_at"] for r in items(dream_home)] == ["2026-11-30T10:00:00.000Z"] * 3
    # a grown file: its new first line has a bad time, the one before it was good
    with log.open("a") as handle:
        handle.write(_claude_line("u4", "2026-11-30T11:00:00Z", "Keep commits small.",
                                  str(repo)) + "\n")
        handle.write(_claude_line("u5", "9999-12-31T23:59:59Z", "Prefer ruff.",
                                  str(repo)) + "\n")
    proc = dream_proc("collect", "--source", "claude_code", str(log), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "1 items kept with a replaced time" in proc.stdout
    assert f"time replaced at {log}:5: timestamp 9999-12-31T23:59:59.000Z is more than " \
        "a day in the future; kept with the time of the line before " \
        "(2026-11-30T11:00:00.000Z)" in proc.stdout
    assert items(dream_home)[-1]["said_at"] == "2026-11-30T11:00:00.000Z"
    assert dream_proc("run", cwd=repo).returncode == 0
    brief = (dream_home / "notes" / "projects" / repo.name / "brief.md").read_text()
    assert "As of 2026-11-30T11:00:00.000Z." in brief and "2099" not in brief


def test_a_bad_time_at_the_head_of_a_file_takes_the_file_time(dream, home: Path,
                                                             tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps({"text": "We meet on Friday.", "role": "other",
                               "time": "half past nine"}) + "\n"
                   + json.dumps({"text": "And no time at all.", "role": "other"}) + "\n")
    os.utime(log, (1764583200, 1764583200))              # 2025-12-01T10:00:00Z
    report = collect_json(dream, "--source", "jsonl", str(log))
    assert report["retimed"] == 1 and report["retimed_items"][0]["line"] == 1
    assert "kept with the file's modification time " \
           "(2025-12-01T10:00:00.000Z)" in report["retimed_items"][0]["reason"]
    assert [r["said_at"] for r in items(home)] == ["2025-12-01T10:00:00.000Z", None]


def test_a_key_in_pasted_gitleaks_colours_never_reaches_the_spool(dream, home: Path,
                                                                  tmp_path: Path) -> None:
    key = "sk-proj-" + "Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zXc" + "V2bN7mQ4wE9r"
    pasted = (f"Finding:     OPENAI_API_KEY=\x1b[1;31m{key}\x1b[0m\n"
              "Secret:      \x1b[1;31m" + key + "\x1b[0m\nRuleID:      openai-api-key\n")
    log = tmp_path / "leak.jsonl"
    log.write_text(json.dumps({"type": "user", "sessionId": "s-leak", "cwd": str(tmp_path),
                               "uuid": "u1", "timestamp": "2026-11-30T10:00:00Z",
                               "message": {"role": "user", "content": pasted}}) + "\n")
    report = collect_json(dream, "--source", "claude_code", str(log))
    assert report["new_items"] == 1 and report["redacted"] >= 2
    stored = items(home)[0]["text"]
    assert key not in stored and key[:20] not in stored and "[REDACTED:" in stored
    assert "RuleID:      openai-api-key" in stored        # the rest of the paste is kept


def test_source_on_a_folder_reads_its_files_of_that_kind_and_ignores_the_rest(
        dream, home: Path, tmp_path: Path) -> None:
    """``--source KIND FOLDER`` reads the folder's files of that kind as KIND (a transcript,
    or a JSON-lines file the detector does not know, with ``--source jsonl``), and ignores
    its other files silently, as a folder walked without ``--source`` does: a README or a
    manifest beside the sessions is no pile of skipped lines."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_claude_line("u1", "2026-03-01T10:00:00Z",
                                                 "always run make check", "/x") + "\n")
    (folder / "SOURCES.txt").write_text("where these came from\nand their licences\n")
    (folder / "manifest.json").write_text('{\n  "files": ["a.jsonl"]\n}\n')
    report = collect_json(dream, "--source", "claude_code", str(folder))
    assert report["new_items"] == 1 and report["skipped"] == 0, report
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "plain.jsonl").write_text(json.dumps({"text": "hello"}) + "\n")
    (chats / "notes.md").write_text("# not a chat\n")
    report = collect_json(dream, "--source", "jsonl", str(chats))
    assert report["new_items"] == 1 and report["skipped"] == 0, report
    # a file named on its own is still read as KIND, and what it cannot be is reported
    named = dream("collect", "--source", "claude_code", str(folder / "SOURCES.txt"), ok=False)
    assert named.exit_code == 1 and "SOURCES.txt:2: invalid JSON" in named.output


def test_a_pipe_or_device_is_skipped_never_waited_on(dream_proc, dream, repo: Path,
                                                      tmp_path: Path) -> None:
    # a named pipe (a logger's FIFO, a socket's neighbour) blocks whoever opens it for
    # reading until something writes: collect must say so and go on, not hang
    dream("init")
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "good.jsonl").write_text(json.dumps({"text": "hello from the file"}) + "\n")
    os.mkfifo(folder / "live.jsonl")
    proc = dream_proc("collect", "--json", str(folder / "live.jsonl"), str(folder / "good.jsonl"),
                      cwd=repo, timeout=30)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["new_items"] == 1
    assert [(s["where"], s["reason"]) for s in report["skipped_items"]] == [
        (str(folder / "live.jsonl"), "not a regular file (a pipe, socket or device): "
                                     "copy it to a file and collect that")]
    # inside a folder it is not ours, as a stray README is not: silently left alone
    for extra in ([], ["--source", "jsonl"]):
        proc = dream_proc("collect", "--json", *extra, str(folder), cwd=repo, timeout=30)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["skipped"] == 0
    proc = dream_proc("collect", str(folder / "live.jsonl"), cwd=repo, timeout=30)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "not a regular file" in proc.stdout


def test_unreadable_files_and_folders_are_named_as_unreadable(dream, home: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    # permissions are simulated (the suite may run as root, whom chmod does not stop):
    # the operating system refuses the file, the folder and the file inside that folder
    folder = tmp_path / "sessions"
    (folder / "closed").mkdir(parents=True)
    line = json.dumps({"text": "hello from a readable file"}) + "\n"
    (folder / "good.jsonl").write_text(line)
    (folder / "locked.jsonl").write_text(line)
    (folder / "closed" / "inner.jsonl").write_text(line)
    denied = {str(folder / "locked.jsonl"), str(folder / "closed")}
    real_access, real_scandir, real_stat = os.access, os.scandir, os.stat

    def access(path, mode, *args, **kwargs):
        return str(path) not in denied and real_access(path, mode, *args, **kwargs)

    def scandir(path="."):
        if str(path) in denied:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def stat(path, *args, **kwargs):
        if str(Path(path).parent) in denied:
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    report = collect_json(dream, str(folder))
    assert report["new_items"] == 1
    assert sorted((s["where"], s["reason"]) for s in report["skipped_items"]) == [
        (str(folder / "closed"), "cannot read this folder (permission denied): "
                                 "check its permissions"),
        (str(folder / "locked.jsonl"), "cannot read (permission denied): check its permissions"),
    ]
    # named on the command line: the same words, one line, never an internal error
    refused = dream("collect", str(folder / "closed" / "inner.jsonl"), ok=False)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert "cannot be read (permission denied)" in refused.output
    assert "internal error" not in refused.output


def test_an_emoji_cut_in_half_keeps_the_line_and_the_collect(dream, home: Path,
                                                               tmp_path: Path) -> None:
    # a JavaScript writer that cuts a string inside an emoji writes a lone "\ud83d": valid
    # JSON, but no UTF-8 text. It stopped the whole collect with an internal error; now
    # the half emoji is U+FFFD, the line and everything after it are kept, and a whole
    # emoji written as an escaped pair stays itself
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"id": "1", "text": "before"}\n'
                    '{"id": "2", "text": "cut \\ud83d here", "author": "Sam \\udc00"}\n'
                    '{"id": "3", "text": "a whole \\ud83d\\ude00 one"}\n'
                    '{"id": "4", "text": "after"}\n')
    session = tmp_path / "session.jsonl"
    session.write_text(json.dumps({"type": "user", "sessionId": "s9", "cwd": str(tmp_path),
                                   "uuid": "u9", "timestamp": "2026-03-01T10:00:00Z",
                                   "message": {"role": "user", "content": "PLACEHOLDER"}})
                       .replace("PLACEHOLDER", "fix the \\ud83d bug") + "\n")
    slack = tmp_path / "export.zip"
    with zipfile.ZipFile(slack, "w") as archive:
        archive.writestr("users.json", json.dumps([{"id": "U1", "name": "jordan"}]))
        archive.writestr("general/2024-01-01.json",
                         '[{"type": "message", "user": "U1", "text": "ship it \\ud83d",'
                         ' "ts": "1704100000.0001"}]')
    report = collect_json(dream, str(chat), str(session), str(slack))
    assert report["new_items"] == 6 and report["skipped"] == 0, report
    texts = sorted(r["text"] for r in items(home))
    assert texts == sorted(["before", "cut \ufffd here", "a whole \U0001F600 one", "after",
                            "fix the \ufffd bug", "ship it \ufffd"])
    assert [r["author"] for r in items(home, "text = ?", ("cut \ufffd here",))] == ["Sam \ufffd"]


def test_a_huge_folder_stops_with_one_line_before_reading_it(dream, home: Path, tmp_path: Path,
                                                             monkeypatch) -> None:
    """``dream collect ~`` or ``dream collect /tmp`` names a tree, not a folder of sessions:
    past a bound on the files it holds the walk stops with one line saying what to name
    instead, and nothing is read; a folder within the bound is read as before."""
    from dream.spool import collect as collect_module
    monkeypatch.setattr(collect_module, "MAX_FOLDER_FILES", 5)
    tree = tmp_path / "scratch"
    for n in range(4):
        (tree / f"build{n}").mkdir(parents=True)
        (tree / f"build{n}" / "out.log").write_text("compiled\n")
        (tree / f"build{n}" / "notes.txt").write_text("nothing here\n")
    result = dream("collect", str(tree), ok=False)
    assert result.exit_code != 0
    assert "holds more than 5 files" in result.output and "name the folder" in result.output
    assert items(home) == []
    small = tmp_path / "sessions"
    small.mkdir()
    (small / "a.jsonl").write_text(_claude_line("u1", "2026-03-01T10:00:00Z",
                                                "always run make check", "/x") + "\n")
    assert collect_json(dream, str(small))["new_items"] == 1
