"""Editing other programs' configuration files without disturbing what is not Dream's.

Three kinds of edit, each able to *apply* Dream's entries and to *remove* exactly them:

- :class:`JsonEdit`: parse, add or remove Dream's keys/entries, write back with the file's
  own indentation;
- :class:`BlockEdit`: a marked block of text appended to a Markdown or TOML file
  (``<!-- dream:begin NAME -->`` ... ``<!-- dream:end NAME -->`` or ``# dream:begin NAME``);
  removing it removes exactly the bytes that were appended;
- :class:`FileCopy`: a file Dream owns outright (a skill).

The byte-for-byte promise is kept by :mod:`dream.integrations.installer`, which backs up
each file's original bytes before the first install and restores them on uninstall when
the file, with Dream's entries removed, is equivalent to the original.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dream.errors import BadInput


class Edit:
    path: Path
    what: str

    def apply(self, old: bytes | None) -> bytes:
        raise NotImplementedError

    def remove(self, old: bytes) -> bytes | None:
        """The content without Dream's entries; None when nothing else is left."""
        raise NotImplementedError

    def equivalent(self, a: bytes, b: bytes) -> bool:
        return a == b

    def is_ours(self, current: bytes) -> bool:
        """Whether the file holds Dream's entries (used to find them without a record)."""
        raise NotImplementedError


# -- JSON -------------------------------------------------------------------------------------
def _indent_of(text: str) -> int | str:
    for line in text.splitlines()[1:6]:
        stripped = line.lstrip(" \t")
        if stripped and line != stripped:
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


class Shape(BadInput):
    """A setting Dream adds to is there with another JSON type (the file's path is added
    where the edit is applied)."""


_JSON_TYPES = ((dict, "an object"), (list, "a list"), (str, "a string"), (bool, "true or false"),
               (int, "a number"), (float, "a number"), (type(None), "null"))


def _json_type(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "a value")


def member(data: dict[str, Any], key: str, kind: type, where: str = "") -> Any:
    """``data[key]``, made ``kind()`` when missing; a value of another type is refused."""
    value = data.setdefault(key, kind())
    if not isinstance(value, kind):
        raise Shape(f"'{where}{key}' is {_json_type(value)}, where Dream adds to "
                    f"{_json_type(kind())}", "fix it by hand, then run the command again")
    return value


def load_json(path: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path} is not valid JSON ({exc})",
                       "fix the file by hand, then run the command again") from exc
    if not isinstance(data, dict):
        raise BadInput(f"{path} does not hold a JSON object", "fix the file by hand")
    return data


def dump_json(data: dict[str, Any], like: bytes | None) -> bytes:
    text = like.decode("utf-8") if like else ""
    indent = _indent_of(text) if text else 2
    out = json.dumps(data, indent=indent, ensure_ascii=False)
    if not text or text.endswith("\n"):
        out += "\n"
    return out.encode("utf-8")


@dataclass
class JsonEdit(Edit):
    path: Path
    what: str
    add: Callable[[dict[str, Any]], None]
    strip: Callable[[dict[str, Any]], bool]     # removes Dream's entries; True if any were there
    optional: bool = False      # a file Dream does not create when it has nothing to add

    def apply(self, old: bytes | None) -> bytes:
        data = load_json(self.path, old)
        self.strip(data)
        try:
            self.add(data)
        except Shape as exc:
            raise BadInput(f"{self.path}: {exc.message}", exc.hint) from None
        if self.optional and old is None and not data:
            return old          # type: ignore[return-value]  # nothing to write: no file
        return dump_json(data, old)

    def remove(self, old: bytes) -> bytes | None:
        data = load_json(self.path, old)
        self.strip(data)
        if not data:
            return None
        return dump_json(data, old)

    def equivalent(self, a: bytes, b: bytes) -> bool:
        try:
            return json.loads(a or b"{}") == json.loads(b or b"{}")
        except ValueError:
            return a == b

    def is_ours(self, current: bytes) -> bool:
        data = load_json(self.path, current)
        return self.strip(data)


# -- marked blocks ------------------------------------------------------------------------------
@dataclass
class BlockEdit(Edit):
    path: Path
    what: str
    name: str
    body: str
    style: str = "html"        # html (Markdown) | hash (TOML)
    validate: Callable[[bytes], None] | None = None
    removal_only: bool = False  # a block earlier versions wrote: uninstall removes it

    def _markers(self) -> tuple[str, str]:
        if self.style == "hash":
            return f"# dream:begin {self.name}", f"# dream:end {self.name}"
        return f"<!-- dream:begin {self.name} -->", f"<!-- dream:end {self.name} -->"

    def _pattern(self) -> re.Pattern[str]:
        begin, end = self._markers()
        # the block plus the one blank line Dream put before it
        return re.compile(r"(\n?)" + re.escape(begin) + r".*?" + re.escape(end) + r"\n?",
                          re.DOTALL)

    def block(self) -> str:
        begin, end = self._markers()
        return f"{begin}\n{self.body.rstrip()}\n{end}\n"

    def apply(self, old: bytes | None) -> bytes:
        if self.removal_only:
            return old          # type: ignore[return-value]  # install adds nothing here
        text = old.decode("utf-8") if old else ""
        text = self._strip(text)
        if text and not text.endswith("\n"):
            text += "\n"
        if text:
            text += "\n"
        new = (text + self.block()).encode("utf-8")
        if self.validate:
            self.validate(new)
        return new

    def _strip(self, text: str) -> str:
        begin, _ = self._markers()
        if begin not in text:
            return text
        pattern = self._pattern()
        match = pattern.search(text)
        if not match:
            raise BadInput(f"{self.path} has a '{begin}' line without its end marker",
                           "remove the half block by hand, then run the command again")
        return text[: match.start()] + text[match.end():]

    def remove(self, old: bytes) -> bytes | None:
        text = self._strip(old.decode("utf-8"))
        if not text.strip():
            return None
        return text.encode("utf-8")

    def equivalent(self, a: bytes, b: bytes) -> bool:
        # appending to a file without a final newline adds one; that is all it changes
        return a.rstrip(b"\n") == b.rstrip(b"\n")

    def is_ours(self, current: bytes) -> bool:
        return self._markers()[0] in current.decode("utf-8", "replace")


# -- owned files --------------------------------------------------------------------------------
@dataclass
class FileCopy(Edit):
    path: Path
    what: str
    content: bytes

    def apply(self, old: bytes | None) -> bytes:
        return self.content

    def remove(self, old: bytes) -> bytes | None:
        return None

    def is_ours(self, current: bytes) -> bool:
        return current == self.content
