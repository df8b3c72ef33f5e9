"""WhatsApp/Signal-style text exports: one message per line, continuation lines appended.

Recognised line shapes (date order day-first or month-first, decided per file by
:func:`_day_first`, see docs/formats.md; when a file's dates cannot tell, the order an
earlier export of the same chat (:func:`chat_name`) showed by its dates is used):

    12/03/2024, 09:15 - Jordan: See you at 7          (WhatsApp, Android)
    [12/03/2024, 09:15:22] Jordan: See you at 7       (WhatsApp, iOS)
    [2024-03-12 09:15] Jordan: See you at 7           (Signal and similar exports)

A line in those shapes without ``Name:`` (``Messages and calls are end-to-end
encrypted``, ``Jordan added Sam``) is a meta item; ``<Media omitted>`` and similar
placeholders are meta too. A line that is not a new message continues the previous one.
Times without a zone are taken as UTC. Lines that are not valid UTF-8 are decoded as
Latin-1 rather than dropped. The sender named in ``[collect] me`` is the person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from dream.sources.base import FileContext, Message, Skip

KIND = "textchat"
_LINE_RES = [
    re.compile(r"^\u200e?\[?(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})[/.](?P<y>\d{2,4}),? "
               r"(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?:\s?[APap]\.?[Mm]\.?)?)\]?"
               r"(?: -|:)? (?P<rest>.*)$"),
    re.compile(r"^\u200e?\[(?P<y>\d{4})-(?P<b>\d{2})-(?P<a>\d{2})[ T]"
               r"(?P<time>\d{1,2}:\d{2}(?::\d{2})?)\] (?P<rest>.*)$"),
]
_SENDER_RE = re.compile(r"^(?P<name>[^:]{1,80}?): (?P<text>.*)$")
_MEDIA = ("<Media omitted>", "<attached:", "image omitted", "video omitted",
          "audio omitted", "sticker omitted", "document omitted", "GIF omitted")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _spread(readings: list[str | None]) -> tuple[int, int, float]:
    """How far one reading of a file's dates is from a chat export's shape: the number of
    impossible dates, the number of steps back in time between consecutive lines (an
    export lists messages in the order they were sent), and the days from the first to
    the last line."""
    seen = [datetime.fromisoformat(r[:19]) for r in readings if r]
    back = sum(1 for one, two in zip(seen, seen[1:], strict=False) if two < one)
    days = (max(seen) - min(seen)).total_seconds() / 86400 if seen else 0.0
    return len(readings) - len(seen), back, days


def _day_first(dated: list[tuple[str, str, str, str, str]]) -> tuple[bool, str | None]:
    """Whether the numeric dates (a, b, year, clock, separator) of one file are day-first,
    and a note when the dates themselves could not tell. In order, the first rule that
    decides:

    1. a first field above 12 means day-first, a second above 12 month-first;
    2. dots (``05.12.26``) mean day-first: no locale writes month first with dots;
    3. of the two readings, the one whose lines run forward in time, then the one whose
       lines lie closer together (an export covers one stretch of a conversation: a
       day-by-day export of 11/3 and 11/4 is two days in November, not March and April);
    4. still tied (every line on one date): the clock. A 12-hour clock with AM/PM is
       the form of the US locale (``12/5/26, 9:14 PM``), month first; a 24-hour clock is
       the European form, day first. This guess is reported once per file.
    """
    if any(int(a) > 12 for a, *_ in dated):
        return True, None
    if any(int(b) > 12 for _, b, *_ in dated):
        return False, None
    if any(sep == "." for *_, sep in dated):
        return True, None
    if all(a == b for a, b, *_ in dated):
        return True, None  # both readings agree
    day = _spread([_when(a, b, y, c, True, False) for a, b, y, c, _ in dated])
    month = _spread([_when(a, b, y, c, False, False) for a, b, y, c, _ in dated])
    guess = "day and month order not given by the dates; read"
    if day[:2] != month[:2]:
        return day < month, None
    if day[2] != month[2]:
        first = day < month
        return first, (f"{guess} {'day' if first else 'month'} first (the reading whose "
                       "dates lie closer together)")
    if any(c.rstrip(".").upper().endswith("M") for _, _, _, c, _ in dated):
        return False, f"{guess} month first (12-hour clock with AM/PM, the US form)"
    return True, f"{guess} day first (24-hour clock, the European form)"


_DAY_IN_NAME = re.compile(r"[\s_-]*(?:\(\d+\)|\d{4}-\d{2}-\d{2}|\d{8}|\d{1,2}[._-]\d{1,2}"
                          r"[._-]\d{2,4})$")


def chat_name(stem: str) -> str:
    """The chat a file exports: its name without a day or a copy number at the end, so
    the day-by-day exports of one chat ("Ana 2026-09-13", "Ana 2026-10-01", or "Ana" in
    one folder per day) share what their dates show."""
    name = stem.strip()
    while (m := _DAY_IN_NAME.search(name)) and m.start() > 0:
        name = name[:m.start()].strip()
    return name.lower()


def _when(a: str, b: str, year: str, clock: str, day_first: bool, iso: bool) -> str | None:
    day, month = (int(a), int(b)) if (iso or day_first) else (int(b), int(a))
    yr = int(year) + (2000 if len(year) == 2 else 0)
    clock = clock.replace(".", "").upper().replace(" ", "")
    pm = clock.endswith("PM")
    am = clock.endswith("AM")
    parts = clock.rstrip("APM").split(":")
    hour, minute = int(parts[0]), int(parts[1])
    second = int(parts[2]) if len(parts) > 2 else 0
    if pm and hour < 12:
        hour += 12
    if am and hour == 12:
        hour = 0
    try:
        dt = datetime(yr, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.000Z")


class TextChat:
    kind = KIND

    def parse_file(self, path: Path, ctx: FileContext) -> Iterator[Message | Skip]:
        entries: list[list] = []  # [line, a, b, y, time, iso, rest-lines]
        dated: list[tuple[str, str, str, str, str]] = []
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, 1):
                line = _decode(raw).rstrip("\r\n").lstrip("\ufeff")
                for index, pattern in enumerate(_LINE_RES):
                    match = pattern.match(line)
                    if match:
                        iso = index == 1
                        entries.append([number, match["a"], match["b"], match["y"],
                                        match["time"], iso, [match["rest"]]])
                        if not iso:
                            dated.append((match["a"], match["b"], match["y"],
                                          match["time"], match["sep"]))
                        break
                else:
                    if entries:
                        entries[-1][6].append(line)
                    elif line.strip():
                        yield ctx.skip(number, "not a chat export line (no date and time)")
        if not entries:
            return
        day_first, note = _day_first(dated)
        order = f"day_first:{chat_name(path.stem)}"
        if note is None and any(a != b for a, b, *_ in dated):
            ctx.state["learned"] = {order: day_first}       # the dates said it
        elif note and isinstance(ctx.learned.get(order), bool):
            day_first, note = ctx.learned[order], None    # an earlier export of it said it
        if note:
            ctx.state["note"] = note
        stream = f"chat:{path.stem}"
        me = ctx.me
        people = sorted({m["name"].strip() for e in entries
                         if (m := _SENDER_RE.match(e[6][0]))})
        for number, a, b, year, clock, iso, rest in entries:
            said_at = _when(a, b, year, clock, day_first, iso)
            match = _SENDER_RE.match(rest[0])
            if said_at is None:
                yield ctx.skip(number, "impossible date")
                continue
            if not match:
                yield Message(stream=stream, ref=ctx.ref(number), role="system",
                              text="\n".join(rest).strip(), said_at=said_at, meta=True,
                              channel="chat")
                continue
            name = match["name"].strip()
            body = "\n".join([match["text"], *rest[1:]]).strip()
            if not body:
                continue
            yield Message(stream=stream, ref=ctx.ref(number),
                          role="user" if name.lower() in me else "other", text=body,
                          said_at=said_at, author=name, meta=body.strip().startswith(_MEDIA)
                          or body.strip() == "This message was deleted",
                          participants=people, channel="chat")


source = TextChat()
