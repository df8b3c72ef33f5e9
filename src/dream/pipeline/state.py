"""Scopes and the current state of their records.

A scope is one root in one store: ``projects/<name>/`` in the project's Primary Store for a
project's items, ``user/`` in the notes home for personal items (no project key). The state
is every record below the root at one commit, read through git (not the work tree), so a
run sees exactly the commit it builds on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, timedelta

from dream.detect.prose import stems
from dream.detect.todos import IRREGULAR, PARTICIPLE
from dream.kinds.records import STANDING_KEY, FieldValue, Record, kind_of_path, record_path
from dream.kinds.text import find_date, parse_when, sentences
from dream.store.document import quick_meta, title_of
from dream.store.store import Store

EVENT_WINDOW_BEFORE = timedelta(days=14)
# passes that write what a person typed into Dream (dream correct, a crumple of a record,
# an answer to a question): said when typed, not evidence of when the memory was read
HAND_PASSES = ("correct", "answer")
TOUCH_TEXT_CHARS = 2000    # of each evidence item, for the words a run's bundles say
TOUCH_ROWS = 100           # at most this many touched rows in a prompt
# a scope with more plain documents than this has its written notes counted, not read, for
# the brief (which could not list them all within its cap; search finds them)
WRITTEN_MAX = 200


@dataclass
class Scope:
    store: Store
    root: str                 # 'projects/<name>' or 'user'
    project_key: str | None
    name: str                 # lock and watermark name: project name or 'user'

    @property
    def address_prefix(self) -> str:
        return "@" + self.root


@dataclass(frozen=True)
class WrittenNote:
    """A note a person or an agent wrote with the notes tools (``dream notes write``, MCP
    ``notes_write``) below a scope's root: a plain document, not a record a run keys."""
    path: str                 # below the scope root, e.g. 'deploy.md'
    title: str | None         # its 'title' or first '# ' heading, when it has one
    text: str                 # the body on one line, without that heading
    status: str               # live | crumpled
    updated: str


def written_note(path: str, data: bytes) -> WrittenNote | None:
    """The written note a file below a scope root holds, or None when it is none: a
    record (front matter with kind and key), the brief, a hidden file or not Markdown."""
    name = path.rsplit("/", 1)[-1]
    if not path.endswith(".md") or path == "brief.md" or \
            any(part.startswith(".") for part in path.split("/")):
        return None
    text = data.decode("utf-8", "replace")
    if Record.loads(text) is not None:
        return None
    meta, body = quick_meta(text)
    title = title_of(meta, body, path)
    lines = body.splitlines()
    heading = next((i for i, line in enumerate(lines[:40]) if line.startswith("# ")), None)
    if heading is not None and not meta.get("title"):
        del lines[heading]
    explicit = title != name.removesuffix(".md")
    return WrittenNote(path, title if explicit else None, " ".join(" ".join(lines).split()),
                       meta.get("status") or "live", meta.get("updated") or "")


@dataclass
class State:
    scope: Scope
    commit: str | None
    records: dict[tuple[str, str], Record] = field(default_factory=dict)
    adopted: set[tuple[str, str]] = field(default_factory=set)    # records edited by hand
    written: dict[str, WrittenNote] = field(default_factory=dict)  # by path below the root
    written_beyond: int = 0   # more files that may be written notes than WRITTEN_MAX: unread

    def get(self, kind: str, key: str) -> Record | None:
        return self.records.get((kind, key))

    def add_written(self, note: WrittenNote | None) -> None:
        """Add (or replace) a written note; past WRITTEN_MAX they are only counted."""
        if note is None:
            return
        if self.written_beyond:
            self.written_beyond += note.path not in self.written
            return
        self.written[note.path] = note
        if len(self.written) > WRITTEN_MAX:
            self.written_beyond = len(self.written)

    def standing(self) -> Record | None:
        return self.records.get(("standing", STANDING_KEY))

    def of_kind(self, kind: str) -> list[Record]:
        return [r for (k, _), r in sorted(self.records.items()) if k == kind]

    def as_of(self) -> str:
        """The latest said_at of any field: the state's own 'now' (deterministic)."""
        return max((r.latest_said() for r in self.records.values()), default="")

    def read_as_of(self, by_hand: bool = False) -> str:
        """The latest said_at of a field written from collected evidence (a message, a
        session), leaving out changes a person made through Dream itself, which are said
        when typed: a correction, a crumple, an answer to a question (``by_hand``: the
        latest of those instead)."""
        return max((fv.said_at for r in self.records.values() for fv in r.fields.values()
                    if (fv.pass_ in HAND_PASSES) == by_hand), default="")

    def touched(self, bundles: list, limit: int = TOUCH_ROWS) -> list[Record]:
        """The rows a run's bundles touch: all of the state its propose calls are shown.

        - the standing facts and the open questions (a few rows any message may bear on);
        - the wiki pages of the bundles' entities;
        - events (dated at most 14 days before the state's now, or said about in those
          14 days), open to-dos and live notes that name one of the bundles' entities (an
          event's participants, words of the row) or share a content word with what the
          bundles' evidence says: one word for a row of up to three content words, two for
          a longer one; an event also when a message names its date ("6 March"), an open
          to-do also when a message names a word of its title after the verb (its thing),
          or when it was taken on for one of those events (its ``event`` field names it),
          when the person who asked for it writes, when a message says its verb done or as
          its noun ("paid", "payment", "sent") without naming its thing, or names its thing
          inside a compound word ("Einzugsgeschenk" for "Einzug");

        A row the bundles neither name nor share words with stays out of the prompt: the
        sweep still compares the run's changes with the rows they could duplicate.
        """
        entities: set[str] = set()
        said: set[str] = set()
        spoken: set[str] = set()        # every word, as said ("sent", "paid")
        days: set[str] = set()          # dates the messages name
        for b in bundles:
            entities |= {e.lower() for e in b.entities}
            for it in b.items:
                if not it.evidence:
                    continue
                if it.role == "other" and it.author:
                    entities.add(it.author.strip().lower())
                said |= stems(it.text[:TOUCH_TEXT_CHARS])
                spoken |= set(re.findall(r"[^\W\d_]{3,}", it.text[:TOUCH_TEXT_CHARS].lower()))
                if it.role in ("user", "other"):
                    ref = parse_when(it.said_at)
                    days |= {d for d in (find_date(x, ref) for x in
                                         sentences(it.text[:TOUCH_TEXT_CHARS])) if d}
        names = {w for e in entities for w in stems(e)}

        def touches(rec: Record, *slots: str) -> bool:
            words = stems(" ".join([rec.key.replace("-", " "),
                                    *(rec.get(s) for s in slots)]))
            people = {p.strip().lower() for p in rec.get("participants").split(",")
                      if p.strip()}
            if people & entities or words & names:
                return True
            return len(words & said) >= (1 if len(words) <= 3 else 2)

        now = parse_when(self.as_of())
        out: list[Record] = []
        for rec in self.of_kind("event"):
            when, touched_at = parse_when(rec.get("date")), parse_when(rec.latest_said())
            recent = now is None or when is None or when >= now - EVENT_WINDOW_BEFORE or (
                touched_at is not None and touched_at >= now - EVENT_WINDOW_BEFORE)
            if recent and (rec.get("date") in days or touches(rec, "title", "activity",
                                                                "place")):
                out.append(rec)
        # an open to-do also when a message names what it is about, a word of its title
        # after its verb ("Cake collected" bears on "Sort the cake from Konditor")
        # and an open to-do taken on for a plan the run touches ("Bring a thermos of mulled
        # apple" for the bonfire its messages call off), whatever its title says
        plans = {r.key for r in out}

        def todo_touched(r: Record) -> bool:
            thing = stems(" ".join(r.get("title").split()[1:]))     # the words after its verb
            return touches(r, "title") or bool(thing & said) or r.get("event") in plans \
                or _asker_writes(r, entities) or _done_form(r.get("title"), spoken) \
                or _compound_named(thing, said)

        out += [r for r in self.of_kind("todo") if r.get("status", "open") == "open"
                and todo_touched(r)]
        if self.standing():
            out.append(self.standing())
        out += [r for r in self.of_kind("question") if r.get("status", "open") == "open"]
        out += [r for r in self.of_kind("wiki") if r.key in entities
                or r.get("name", "").lower() in entities]
        notes = [r for r in self.of_kind("note") if r.get("status", "live") == "live"
                 and touches(r, "text")]
        notes.sort(key=lambda r: (r.latest_said(), r.key), reverse=True)
        out += notes
        return out[:limit]


def _asker_writes(todo: Record, entities: set[str]) -> bool:
    """Whether the person who asked for a to-do ("from") writes in the run: their "Sent it,
    thanks" or "we have received your payment" may be about it."""
    asker = todo.get("from").strip().lower()
    return bool(asker) and asker in entities


def _done_form(title: str, said: set[str]) -> bool:
    """Whether the messages say a to-do's verb in its done form or as its noun ("Pay the
    fee": "paid", "payment received"; "Send the forms": "sent"), which a message about the
    to-do may say without naming its thing."""
    verb = (title.split() or [""])[0].lower()
    if len(verb) < 3:
        return False
    forms = {IRREGULAR.get(verb, ""), PARTICIPLE.get(verb, ""), verb + "ed", verb + "ment",
             verb + "ments"} - {""}
    return bool(forms & said)


def _compound_named(thing: set[str], said: set[str]) -> bool:
    """Whether a message names a to-do's thing inside a compound ("Einzugsgeschenk" of "Ich
    schick euch was Kleines zum Einzug", "Tischreservierung" of "den Tisch reservieren"):
    the first five letters of a word of ``thing`` (the title's stems after its verb) stand
    in a word said, one way of the to-do reader's :func:`dream.detect.todos._same_thing`."""
    heads = {w[:5] for w in thing if len(w) >= 5}
    return any(h in b for h in heads for b in said if len(b) >= 5)


def load_state(scope: Scope, commit: str | None, kind: str | None = None) -> State:
    """The records of ``scope`` at ``commit`` (only those of ``kind`` when given: its
    folder alone is listed and read)."""
    state = State(scope=scope, commit=commit)
    if commit is None:
        return state
    repo = scope.store.repo
    prefix = scope.root.rstrip("/") + "/"
    under = None
    if kind is not None:
        folder = record_path(kind, "key").rpartition("/")[0]
        under = prefix + (folder + "/" if folder else "")
    candidates: list[tuple[str, str, str]] = []     # files that may be written notes
    for path, sha in repo.list_files(commit, under):
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix):]
        found = kind_of_path(rel)
        if found is None or (kind is not None and found[0] != kind):
            if kind is None and rel.endswith(".md") and rel != "brief.md":
                candidates.append((path, rel, sha))
            continue
        parsed = _PARSED.get(sha)
        if parsed is None:
            data = repo.read_at(commit, path)
            if data is None:
                continue
            text = data.decode("utf-8", "replace")
            rec = Record.loads(text)
            parsed = (rec, text if rec is not None and rec.edited_fields(text) else None)
            if len(_PARSED) > _PARSED_MAX:
                _PARSED.clear()
            _PARSED[sha] = parsed
        cached, edited_text = parsed
        if cached is None:              # a file in a record's folder that is no record
            if kind is None:
                state.add_written(_written(repo, commit, path, rel, sha))
            continue
        rec = _copy(cached)
        if edited_text is not None and adopt_edits(rec, edited_text, repo, commit, path):
            state.adopted.add((rec.kind, rec.key))
        state.records[(rec.kind, rec.key)] = rec
    if len(candidates) > WRITTEN_MAX:
        state.written_beyond = len(candidates)      # too many to read for a brief
    else:
        for path, rel, sha in candidates:
            state.add_written(_written(repo, commit, path, rel, sha))
    return state


def _written(repo, commit: str, path: str, rel: str, sha: str) -> WrittenNote | None:
    """The written note at ``path`` (cached by blob id like records), or None."""
    if not rel.endswith(".md") or rel == "brief.md":
        return None
    if sha not in _WRITTEN:
        data = repo.read_at(commit, path)
        if len(_WRITTEN) > _PARSED_MAX:
            _WRITTEN.clear()
        _WRITTEN[sha] = written_note(rel, data) if data is not None else None
    return _WRITTEN[sha]


_WRITTEN: dict[str, WrittenNote | None] = {}


# parsed records by git blob id (a content hash): a run in a long process (--rounds, the
# benchmark) does not parse the same file twice; records are copied out, never shared
_PARSED: dict[str, tuple[Record | None, str | None]] = {}
_PARSED_MAX = 200_000


def _copy(rec: Record) -> Record:
    return Record(rec.kind, rec.key, {name: FieldValue(fv.value, fv.said_at, list(fv.evidence),
                                                       fv.run, fv.pass_, fv.version, fv.acted_on)
                                      for name, fv in rec.fields.items()}, rec.version)


def adopt_edits(rec: Record, text: str, repo, commit: str, path: str) -> bool:
    """A person edited the record's body by hand (or through the notes tools): the edit
    is a correction said when it was committed, with that commit as its evidence."""
    edits = rec.edited_fields(text)
    if not edits:
        return False
    out = repo.git("log", "-1", "--format=%H %aI", commit, "--", path).split()
    sha, when = (out[0], out[1]) if len(out) == 2 else (commit, "")
    said = parse_when(when)
    said_at = said.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z") if said else ""
    for name, value in edits.items():
        cur = rec.fields[name]
        rec.fields[name] = FieldValue(value, max(said_at, cur.said_at), [f"commit:{sha[:12]}"],
                                      "edit", "edit", cur.version + 1, rec.version)
    rec.version += 1
    return True
