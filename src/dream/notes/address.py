"""Note addresses: ``@projects/<name>/<path>``, ``@sessions/<id>/<path>``, ``@user/<path>``.

An address maps to a path inside the notes home (``projects/<name>/<path>`` and so on).
Parsing rejects anything that could leave the store: ``..``, absolute paths, NUL and other
control characters, hidden segments (``.git``), over-long names. Symlinks are checked when a
path is resolved against the store on disk (:func:`resolve_inside`).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dream.errors import BadAddress

HOMES = ("projects", "sessions", "user")
MAX_SEGMENT = 128
MAX_ADDRESS = 512
_SEGMENT_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._ @+=,-]*$")
_HINT = "use @projects/<name>/<path>, @sessions/<id>/<path> or @user/<path> with plain names"


@dataclass(frozen=True)
class Address:
    home: str            # projects | sessions | user
    owner: str | None    # project name or session id; None for @user
    path: str            # path below the owner, '/'-separated, ends in .md

    @property
    def relpath(self) -> str:
        """Path inside the notes home."""
        if self.owner is None:
            return f"{self.home}/{self.path}"
        return f"{self.home}/{self.owner}/{self.path}"

    def __str__(self) -> str:
        return "@" + self.relpath

    @classmethod
    def from_relpath(cls, relpath: str) -> Address:
        return parse("@" + relpath)


def _check_segment(seg: str, raw: str) -> None:
    if seg in ("", ".", ".."):
        raise BadAddress(f"address '{_show(raw)}' has an empty or '..' segment", _HINT)
    if len(seg) > MAX_SEGMENT:
        raise BadAddress(f"a name in address '{_show(raw)}' is longer than {MAX_SEGMENT}", _HINT)
    if not _SEGMENT_RE.match(seg):
        raise BadAddress(
            f"address '{_show(raw)}' has a forbidden name '{_show(seg)}'",
            "names start with an ASCII letter, digit or '_' and hold only ASCII letters, "
            "digits, spaces, '.', '-', '_', '@', '+', '=' and ','",
        )


def _show(text: str) -> str:
    return text.replace("\x00", "\\0").encode("unicode_escape").decode()[:80]


def parse(raw: str) -> Address:
    if not isinstance(raw, str) or not raw:
        raise BadAddress("empty note address", _HINT)
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise BadAddress(f"address '{_show(raw)}' contains a control or NUL character", _HINT)
    if len(raw) > MAX_ADDRESS:
        raise BadAddress(f"address is longer than {MAX_ADDRESS} characters", _HINT)
    if not raw.startswith("@"):
        raise BadAddress(f"address '{_show(raw)}' must start with '@'", _HINT)
    body = raw[1:]
    if "\\" in body:
        raise BadAddress(f"address '{_show(raw)}' has a backslash",
                         "separate names with '/', as in @user/travel/visa")
    if body.startswith("/") or PurePosixPath(body).is_absolute():
        raise BadAddress(f"address '{_show(raw)}' is absolute", _HINT)
    parts = body.split("/")
    home = parts[0]
    if home not in HOMES:
        raise BadAddress(f"address '{_show(raw)}' has unknown home '{_show(home)}'", _HINT)
    if home == "user":
        owner, rest = None, parts[1:]
    else:
        if len(parts) < 3:
            raise BadAddress(f"address '{_show(raw)}' needs a name and a path", _HINT)
        owner, rest = parts[1], parts[2:]
        _check_segment(owner, raw)
    if not rest:
        raise BadAddress(f"address '{_show(raw)}' has no note path", _HINT)
    for seg in rest:
        _check_segment(seg, raw)
    path = "/".join(rest)
    if not path.endswith(".md"):
        path += ".md"
    return Address(home, owner, path)


def prefix_relpath(raw: str) -> str:
    """Validate an address prefix for listing (``@projects/x`` or ``@user``) and return
    its path inside the notes home, without a trailing slash."""
    body = raw.removeprefix("@")
    body = body.rstrip("/")
    if not body:
        return ""
    if any(ord(c) < 32 for c in body) or body.startswith("/") or "\\" in body:
        raise BadAddress(f"prefix '{_show(raw)}' is not a note address prefix", _HINT)
    parts = body.split("/")
    if parts[0] not in HOMES:
        raise BadAddress(f"prefix '{_show(raw)}' has unknown home '{_show(parts[0])}'", _HINT)
    for seg in parts[1:]:
        _check_segment(seg, raw)
    return "/".join(parts)


@functools.lru_cache(maxsize=64)
def _real(root: str) -> Path:
    return Path(os.path.realpath(root))


def resolve_inside(root: Path, relpath: str) -> Path:
    """The on-disk path of ``relpath`` under ``root``, refusing symlinks that lead out.

    Only the components below ``root`` are examined (one ``lstat`` each, stopping at the
    first that does not exist); a symlink is followed and must stay inside the store."""
    root_real = _real(os.fspath(root))
    target = Path(root) / relpath
    current = root_real
    for part in relpath.split("/"):
        if not part:
            continue
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            break
        except NotADirectoryError:
            break
        if stat.S_ISLNK(mode):
            current = Path(os.path.realpath(current))
            if current != root_real and root_real not in current.parents:
                raise BadAddress(
                    f"'{relpath}' leads outside the store through a symlink",
                    "remove the symlink from the notes home",
                )
    return target


def document_path(raw: str) -> str:
    """Validate a document path inside a store (``projects/x/a.md``, ``.dream/store.toml``)
    or a note address (``@projects/x/a``) and return the '/'-separated relative path."""
    if not isinstance(raw, str) or not raw:
        raise BadAddress("empty document path", "give a path inside the store, e.g. user/a.md")
    if raw.startswith("@"):
        return parse(raw).relpath
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise BadAddress(f"path '{_show(raw)}' contains a control or NUL character",
                         "give a plain path inside the store")
    if len(raw) > MAX_ADDRESS:
        raise BadAddress(f"path is longer than {MAX_ADDRESS} characters",
                         "give a path inside the store")
    if raw.startswith("/") or "\\" in raw or PurePosixPath(raw).is_absolute() or \
            re.match(r"^[A-Za-z]:", raw):
        raise BadAddress(f"path '{_show(raw)}' is absolute",
                         "give a path relative to the store root, e.g. user/a.md")
    parts = raw.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise BadAddress(f"path '{_show(raw)}' has an empty, '.' or '..' segment",
                         "give a path relative to the store root, e.g. user/a.md")
    if any(len(p) > MAX_SEGMENT for p in parts):
        raise BadAddress(f"a name in path '{_show(raw)}' is longer than {MAX_SEGMENT}",
                         "use shorter names")
    return raw
