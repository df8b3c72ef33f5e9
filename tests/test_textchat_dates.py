"""Day or month first in WhatsApp-style text exports, through the real collector.

A day-by-day export often holds only dates whose two numbers are both 12 or below
(``11/3/26``); the order then comes from the order and spread of the file's dates, and
only when those cannot tell, from the clock (a 12-hour clock with AM/PM is the US form,
month first). Such a guess is reported once per file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest


@pytest.fixture
def home(dream, repo, dream_home: Path) -> Path:
    dream("init")
    return dream_home


def collect(dream, path: Path) -> dict:
    return json.loads(dream("collect", "--json", "--source", "textchat", str(path)).output)


def times(home: Path, path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(home / "dream.db")
    try:
        return conn.execute("SELECT author, said_at FROM items WHERE source_path = ? "
                            "ORDER BY seq", (str(path),)).fetchall()
    finally:
        conn.close()


def test_us_twelve_hour_export_with_only_ambiguous_dates_is_month_first(
        dream, home: Path, tmp_path: Path) -> None:
    ios = tmp_path / "WhatsApp Chat - Jordan 2026-11-03.txt"
    ios.write_text("[11/3/26, 9:14:03 PM] Jordan: Can you book the vet for Rex?\n"
                   "[11/3/26, 9:40:10 PM] Me: Done, booked for Thursday\n")
    report = collect(dream, ios)
    assert report["new_items"] == 2 and report["skipped"] == 0
    # 3 November, not 11 March: a to-do closed here is not months stale
    assert times(home, ios) == [("Jordan", "2026-11-03T21:14:03.000Z"),
                                ("Me", "2026-11-03T21:40:10.000Z")]
    assert report["notes"] == [{"file": str(ios), "note": (
        "day and month order not given by the dates; read month first "
        "(12-hour clock with AM/PM, the US form)")}]
    android = tmp_path / "android.txt"
    android.write_text("11/3/26, 9:14 PM - Jordan: Can you book the vet for Rex?\n")
    # the plain output names the guess once, with the file
    out = dream("collect", "--source", "textchat", str(android)).output
    assert out.count("note ") == 1 and f"note {android}: " in out
    assert times(home, android) == [("Jordan", "2026-11-03T21:14:00.000Z")]


def test_european_export_with_only_ambiguous_dates_stays_day_first(
        dream, home: Path, tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Sam.txt"
    path.write_text("03/11/2026, 21:14 - Sam: Can you book the vet for Rex?\n"
                    "03/11/2026, 21:40 - Me: Done, booked for Thursday\n")
    report = collect(dream, path)
    assert times(home, path) == [("Sam", "2026-11-03T21:14:00.000Z"),
                                 ("Me", "2026-11-03T21:40:00.000Z")]
    assert [n["note"] for n in report["notes"]] == [
        "day and month order not given by the dates; read day first "
        "(24-hour clock, the European form)"]
    dotted = tmp_path / "dotted.txt"  # dots are only ever day first: nothing to report
    dotted.write_text("03.11.26, 21:14 - Sam: Kannst du den Tierarzt buchen?\n")
    report = collect(dream, dotted)
    assert times(home, dotted) == [("Sam", "2026-11-03T21:14:00.000Z")] and not report["notes"]


def test_neighbouring_dates_decide_before_the_clock(dream, home: Path, tmp_path: Path) -> None:
    # a day-by-day US export with a 24-hour clock: 3 and 4 November lie a day apart,
    # 11 March and 11 April a month
    us = tmp_path / "us.txt"
    us.write_text("11/3/26, 21:14 - Jordan: Can you book the vet?\n"
                  "11/4/26, 08:02 - Me: Booked\n")
    report = collect(dream, us)
    assert times(home, us) == [("Jordan", "2026-11-03T21:14:00.000Z"),
                               ("Me", "2026-11-04T08:02:00.000Z")]
    assert "read month first (the reading whose dates lie closer together)" in \
        report["notes"][0]["note"]
    # the same evidence reads a European 12-hour export (en-AU, en-IN) day first
    au = tmp_path / "au.txt"
    au.write_text("[3/11/26, 9:14:03 pm] Kim: Can you book the vet?\n"
                  "[4/11/26, 8:02:00 am] Me: Booked\n")
    collect(dream, au)
    assert times(home, au) == [("Kim", "2026-11-03T21:14:03.000Z"),
                               ("Me", "2026-11-04T08:02:00.000Z")]
    # lines run forward in time: 2 January then 1 February, not 1 February then 2 January
    forward = tmp_path / "forward.txt"
    forward.write_text("1/2/26, 10:00 - Kim: first\n2/1/26, 10:00 - Me: a month later\n")
    report = collect(dream, forward)
    assert times(home, forward) == [("Kim", "2026-01-02T10:00:00.000Z"),
                                    ("Me", "2026-02-01T10:00:00.000Z")]
    assert report["notes"] == []


def test_a_chat_exported_day_by_day_keeps_the_order_an_earlier_file_showed(
        dream, home: Path, tmp_path: Path) -> None:
    """An en-AU phone (day first, 12-hour clock) exports one chat day by day. The first
    day's 13/09 shows day first; the next day's file holds only 1/10, which alone would
    be read month first (12-hour clock): the order learned for the chat is used instead,
    in a later collect and within one collect alike, whether the files share a name in
    day folders or carry the day in their names."""
    first = tmp_path / "day1" / "Kim.txt"
    first.parent.mkdir()
    first.write_text("[13/09/2026, 9:14:03 pm] Kim: Lunch at Hoppers on Friday?\n")
    assert collect(dream, first)["notes"] == []
    second = tmp_path / "day2" / "Kim.txt"
    second.parent.mkdir()
    second.write_text("[1/10/2026, 8:02:00 am] Kim: Running late, start without me\n")
    report = collect(dream, second)
    assert times(home, second) == [("Kim", "2026-10-01T08:02:00.000Z")]   # 1 October
    assert report["notes"] == []                         # no guess: the chat told us
    # one collect of both; the days in the file names, the decisive file read first
    both = tmp_path / "export"
    both.mkdir()
    (both / "WhatsApp Chat with Ana 2026-09-13.txt").write_text(
        "[13/09/2026, 9:14:03 pm] Ana: Drinks on Friday?\n")
    (both / "WhatsApp Chat with Ana 2026-10-01.txt").write_text(
        "[1/10/2026, 8:02:00 am] Ana: See you at 7\n")
    report = collect(dream, both)
    assert times(home, both / "WhatsApp Chat with Ana 2026-10-01.txt") == [
        ("Ana", "2026-10-01T08:02:00.000Z")]
    assert report["notes"] == []
    # another chat learns nothing from these: its own guess, reported
    other = tmp_path / "Jordan.txt"
    other.write_text("[1/10/2026, 8:02:00 am] Jordan: See you at 7\n")
    assert collect(dream, other)["notes"][0]["note"].endswith("the US form)")
    assert times(home, other) == [("Jordan", "2026-01-10T08:02:00.000Z")]
