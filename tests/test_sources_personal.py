"""Personal streams and the generic format: JSONL chat, mbox mail, WhatsApp/Signal text.

There is no real mbox or WhatsApp sample in ../shared/data, so these tests write small
realistic ones (with broken encodings) into the test's folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_sources import read

from dream.sources import detect
from dream.sources.base import UNREADABLE_TIME, FileContext
from dream.spool.gate import gate

MBOX = b"""From jordan@example.com Mon Mar  9 10:00:00 2026
Message-ID: <m1@example.com>
From: Jordan Lee <jordan@example.com>
To: Me <me@example.org>
Subject: Dinner Friday
Date: Mon, 09 Mar 2026 10:00:00 +0100
Content-Type: text/plain; charset=utf-8

Shall we book Nobu for Friday at 8? I can't do Saturday.

From me@example.org Mon Mar  9 11:00:00 2026
Message-ID: <m2@example.org>
In-Reply-To: <m1@example.com>
References: <m1@example.com>
From: Me <me@example.org>
To: Jordan Lee <jordan@example.com>
Subject: Re: Dinner Friday
Date: Mon, 09 Mar 2026 11:00:00 +0000
Content-Type: text/plain; charset=utf-8

Booked it. Cc'ing @sam so he knows.

On Mon, 9 Mar 2026 at 10:00, Jordan Lee <jordan@example.com> wrote:
> Shall we book Nobu for Friday at 8?

From sam@example.net Mon Mar  9 12:00:00 2026
Message-ID: <m3@example.net>
In-Reply-To: <m2@example.org>
From: =?utf-8?q?Sam_M=C3=BCller?= <sam@example.net>
To: jordan@example.com
Subject: Re: Dinner Friday
Date: Mon, 09 Mar 2026 12:00:00 +0000
Content-Type: text/plain; charset=x-no-such-charset
Content-Transfer-Encoding: 8bit

Gr\xfc\xdfe, I will be late \xff\xfe (broken bytes)

From lonely@example.com Tue Mar 10 09:00:00 2026
Message-ID: <m4@example.com>
From: lonely@example.com
Subject: =?iso-8859-1?q?caf=E9?=
Date: not a date
Content-Type: text/html; charset=iso-8859-1

<p>Caf\xe9 <b>opens</b> at 9</p>

From empty@example.com Tue Mar 10 10:00:00 2026
Message-ID: <m5@example.com>
From: empty@example.com
Content-Type: multipart/mixed; boundary="XX"

--XX
Content-Type: application/octet-stream
Content-Disposition: attachment; filename="a.bin"

AAAA
--XX--
"""


def test_mbox_threads_roles_and_broken_encodings(tmp_path: Path) -> None:
    path = tmp_path / "inbox.mbox"
    path.write_bytes(MBOX)
    assert detect(path) == "mbox"
    messages, skips = read(path)
    ctx_me = FileContext(path, {}, frozenset({"me@example.org"}))
    from dream.sources import get
    mine = [m for m in get("mbox").parse_file(path, ctx_me) if not hasattr(m, "reason")]
    assert [m.role for m in mine] == ["other", "user", "other", "other"]
    empty_line = MBOX.split(b"\n").index(b"From empty@example.com Tue Mar 10 10:00:00 2026") + 1
    assert [s.line for s in skips] == [empty_line] and "without readable text" in skips[0].reason
    assert len(messages) == 4
    first, reply, broken, html = messages
    # one thread for the first three, by References and then by In-Reply-To
    assert first.stream == reply.stream == broken.stream == "mail:m1@example.com"
    assert html.stream == "mail:m4@example.com"
    assert first.text == ("Subject: Dinner Friday\n\nShall we book Nobu for Friday at 8? "
                          "I can't do Saturday.")
    assert first.said_at == "2026-03-09T09:00:00.000Z" and first.key == "<m1@example.com>"
    assert first.author == "Jordan Lee" and first.ref == f"{path}:1"
    assert "Jordan Lee <jordan@example.com>" in first.participants
    # quoted text and the 'On ... wrote:' line are not the sender's words
    assert reply.text.endswith("Booked it. Cc'ing @sam so he knows.")
    assert "Shall we" not in reply.text
    # unknown charset and invalid bytes: decoded with replacement, not dropped
    assert broken.author == "Sam Müller" and "I will be late" in broken.text
    # a Date header that is no date is marked for collect to replace and report
    assert html.text == "Subject: café\n\nCafé  opens  at 9"
    assert html.said_at == UNREADABLE_TIME + "not a date"
    assert all(gate(m) == ("message", 1) for m in messages)


def test_generic_jsonl_format(tmp_path: Path) -> None:
    lines = [
        {"text": "Lunch with Jordan moved to Thursday", "time": "2026-03-02T12:00:00+01:00",
         "author": "me", "role": "user", "to": ["Jordan"], "channel": "sms",
         "cwd": str(tmp_path)},
        {"text": "Thursday works, see you", "id": "x2", "author": "Jordan", "role": "other",
         "stream": "sms-jordan"},
        {"text": "Sure! I've noted Thursday.", "role": "assistant"},
        {"text": "exit 1: tests failed", "role": "tool", "tool": "Bash", "is_error": True},
        {"text": "no role means the person"},
        {"role": "user"},
        {"text": "x", "role": "boss"},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "{not json\n")
    assert detect(path) == "jsonl"
    messages, skips = read(path)
    assert [(s.line, s.reason.split(" (")[0]) for s in skips] == [
        (6, "no 'text' string"), (7, "unknown role 'boss'"), (8, "invalid JSON")]
    assert [gate(m) for m in messages] == [("statement", 1), ("message", 1), ("assistant", 0),
                                          ("tool_result", 1), ("statement", 1)]
    first, second, _, tool, _ = messages
    assert first.stream == "chat" and second.stream == "sms-jordan"
    assert first.said_at == "2026-03-02T11:00:00.000Z" and first.channel == "sms"
    assert first.participants == ["me", "Jordan"] and first.ref == f"{path}:1"
    assert first.project_key is not None and first.project_key.startswith(tmp_path.name[:10])
    assert second.key == "sms-jordan/x2" and first.key is None
    assert tool.tool_name == "Bash" and tool.is_error is True


WHATSAPP = """12/03/2024, 09:15 - Messages and calls are end-to-end encrypted. Tap to learn more.
12/03/2024, 09:15 - Jordan: Are we still on for dinner on the 15th?
13/03/2024, 18:02 - Me: Yes! Booked Zuma for 8pm.
It's on Brompton Road
13/03/2024, 18:03 - Jordan: <Media omitted>
13/03/2024, 18:04 - Sam Müller: I'll bring the wine
"""


def test_whatsapp_and_signal_text_exports(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Jordan.txt"
    path.write_bytes(WHATSAPP.encode("utf-8") + "14/03/2024, 07:00 - Sam Müller: caf\xe9\n"
                     .encode("latin-1") + b"garbage line before nothing\n")
    assert detect(path) == "textchat"
    from dream.sources import get
    ctx = FileContext(path, {}, frozenset({"me"}))
    messages = list(get("textchat").parse_file(path, ctx))
    assert [(m.author, gate(m)) for m in messages] == [
        (None, ("meta", 0)), ("Jordan", ("message", 1)), ("Me", ("statement", 1)),
        ("Jordan", ("meta", 0)), ("Sam Müller", ("message", 1)), ("Sam Müller", ("message", 1))]
    booked = messages[2]
    # continuation lines belong to the message; the last 'garbage' line continues Sam's
    assert booked.text == "Yes! Booked Zuma for 8pm.\nIt's on Brompton Road"
    assert booked.said_at == "2024-03-13T18:02:00.000Z" and booked.ref == f"{path}:3"
    assert messages[5].text.startswith("café")  # a Latin-1 line is decoded, not dropped
    assert set(messages[1].participants) == {"Jordan", "Me", "Sam Müller"}
    signal = tmp_path / "signal.txt"
    signal.write_text("[2024-03-12 09:15] Jordan: see you at 7\n"
                      "[2024-03-12 09:16] Me: ok\n")
    assert detect(signal) == "textchat"
    messages, skips = read(signal)
    assert skips == [] and [m.said_at for m in messages] == [
        "2024-03-12T09:15:00.000Z", "2024-03-12T09:16:00.000Z"]
    ios = tmp_path / "ios.txt"
    ios.write_text("[03/12/24, 9:15:22 PM] Jordan: month first\n"
                   "[03/13/24, 9:16:00 AM] Me: ok\n")
    messages, _ = read(ios)
    assert [m.said_at for m in messages] == ["2024-03-12T21:15:22.000Z",
                                            "2024-03-13T09:16:00.000Z"]
