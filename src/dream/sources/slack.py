"""Slack export zips: ``users.json``, ``channels.json`` and ``<channel>/<YYYY-MM-DD>.json``.

The zip is read in memory, member by member; nothing is ever extracted to disk, so a
member named ``../../etc/passwd`` or ``/abs/path`` cannot write anywhere: such members are
skipped and reported. Members larger than 64 MB uncompressed are skipped (zip bombs).

Each message becomes one item in the stream ``slack:<channel>`` (or
``slack:<channel>:<thread_ts>`` for a thread). User ids in the text (``<@U123>``) become
``@name``, channel links ``#name``, and links their label. Join/leave/topic notices and
bot messages are meta; messages from a user named in ``[collect] me`` (by id, name or
real name) are the person's own statements, everyone else's are other people's messages.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dream.jsontext import loads
from dream.sources.base import FileContext, Message, Skip, iso_utc, said_at_of

KIND = "slack"
_MAX_MEMBER = 64 * 1024 * 1024
_META_SUBTYPES = {"channel_join", "channel_leave", "channel_topic", "channel_purpose",
                  "channel_name", "channel_archive", "channel_unarchive", "bot_add",
                  "bot_remove", "pinned_item", "unpinned_item", "group_join", "group_leave",
                  "bot_message", "tombstone"}
_USER_RE = re.compile(r"<@([A-Z0-9]+)(?:\|([^>]+))?>")
_CHANNEL_RE = re.compile(r"<#[A-Z0-9]+\|([^>]+)>")
_LINK_RE = re.compile(r"<((?:https?|mailto):[^>|]+)(?:\|([^>]+))?>")


def _unsafe(name: str) -> bool:
    normal = posixpath.normpath(name.replace("\\", "/"))
    return (name.startswith(("/", "\\")) or normal.startswith("..") or ":" in name.split("/")[0]
            or "/../" in f"/{name.replace(chr(92), '/')}/")


class Slack:
    kind = KIND

    def parse_file(self, path: Path, ctx: FileContext) -> Iterator[Message | Skip]:
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            yield ctx.skip(None, f"not a readable zip ({exc})")
            return
        with archive:
            members = archive.infolist()
            users = self._json(archive, "users.json") or []
            names = {}
            for user in users if isinstance(users, list) else []:
                if isinstance(user, dict) and user.get("id"):
                    names[user["id"]] = (user.get("name") or user["id"],
                                         user.get("real_name") or
                                         (user.get("profile") or {}).get("real_name") or "")
            for info in members:
                name = info.filename
                if _unsafe(name):
                    yield ctx.skip(None, f"unsafe member path {name!r} (never extracted)")
                    continue
                if info.is_dir() or name.count("/") != 1 or not name.endswith(".json"):
                    continue
                if info.file_size > _MAX_MEMBER:
                    yield ctx.skip(None, f"member {name} too large ({info.file_size} bytes)")
                    continue
                try:
                    day = loads(archive.read(info))
                except (ValueError, zipfile.BadZipFile, OSError, RuntimeError) as exc:
                    yield ctx.skip(None, f"member {name}: unreadable JSON ({exc})")
                    continue
                if not isinstance(day, list):
                    yield ctx.skip(None, f"member {name}: not a list of messages")
                    continue
                channel = name.split("/")[0]
                for index, record in enumerate(day):
                    yield from self._message(record, channel, name, index, names, ctx)

    def _json(self, archive: zipfile.ZipFile, name: str) -> Any:
        try:
            return loads(archive.read(name))
        except (KeyError, ValueError, zipfile.BadZipFile, OSError):
            return None

    def _message(self, record: Any, channel: str, member: str, index: int,
                 names: dict[str, tuple[str, str]], ctx: FileContext) -> Iterator[Message | Skip]:
        where = f"{member}#{index}"
        if not isinstance(record, dict) or "ts" not in record:
            yield Skip(f"{ctx.path}!{member}", index + 1, "not a Slack message object")
            return

        def user_name(match: re.Match[str]) -> str:
            return "@" + (match.group(2) or names.get(match.group(1), (match.group(1),))[0])

        text = str(record.get("text") or "")
        for attachment in record.get("attachments") or []:
            if isinstance(attachment, dict):
                extra = attachment.get("text") or attachment.get("fallback")
                if extra:
                    text = f"{text}\n{extra}" if text else str(extra)
        text = _USER_RE.sub(user_name, text)
        text = _CHANNEL_RE.sub(lambda m: "#" + m.group(1), text)
        text = _LINK_RE.sub(lambda m: m.group(2) or m.group(1), text)
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        if not text.strip():
            return
        uid = record.get("user") or ""
        handle, real = names.get(uid, (record.get("username") or uid or "unknown", ""))
        me = ctx.me
        mine = any(v and v.lower() in me for v in (uid, handle, real))
        ts = str(record["ts"])
        thread = record.get("thread_ts")
        stream = f"slack:{channel}" + (f":{thread}" if thread else "")
        participants = [p for p in (handle, real) if p]
        participants += ["@" + names.get(m.group(1), (m.group(1),))[0]
                         for m in _USER_RE.finditer(str(record.get("text") or ""))]
        try:
            said_at = iso_utc(float(ts))
        except ValueError:
            said_at = said_at_of(ts)   # reported by collect, kept with a neighbour's time
        yield Message(stream=stream, ref=f"{ctx.path}!{where}", role="user" if mine else "other",
                      text=text, said_at=said_at, author=real or handle,
                      key=f"{channel}/{ts}", meta=record.get("subtype") in _META_SUBTYPES,
                      participants=participants, channel="slack")


source = Slack()
