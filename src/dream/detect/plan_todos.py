"""To-dos taken on for a plan, and dropped with it.

"I'll bring a thermos of mulled apple" said in the chat about Saturday's bonfire is a
to-do for that bonfire: when the bonfire is called off, or the user drops out of it, the
thermos is no longer to bring. Rows carry no conversation and a later run is shown only
what its messages touch, so the link is written on the to-do: its ``event`` field names
the key of the event it was taken on for.

- A to-do opened in a call is linked to a plan of the same call when the message that
  opened it also says something of the plan (the event cites it: "I'm in! I'll bring a
  thermos" joins the plan and takes the thermos on; "I'll send you Dean's number" a few
  minutes later in the same chat says nothing of the plan and is linked to none), within
  :data:`WINDOW` of the plan's other messages in its conversation
  (:func:`~dream.detect.finding.conversation`), the plan is not already cancelled or
  declined by then, and it is upcoming: its day is not before the day the to-do was
  said, nor before the to-do's own due day. Of several such plans, the one said of
  nearest in time.
- A plan that ends cancelled or declined in a call (its last status said) closes the open
  to-dos linked to it, those of earlier runs (rows whose ``event`` is its key) and those
  opened before the cancelling message in the same call: status ``dropped`` (not done),
  with the cancelling message as evidence. Nothing is deleted. When the cancelling
  message books or confirms another plan in its place ("Nobu cancelled our table, I
  booked Zuma instead"), the to-dos are linked to that plan instead and stay open.
"""

from __future__ import annotations

from datetime import timedelta

from dream.detect.finding import Finding, conversation
from dream.items import Item
from dream.kinds.records import slug_key
from dream.kinds.text import parse_when

WINDOW = timedelta(hours=12)
ENDED = ("cancelled", "declined")


def linked(found: list[Finding], items: dict[str, Item], rows: list[dict]) -> list[Finding]:
    """``found`` (one call's findings, in order) with its new to-dos linked to their plan
    and the linked to-dos of a called-off plan closed (appended after the plan's events).
    ``items`` are the call's items by handle, ``rows`` the rows it was shown."""
    by_handle = {r["handle"]: r for r in rows}
    plans: dict[str, dict] = {}         # event key -> what the call says of it
    for n, f in enumerate(found):
        if f.kind != "event":
            continue
        row = by_handle.get(f.row) if f.row else None
        if f.row and row is None:
            continue
        key = row["key"] if row else slug_key(f.name or f.fields.get("title", ""))
        plan = plans.setdefault(key, {"said": [], "status": [], "date": "", "last": n})
        if row and not plan["date"]:
            plan["date"] = row["fields"].get("date", "")
        plan["date"] = f.fields.get("date") or plan["date"]
        plan["last"] = n
        for h in f.evidence:
            if h in items:
                plan["said"].append(items[h])
        if f.fields.get("status") and f.evidence and f.evidence[0] in items:
            plan["status"].append((f.fields["status"], items[f.evidence[0]]))
    if not plans:
        return found
    opened: dict[str, list[tuple[str, Item, Finding]]] = {}   # event key -> (to-do name,
    #                                                          said in, its finding)
    for f in found:
        if f.kind != "todo" or f.row or not f.name or not f.evidence or \
                f.evidence[0] not in items:
            continue
        item = items[f.evidence[0]]
        key = _plan_of(item, f.fields.get("due", ""), plans)
        if key is not None:
            f.fields["event"] = key
            if all(name != f.name for name, _, _ in opened.get(key, [])):
                opened.setdefault(key, []).append((f.name, item, f))
    closes: dict[int, list[Finding]] = {}
    for key, plan in plans.items():
        if not plan["status"] or plan["status"][-1][0] not in ENDED:
            continue
        cancel = plan["status"][-1][1]
        linked_rows = [r for r in rows if r["kind"] == "todo" and
                       r["fields"].get("status", "open") == "open" and
                       r["fields"].get("event") == key]
        mine = [(name, f) for name, item, f in opened.get(key, [])
                if _order(item) <= _order(cancel)]
        other = _replacement(key, cancel, plans)
        if other is not None:
            # "Nobu cancelled our table, I booked Zuma instead": the plan goes on elsewhere
            # and what was taken on for it is for the new booking
            out = [Finding("todo", {"event": other}, [cancel.id], row=r["handle"])
                   for r in linked_rows]
            for _name, f in mine:
                f.fields["event"] = other
        else:
            out = [Finding("todo_done", {"status": "dropped"}, [cancel.id], row=r["handle"])
                   for r in linked_rows]
            out += [Finding("todo_done", {"status": "dropped"}, [cancel.id], name=name)
                    for name, _ in mine]
        closes.setdefault(plan["last"], []).extend(out)
    result: list[Finding] = []
    for n, f in enumerate(found):
        result.append(f)
        result += closes.get(n, [])
    return result


def _replacement(key: str, cancel: Item, plans: dict[str, dict]) -> str | None:
    """The plan the message calling ``key`` off also books or confirms in its place (a
    rebooking: "I booked Zuma instead"), still on at the end of the call; or None."""
    for other, plan in plans.items():
        if other != key and plan["status"] and plan["status"][-1][0] not in ENDED and \
                any(by.id == cancel.id for _, by in plan["status"]):
            return other
    return None


def _order(item: Item) -> tuple[str, int]:
    return (item.said_at or "", item.seq)


def _plan_of(item: Item, due: str, plans: dict[str, dict]) -> str | None:
    """The key of the plan a to-do said in ``item`` was taken on for, or None."""
    said = parse_when(item.said_at)
    if said is None:
        return None
    day = said.date().isoformat()
    talk = conversation(item.stream)
    best: tuple[timedelta, str] | None = None
    for key, plan in plans.items():
        date = plan["date"]
        if not date or date < day or (due and due > date):
            continue            # not upcoming, or the task is for after it
        if any(status in ENDED and _order(by) <= _order(item)
               for status, by in plan["status"]):
            continue            # already off when the task was taken on
        if all(other.id != item.id for other in plan["said"]):
            continue            # the message says nothing of this plan
        gaps = [abs(when - said) for other in plan["said"]
                if other.id != item.id and conversation(other.stream) == talk
                and (when := parse_when(other.said_at)) is not None]
        gap = min(gaps, default=timedelta(0))
        if gap <= WINDOW and (best is None or gap < best[0]):
            best = (gap, key)
    return best[1] if best else None
