"""Memory notes as passes see them (read at the store's HEAD) and as memory proposals
change them.

A memory proposal's change is the whole new file for one note address, computed when the
proposal is made, plus the hash of the note's bytes at that moment (``base``), so accepting
it later can refuse to overwrite newer content. New notes are typed note records
(:mod:`dream.kinds.records`: ``projects/<name>/notes/<key>.md`` or ``user/notes/<key>.md``
with fields ``text``, ``type``, ``status`` and per-field provenance naming the review run
and pass), which is what the dream run's brief renders. Existing notes are changed in their
own format: a record gets new field values (version bumped), a plain note written through
the notes service keeps its front matter and gets a new body or ``status: crumpled``.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from dream.errors import DreamError
from dream.kinds.records import FieldValue, Record, slug_key
from dream.notes.address import Address
from dream.store.document import Document
from dream.store.document import parse as parse_document

if TYPE_CHECKING:
    from dream.passes.evidence import Evidence, Item, Note
    from dream.store.store import Store


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    try:
        doc = parse_document(text)
    except DreamError:
        return {}, text
    return doc.meta, doc.body


def note_text(text: str) -> str:
    """The words of a note: a record's ``text`` field, or a plain note's body."""
    rec = Record.loads(text)
    if rec is not None:
        return rec.get("text") or rec.title
    return split_front_matter(text)[1]


def note_said_at(text: str) -> str:
    rec = Record.loads(text)
    if rec is not None:
        return rec.latest_said()
    return str(split_front_matter(text)[0].get("said_at") or "")


def is_crumpled(text: str) -> bool:
    rec = Record.loads(text)
    if rec is not None:
        return rec.get("status", "live") == "crumpled"
    return str(split_front_matter(text)[0].get("status", "live")).lower() == "crumpled"


def content_hash(data: bytes | str | None) -> str | None:
    if data is None:
        return None
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def load_notes(store: Store, project_name: str, project_key: str) -> list[Note]:
    """The notes a project's review may touch: ``projects/<name>/``, ``user/`` and session
    notes whose front matter names the project (crumpled ones included)."""
    from dream.passes.evidence import Note

    head = store.repo.head()
    if head is None:
        return []
    notes = []
    for path, _blob in store.repo.list_files(head):
        if not path.endswith(".md") or path.endswith("/brief.md"):
            continue
        mine = path.startswith((f"projects/{project_name}/", "user/"))
        if not (mine or path.startswith("sessions/")):
            continue
        data = store.repo.read_at(head, path)
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        if path.startswith("sessions/") and split_front_matter(text)[0].get("project") \
                != project_key:
            continue
        rec = Record.loads(text)
        if rec is not None and rec.kind != "note":
            continue                     # events, todos, wiki pages: not memory notes
        notes.append(Note(address="@" + path, relpath=path, text=text,
                          blob=content_hash(data), crumpled=is_crumpled(text)))
    return notes


def _said(items: list[Item]) -> str:
    return max((i.said_at or "" for i in items), default="")


def _field(value: str, items: list[Item], ev: Evidence, pass_name: str,
           version: int = 1) -> FieldValue:
    return FieldValue(value=value, said_at=_said(items), evidence=sorted({i.id for i in items}),
                      run=ev.run_id, pass_=f"review:{pass_name}", version=version)


def new_note(ev: Evidence, pass_name: str, text: str, note_type: str, items: list[Item],
             scope: str = "project", key: str | None = None) -> dict[str, Any]:
    """An added note record (or, when a note with that key exists, an update of it)."""
    root = f"projects/{ev.project_name}" if scope == "project" else "user"
    key = slug_key(key or text)[:48].rstrip("-")
    relpath = f"{root}/notes/{key}.md"
    existing = next((n for n in ev.notes if n.relpath == relpath), None)
    if existing is not None:
        return changed_note(ev, pass_name, existing, text, items)
    rec = Record(kind="note", key=key, version=1, fields={
        "text": _field(text, items, ev, pass_name),
        "type": _field(note_type, items, ev, pass_name),
        "status": _field("live", items, ev, pass_name),
    })
    return _change("add", relpath, rec.dumps(), None, [], root)


def changed_note(ev: Evidence, pass_name: str, note: Note, text: str | None,
                 items: list[Item], crumple: bool = False) -> dict[str, Any]:
    """An update (new text) or a crumple of an existing note, in the note's own format."""
    root = "/".join(note.relpath.split("/")[:2]) if note.relpath.startswith("projects/") \
        else note.relpath.split("/")[0]
    rec = Record.loads(note.text)
    if rec is not None:
        changes = {"status": "crumpled"} if crumple else {"text": text or ""}
        for name, value in changes.items():
            cur = rec.fields.get(name)
            rec.fields[name] = _field(value, items, ev, pass_name,
                                      (cur.version + 1) if cur else 1)
        rec.version += 1
        content = rec.dumps()
    else:
        doc = parse_document(note.text, note.address)
        meta = dict(doc.meta)
        if crumple:
            meta["status"] = "crumpled"
            body = doc.body
        else:
            body = text or ""
        content = Document(meta, body).render()
    return _change("crumple" if crumple else "update", note.relpath, content, note.blob,
                   [note.address], root)


def _change(op: str, relpath: str, content: str, base: str | None, replaces: list[str],
            root: str) -> dict[str, Any]:
    address = str(Address.from_relpath(relpath))
    return {"type": "note", "op": op, "address": address, "path": relpath,
            "content": content, "base": base, "replaces": replaces, "scope_root": root}
