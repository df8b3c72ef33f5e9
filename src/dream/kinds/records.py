"""Records: typed documents in a store with a stable key and per-field provenance.

A record is one Markdown file with YAML front matter. The front matter holds the kind, the
key (the merge identity), the record version and, per field, its provenance: the value,
``said_at`` (when the evidence was said), the evidence item ids, the run and pass that wrote
it, and the field version. The Markdown body is rendered from the fields by code, so it
never disagrees with them. Because provenance is inside the file, a clone keeps it.

Paths below a scope root (``projects/<name>/`` or ``user/``)::

    events/<key>.md   todos/<key>.md   wiki/<key>.md   notes/<key>.md
    questions/<key>.md   standing.md (one record; each fact is a field)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import yaml

from dream.secrets import redact, strip_placeholders

KINDS = ("event", "todo", "wiki", "note", "question", "standing")
FOLDERS = {"event": "events", "todo": "todos", "wiki": "wiki", "note": "notes",
           "question": "questions"}
STANDING_KEY = "standing"
MAX_KEY = 64

# field order used when rendering bodies (other fields follow alphabetically)
# the C implementations when PyYAML was built with libyaml (same output, much faster)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

FIELD_ORDER = {
    "event": ["title", "activity", "date", "time", "place", "participants", "status"],
    "todo": ["title", "status", "due", "owner", "event"],
    "note": ["text", "type", "status"],
    "question": ["text", "status", "about"],
    "wiki": [],
    "standing": [],
}
EVENT_STATUSES = ("proposed", "confirmed", "declined", "cancelled")
TODO_STATUSES = ("open", "done", "dropped")   # dropped: its plan was called off
NOTE_STATUSES = ("live", "crumpled")


def slug_key(text: str) -> str:
    """A stable key: lowercase ascii letters, digits and '-', at most 64 characters."""
    text = strip_placeholders(redact(text)[0])  # a name is never made from a secret
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    out = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")
    out = out[:MAX_KEY].rstrip("-")
    return out or "item"


def record_path(kind: str, key: str) -> str:
    """Path of a record below its scope root."""
    if kind == "standing":
        return "standing.md"
    return f"{FOLDERS[kind]}/{key}.md"


def kind_of_path(rel: str) -> tuple[str, str] | None:
    """(kind, key) for a path below a scope root, or None when it is not a record."""
    if rel == "standing.md":
        return "standing", STANDING_KEY
    parts = rel.split("/")
    if len(parts) != 2 or not parts[1].endswith(".md"):
        return None
    for kind, folder in FOLDERS.items():
        if parts[0] == folder:
            return kind, parts[1][:-3]
    return None


@dataclass
class FieldValue:
    value: str
    said_at: str
    evidence: list[str]
    run: str
    pass_: str
    version: int = 1
    acted_on: int = 0          # the record version the write that set this field acted on

    def to_yaml(self) -> dict[str, Any]:
        return {"value": self.value, "said_at": self.said_at, "evidence": list(self.evidence),
                "run": self.run, "pass": self.pass_, "version": self.version,
                "acted_on": self.acted_on}

    @classmethod
    def from_yaml(cls, data: dict[str, Any]) -> FieldValue:
        return cls(
            value=str(data.get("value", "")),
            said_at=str(data.get("said_at", "")),
            evidence=[str(e) for e in data.get("evidence") or []],
            run=str(data.get("run", "")),
            pass_=str(data.get("pass", "")),
            version=int(data.get("version", 1)),
            acted_on=int(data.get("acted_on", 0)),
        )


@dataclass
class Record:
    kind: str
    key: str
    fields: dict[str, FieldValue] = field(default_factory=dict)
    version: int = 0          # bumped once per run (or edit) that changed the record

    @property
    def path(self) -> str:
        return record_path(self.kind, self.key)

    def get(self, name: str, default: str = "") -> str:
        fv = self.fields.get(name)
        return fv.value if fv else default

    def values(self) -> dict[str, str]:
        return {name: fv.value for name, fv in self.fields.items()}

    def evidence(self) -> list[str]:
        seen: dict[str, None] = {}
        for fv in self.fields.values():
            for e in fv.evidence:
                seen[e] = None
        return list(seen)

    def latest_said(self) -> str:
        return max((fv.said_at for fv in self.fields.values()), default="")

    @property
    def title(self) -> str:
        for name in ("title", "text", "name"):
            if self.get(name):
                return self.get(name)
        return self.key.replace("-", " ")

    # -- files ----------------------------------------------------------------------------
    def ordered_fields(self) -> list[str]:
        order = FIELD_ORDER.get(self.kind, [])
        first = [f for f in order if f in self.fields]
        return first + sorted(f for f in self.fields if f not in order)

    def dumps(self) -> str:
        meta = {
            "kind": self.kind,
            "key": self.key,
            "version": self.version,
            "fields": {name: self.fields[name].to_yaml() for name in self.ordered_fields()},
        }
        head = yaml.dump(meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
        return f"---\n{head}---\n{self.body()}"

    def body(self) -> str:
        lines = [f"# {one_line(self.title)}", ""]
        if self.kind == "note":
            lines.append(self.get("text"))
            extra = [f for f in self.ordered_fields() if f not in ("text",)]
        else:
            extra = [f for f in self.ordered_fields() if f not in ("title",)]
        for name in extra:
            lines.append(f"- {name}: {one_line(self.get(name))}")
        return "\n".join(lines).rstrip() + "\n"

    def edited_fields(self, text: str) -> dict[str, str]:
        """Fields whose value a person changed by editing the Markdown body of ``text``
        (this record's file). Empty when the body is what the fields render to."""
        end = text.find("\n---\n", 4)
        body = text[end + 5:] if end >= 0 else ""
        if body == self.body():
            return {}
        lines = body.rstrip("\n").split("\n")
        found: dict[str, str] = {}
        while lines and (m := _FIELD_LINE.match(lines[-1])) and m[1] in self.fields:
            found.setdefault(m[1], m[2].strip())
            lines.pop()
        head = lines[0][2:].strip() if lines and lines[0].startswith("# ") else None
        rest = "\n".join(lines[1:] if head is not None else lines).strip()
        if self.kind == "note":
            if rest and rest != self.get("text").strip():
                found["text"] = rest
        elif head is not None and "title" in self.fields and head != one_line(self.title):
            found["title"] = head
        return {k: v for k, v in found.items()
                if k in self.fields and v != one_line(self.get(k)) and v != self.get(k)}

    @classmethod
    def loads(cls, text: str) -> Record | None:
        """Parse a record file; None when the text is not a record (no kind/key)."""
        if not text.startswith("---\n"):
            return None
        end = text.find("\n---\n", 4)
        if end < 0:
            return None
        try:
            meta = yaml.load(text[4:end], Loader=_Loader)
        except yaml.YAMLError:
            return None
        if not isinstance(meta, dict) or meta.get("kind") not in KINDS or not meta.get("key"):
            return None
        fields = {str(k): FieldValue.from_yaml(v) for k, v in (meta.get("fields") or {}).items()
                  if isinstance(v, dict)}
        return cls(kind=meta["kind"], key=str(meta["key"]), fields=fields,
                   version=int(meta.get("version", 0)))


_FIELD_LINE = re.compile(r"^- ([a-z0-9_]+): (.*)$")


def one_line(text: str) -> str:
    return " ".join(str(text).split())
