"""mbox mail folders: messages threaded by Message-ID, In-Reply-To and References.

The file is split on ``From `` separator lines (streamed, one message in memory at a time).
Each message becomes one item: the plain-text part (or the HTML part stripped of tags),
with quoted replies (``>`` lines and the ``On ... wrote:`` line) removed so only the
sender's original words remain. The thread (stream) is the first id in ``References``,
else the thread of the message named by ``In-Reply-To``, else the message's own id.

A message from one of the addresses in ``[collect] me`` is the person's own statement;
every other sender's message is another person's message. Broken encodings (unknown
charsets, invalid bytes) are decoded with replacement characters rather than dropped; a
message with no readable text part is skipped with its line.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

from dream.sources.base import FileContext, Message, Skip, iso_utc, said_at_of

KIND = "mbox"
_FROM_RE = re.compile(rb"^From \S+")
_TAG_RE = re.compile(r"<[^>]+>")
_WROTE_RE = re.compile(r"^On .{0,200}wrote:\s*$")
_ID_RE = re.compile(r"<[^<>\s]+>")


def _decode(part: EmailMessage) -> str:
    try:
        content = part.get_content()
        if isinstance(content, bytes):
            return content.decode("utf-8", "replace")
        return str(content)
    except (LookupError, UnicodeError, AssertionError, ValueError):
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            return payload.decode("utf-8", "replace")
        return str(part.get_payload())


def _body(message: EmailMessage) -> str:
    plain = html = None
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = _decode(part)  # type: ignore[arg-type]
        elif ctype == "text/html" and html is None:
            html = _TAG_RE.sub(" ", _decode(part))  # type: ignore[arg-type]
    text = plain if plain is not None else (html or "")
    kept = []
    for line in text.splitlines():
        if line.lstrip().startswith(">") or _WROTE_RE.match(line.strip()):
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip()


def _addresses(message: EmailMessage, *headers: str) -> list[tuple[str, str]]:
    values: list[str] = []
    for header in headers:
        try:
            values += [str(v) for v in message.get_all(header, [])]
        except (ValueError, TypeError, IndexError):
            continue
    return [(name, addr.lower()) for name, addr in email.utils.getaddresses(values) if addr]


def _header(message: EmailMessage, name: str) -> str:
    try:
        return str(message.get(name) or "")
    except (ValueError, TypeError, IndexError):
        return ""


class Mbox:
    kind = KIND

    def parse_file(self, path: Path, ctx: FileContext) -> Iterator[Message | Skip]:
        roots: dict[str, str] = {}
        with open(path, "rb") as handle:
            start, buf = 0, []
            for number, line in enumerate(handle, 1):
                if _FROM_RE.match(line) and (not buf or buf[-1].strip() == b""):
                    if buf:
                        yield from self._message(b"".join(buf), start, ctx, roots)
                    start, buf = number, []
                    continue
                if start == 0 and not buf and line.strip():
                    yield ctx.skip(number, "not an mbox file (no 'From ' separator line)")
                    return
                buf.append(line)
            if buf and start:
                yield from self._message(b"".join(buf), start, ctx, roots)

    def _message(self, raw: bytes, line: int, ctx: FileContext,
                 roots: dict[str, str]) -> Iterator[Message | Skip]:
        # mboxrd/mboxo escaping of body lines that begin with 'From '
        raw = re.sub(rb"(?m)^>(>*From )", rb"\1", raw)
        try:
            message = email.message_from_bytes(raw, policy=email.policy.default)
        except Exception as exc:  # noqa: BLE001  (the email package raises many kinds on garbage)
            yield ctx.skip(line, f"unreadable message ({type(exc).__name__})")
            return
        assert isinstance(message, EmailMessage)
        try:
            text = _body(message)
        except Exception as exc:  # noqa: BLE001  (as above: any failure is a skipped message)
            yield ctx.skip(line, f"unreadable body ({type(exc).__name__})")
            return
        subject = _header(message, "Subject").strip()
        if not text and not subject:
            yield ctx.skip(line, "message without readable text")
            return
        msg_id = (_ID_RE.findall(_header(message, "Message-ID")) or [None])[0]
        refs = _ID_RE.findall(_header(message, "References"))
        reply_to = (_ID_RE.findall(_header(message, "In-Reply-To")) or [None])[0]
        if refs:
            root = roots.get(refs[0], refs[0])
        elif reply_to:
            root = roots.get(reply_to, reply_to)
        else:
            root = msg_id or f"{ctx.path.name}:{line}"
        if msg_id:
            roots[msg_id] = root
        senders = _addresses(message, "From")
        name, addr = senders[0] if senders else ("", "")
        me = ctx.me
        mine = bool(addr) and (addr in me or (name and name.lower() in me))
        participants = [f"{n} <{a}>" if n else a
                        for n, a in _addresses(message, "From", "To", "Cc")]
        date = _header(message, "Date")
        said_at = None
        if date:
            try:
                said_at = iso_utc(email.utils.parsedate_to_datetime(date).isoformat())
            except (TypeError, ValueError, IndexError):
                said_at = said_at_of(date)   # reported by collect, kept with a neighbour's time
        body = f"Subject: {subject}\n\n{text}" if subject else text
        yield Message(stream=f"mail:{root.strip('<>')}", ref=ctx.ref(line),
                      role="user" if mine else "other", text=body, said_at=said_at,
                      author=name or addr or None, key=msg_id, participants=participants,
                      channel="email")


source = Mbox()
