"""Bad input never stops the rest: nesting of any depth, lines of any size, invalid UTF-8
and endless inputs are each one counted skip with file:line (or a kept line), and the files
after them are still read. Depths and sizes vary; collect runs in one process and with
worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT


def line(text: str, n: int) -> bytes:
    return json.dumps({"text": text, "id": f"m{n}", "time": "2026-03-01T09:30:00Z"}).encode()


def collect(dream, *paths: Path, workers: str = "0", **env: str) -> dict:
    old = {k: os.environ.get(k) for k in ("DREAM_COLLECT_WORKERS", *env)}
    os.environ["DREAM_COLLECT_WORKERS"] = workers
    os.environ.update(env)
    try:
        result = dream("collect", "--source", "jsonl", *map(str, paths), "--json")
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return json.loads(result.output)


def texts(home: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(home / "dream.db")
    try:
        return [r[0] for r in conn.execute("SELECT text FROM items ORDER BY seq")]
    finally:
        conn.close()


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("depth", [50, 998, 1025, 5000, 200_000])
def test_nesting_of_any_depth_is_one_skip(dream, repo, dream_home, tmp_path, depth, workers):
    dream("init")
    nested = b'{"text": "deep", "x": ' + b"[" * depth + b"]" * depth + b"}"
    first = tmp_path / "a.jsonl"
    first.write_bytes(line("before the deep line", 1) + b"\n" + nested + b"\n"
                      + line("after the deep line", 3) + b"\n")
    second = tmp_path / "b.jsonl"
    second.write_bytes(line("the next file is read", 1) + b"\n")
    report = collect(dream, first, second, workers=workers)
    got = texts(dream_home)
    assert "before the deep line" in got and "after the deep line" in got
    assert "the next file is read" in got
    if depth <= 1000:      # within what both parsers accept: the line is read
        assert report["skipped"] == 0 and "deep" in got
    else:
        assert report["skipped"] == 1
        skip = report["skipped_items"][0]
        assert skip["where"] == f"{first}:2" and "nested" in skip["reason"]
    again = collect(dream, first, second, workers=workers)    # a rerun is not stuck on it
    assert again["new_items"] == 0 and again["skipped"] == 0


@pytest.mark.parametrize("size", [70_000, 1_000_000])
def test_a_long_first_line_in_a_folder_is_read(dream, repo, dream_home, tmp_path, size):
    dream("init")
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "long.jsonl").write_bytes(line("L" * size, 1) + b"\n" + line("short", 2) + b"\n")
    (folder / "z.jsonl").write_bytes(line("a later file", 1) + b"\n")
    result = dream("collect", str(folder), "--json")
    report = json.loads(result.output)
    got = texts(dream_home)
    assert "short" in got and "a later file" in got
    assert any(t.startswith("LLLL") for t in got)        # the long line itself is kept
    assert report["files_failed"] == 0


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("size", [150_000, 3_000_000, 9_000_000])
def test_a_line_beyond_the_cap_is_one_counted_skip(dream, repo, dream_home, tmp_path, size,
                                                   workers):
    dream("init")
    path = tmp_path / "huge.jsonl"
    path.write_bytes(line("first", 1) + b"\n" + line("H" * size, 2) + b"\n"
                     + line("third", 3) + b"\n")
    other = tmp_path / "next.jsonl"
    other.write_bytes(line("next file", 1) + b"\n")
    report = collect(dream, path, other, workers=workers, DREAM_COLLECT_LINE_MAX="100000")
    assert report["skipped"] == 1
    skip = report["skipped_items"][0]
    assert skip["where"] == f"{path}:2" and "longer than 100,000 bytes" in skip["reason"]
    got = texts(dream_home)
    assert got == ["first", "third", "next file"]
    again = collect(dream, path, other, workers=workers, DREAM_COLLECT_LINE_MAX="100000")
    assert again["new_items"] == 0


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80"])
def test_invalid_utf8_keeps_the_line(dream, repo, dream_home, tmp_path, bad):
    dream("init")
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"text": "caf' + bad + b' au lait", "id": "m1"}\n'
                     + line("fine", 2) + b"\n")
    report = collect(dream, path)
    assert report["skipped"] == 0
    got = texts(dream_home)
    assert "fine" in got
    assert any(t.startswith("caf\ufffd") and t.endswith(" au lait") for t in got)


def test_notes_write_from_an_endless_input_is_refused_at_once(repo, dream, dream_home):
    dream("init")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dream", "notes", "write", "@user/zero",
                           "--file", "/dev/zero"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "larger than 1,000,000 bytes" in proc.stderr
    assert time.monotonic() - started < 30     # it read 1 MB, not gigabytes
    endless = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        piped = subprocess.run([sys.executable, "-m", "dream", "notes", "write", "@user/yes",
                                "--file", "-"], cwd=repo, env=env, stdin=endless.stdout,
                               capture_output=True, text=True, timeout=60)
    finally:
        endless.kill()
        endless.wait()
    assert piped.returncode == 1 and "larger than" in piped.stderr
    assert not (dream_home / "notes" / "user" / "zero.md").exists()


def _report(output: str) -> dict:
    """The JSON report, before the one-line error a collect that read nothing adds."""
    return json.JSONDecoder().raw_decode(output)[0]


def _claude_lines(session: str = "s1") -> list[dict]:
    base = {"sessionId": session, "cwd": "/tmp/somewhere", "isSidechain": False}
    return [
        {**base, "type": "user", "uuid": f"{session}-u1", "timestamp": "2026-03-01T09:00:00Z",
         "message": {"role": "user", "content": "Always run the tests with make check."}},
        {**base, "type": "user", "uuid": f"{session}-u2", "timestamp": "2026-03-01T09:01:00Z",
         "message": {"role": "user", "content": "Second message."}},
        {**base, "type": "user", "uuid": f"{session}-u3", "timestamp": "2026-03-01T09:02:00Z",
         "message": {"role": "user", "content": "Third message, after the odd one."}},
    ]


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("field,value", [("cwd", 123), ("message", ["not", "an", "object"]),
                                         ("sessionId", {"a": 1}), ("timestamp", 12345)])
def test_a_record_of_the_wrong_shape_is_one_skip(dream, repo, dream_home, tmp_path, field,
                                                 value, workers):
    """A field of the wrong type (a number for a folder, a list for a message) is a skip
    with file:line; the lines after it and the next file are read."""
    dream("init")
    records = _claude_lines()
    records[1][field] = value
    first = tmp_path / "session.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in records))
    second = tmp_path / "next.jsonl"
    second.write_text(json.dumps(_claude_lines("s2")[0]) + "\n")
    os.environ["DREAM_COLLECT_WORKERS"] = workers
    try:
        result = dream("collect", "--source", "claude_code", str(first), str(second), "--json",
                       ok=None)
    finally:
        os.environ.pop("DREAM_COLLECT_WORKERS", None)
    assert "internal error" not in result.output and "Traceback" not in result.output
    got = texts(dream_home)
    assert "Third message, after the odd one." in got
    assert got.count("Always run the tests with make check.") == 2      # both files
    report = _report(result.output)
    for skip in report["skipped_items"]:
        assert skip["where"] == f"{first}:2"


def test_a_file_read_as_the_wrong_kind_is_read_again(dream, repo, dream_home, tmp_path):
    """A wrong --source uses nothing up: the same file named again (with the right --source,
    or with none) is read from the start as what it is."""
    dream("init")
    session = tmp_path / "session.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in _claude_lines()))
    wrong = dream("collect", "--source", "pi", str(session), "--json", ok=None)
    assert wrong.exit_code == 1 and _report(wrong.output)["new_items"] == 0
    plain = json.loads(dream("collect", str(session), "--json").output)
    assert plain["new_items"] == 3 and plain["files_unchanged"] == 0
    assert "Third message, after the odd one." in texts(dream_home)
    again = json.loads(dream("collect", str(session), "--json").output)
    assert again["new_items"] == 0 and again["files_unchanged"] == 1      # now settled
    wrong_again = dream("collect", "--source", "pi", str(session), "--json", ok=None)
    right = json.loads(dream("collect", "--source", "claude_code", str(session),
                             "--json").output)
    assert _report(wrong_again.output)["new_items"] == 0
    assert right["new_items"] == 0 and len(texts(dream_home)) == 3        # nothing doubled


def test_front_matter_nested_or_aliased_past_reason_is_one_line(repo, dream, dream_home,
                                                                 tmp_path):
    """Front matter of 'a: [[[[...' 100,000 deep crashed the process inside the YAML
    library (a segmentation fault; 5,000 deep, an internal error when written back); a
    list that holds itself (&x [*x]) was an internal error wherever it was printed, and a
    few lines of aliases standing for billions of values made 'notes show --json' never
    end. Each is refused in one line, whether written or found in the store."""

    dream("init")
    laughs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    cases = {"deep": ("a: " + "[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels"),
             "some": ("a: " + "[" * 5000 + "]" * 5000, "nested deeper than 32 levels"),
             "self": ("a: &x [*x]", "a value that contains itself (*x)"),
             "laughs": ("\n".join(laughs), "more than 16 aliases (*name)")}
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    for name, (head, says) in cases.items():
        note = tmp_path / f"{name}.md"
        note.write_text(f"---\n{head}\n---\nbody\n")
        proc = subprocess.run([sys.executable, "-m", "dream", "notes", "write",
                               f"@user/{name}", "--file", str(note)], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, (name, proc.stderr)
        assert f"front matter Dream will not read: {says}" in proc.stderr
    # the same put in the store by hand: read, shown and listed as one line each
    (dream_home / "notes" / "user").mkdir()
    (dream_home / "notes" / "user" / "self.md").write_text("---\na: &x [*x]\n---\nbody\n")
    shown = dream("notes", "show", "@user/self", "--json", ok=False)
    assert shown.exit_code == 1 and "a value that contains itself" in shown.output
    # an anchor used a few times is still front matter, and Dream writes none itself
    dream("notes", "write", "@user/ok", "--", "---\nx: &t [a, b]\ny: *t\n---\nbody")
    written = (dream_home / "notes" / "user" / "ok.md").read_text()
    assert "&" not in written and "*" not in written and written.count("- a") == 2
