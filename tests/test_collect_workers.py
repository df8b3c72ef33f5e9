"""dream collect with worker processes: exactly the spool, watermarks, entities and report of
a collect in one process, and a worker's error is the collect's error."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from dream.app import App
from dream.sources import pi
from dream.spool.collect import collect

pytestmark = pytest.mark.shared_data


def _collect(home: Path, data: Path, workers: int, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DREAM_HOME", str(home))
    monkeypatch.setenv("DREAM_COLLECT_WORKERS", str(workers))
    app = App.from_env(data)
    app.ensure_home()
    try:
        report = collect(app, [data]).as_dict()
    finally:
        app.close()
    for key in ("seconds", "mb_per_s"):
        report.pop(key)
    return report


def _dump(home: Path) -> list[list[tuple]]:
    conn = sqlite3.connect(home / "dream.db")
    try:
        return [conn.execute(query).fetchall() for query in (
            "SELECT seq, id, source, source_path, ref, stream, project_key, author, role,"
            " said_at, text, tool_name, is_error, kind, evidence, entities, channel"
            " FROM items ORDER BY seq",
            "SELECT path, source, size, mtime, lines, head_sha256, state FROM source_files"
            " ORDER BY path",
            "SELECT name, display FROM entity_names ORDER BY name",
            "SELECT rowid FROM items_fts WHERE items_fts MATCH 'the' ORDER BY rowid")]
    finally:
        conn.close()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    for kind in ("claude_code", "pi", "codex", "messages"):
        if (SHARED_DATA / kind).is_dir():
            shutil.copytree(SHARED_DATA / kind, folder / kind)
    (folder / "pi" / "bad.jsonl").write_bytes(b'{"type": "session", "cwd": "/x"}\n{"trunc\n')
    (folder / "pi" / "binary.jsonl").write_bytes(b"\x00\x01\x02" * 3000)
    return folder


def test_workers_write_exactly_what_one_process_writes(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _collect(tmp_path / "one", data, 0, monkeypatch)
    assert alone["new_items"] > 2500 and alone["skipped"] >= 1
    for workers in (1, 3):
        home = tmp_path / f"w{workers}"
        assert _collect(home, data, workers, monkeypatch) == alone
        assert _dump(home) == _dump(tmp_path / "one")
    # a grown file: only its new lines, in both ways
    grown = sorted((data / "pi").glob("*.jsonl"))[0]
    with open(grown, "ab") as handle:
        handle.write(b'{"type": "message", "id": "zz1", "timestamp": "2026-01-01T00:00:00Z",'
                     b' "message": {"role": "user", "content": "one more line"}}\n')
    again = [_collect(home, data, workers, monkeypatch)
             for home, workers in ((tmp_path / "one", 0), (tmp_path / "w1", 1))]
    assert again[0] == again[1] and again[0]["new_items"] == 1
    assert _dump(tmp_path / "w1") == _dump(tmp_path / "one")


def test_an_error_in_a_worker_stops_the_collect_and_keeps_what_was_written(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parse = pi.source.parse_lines
    failing = sorted((data / "pi").glob("*.jsonl"))[-1]

    def broken(lines, ctx):
        if ctx.path == failing:
            # a fault of the code, not of one record (those are counted skips)
            raise RuntimeError(f"broken parser on {ctx.path.name}")
        yield from parse(lines, ctx)

    monkeypatch.setattr(pi.source, "parse_lines", broken)  # the forked worker has it too
    with pytest.raises(RuntimeError, match="broken parser"):
        _collect(tmp_path / "w", data, 1, monkeypatch)
    monkeypatch.setattr(pi.source, "parse_lines", parse)
    rest = _collect(tmp_path / "w", data, 1, monkeypatch)
    whole = _collect(tmp_path / "one", data, 0, monkeypatch)
    assert rest["duplicates"] == 0 and 0 < rest["new_items"] < whole["new_items"]
    assert [len(t) for t in _dump(tmp_path / "w")] == [len(t) for t in _dump(tmp_path / "one")]
