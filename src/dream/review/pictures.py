"""The pictures page of ``dream serve``: where people would rather look than read.

- **Coming up**: a timeline of the events from a day on (today by default), drawn one row
  per event at its date, coloured by status, across every project and ``@user/``: each
  scope's *upcoming* list from the search index (as the memory pages list it), so the page
  reads at most ``MAX_EVENTS`` records whatever the size of the memory.
- **Memory growth**: Markdown documents after each run (the front page's rule).
- **Churn per run**: records added, changed, crumpled and removed by each run's commits,
  read from git (``diff-tree`` of the run's commit against its first parent; a change is
  *crumpled* when the new version's status is ``crumpled`` and the old one's was not).
  ``brief.md`` and ``.dream/`` are not counted. Commits never change, so counts are cached
  by commit.
- **Cost per run** in dollars (dry runs show their estimate).

Inline SVG drawn by code: no scripts, no network assets. Every value is escaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from html import escape
from typing import TYPE_CHECKING, Any

from dream.errors import DreamError
from dream.kinds.records import Record
from dream.review.charts import HEIGHT, WIDTH, Point, chart, nice_ceiling

if TYPE_CHECKING:
    from dream.review.web import RunsView

MAX_EVENTS = 60
CHURN = (("added", "#2e7d32"), ("changed", "#3b6ea8"), ("crumpled", "#b26a00"),
         ("removed", "#c62828"))
STATUS_COLOURS = {"confirmed": "#2e7d32", "proposed": "#3b6ea8", "declined": "#9e9e9e",
                  "cancelled": "#c62828"}
_CRUMPLED = re.compile(rb"^(status: *'?crumpled|  status:\n    value: *'?crumpled)", re.M)


@dataclass
class Pictures:
    view: RunsView

    def __post_init__(self) -> None:
        self._churn: dict[tuple[str, str], dict[str, int] | None] = {}     # by commit
        self._events: dict[tuple[str, str, str], dict[str, Any] | None] = {}

    # -- data ----------------------------------------------------------------------------------
    def events(self, start: date) -> list[dict[str, Any]]:
        """Events dated ``start`` or later, soonest first (at most MAX_EVENTS): each scope's
        upcoming list from the search index (what the memory pages list), then each of
        those records read at HEAD for its time, place and people."""
        from dream.core import memory
        from dream.review.memory_pages import record_link

        found: list[tuple[str, str, Any]] = []
        with self.view.lock:
            app = self.view.app
            stores = {s.id: s for s in app.stores.all()}
            for scope in memory.scopes(app):
                if scope.root != "user" and not scope.root.startswith("projects/"):
                    continue
                listed = memory.list_records(app, scope.store_id, scope.root, "upcoming", 1,
                                             MAX_EVENTS, start.isoformat())
                found += [(row.day, row.path, scope) for row in listed.rows if row.day]
            found.sort(key=lambda f: (f[0], f[1]))
            heads = {store_id: store.repo.head() for store_id, store in stores.items()}
            out = []
            for _day, path, scope in found[:MAX_EVENTS]:
                store = stores[scope.store_id]
                event = self._event(store, heads[store.id], path)
                if event is not None:
                    out.append({**event, "link": record_link(store.id, path)})
        out.sort(key=lambda e: (e["date"], e["time"] or "", e["title"]))
        return out

    def _event(self, store: Any, head: str | None, path: str) -> dict[str, Any] | None:
        """An event record's timeline fields at ``head`` (cached: a commit never changes)."""
        key = (store.id, head or "", path)
        if key not in self._events:
            data = store.repo.read_at(head, path) if head else None
            rec = Record.loads(data.decode("utf-8", "replace")) if data else None
            when = _date(rec.get("date")) if rec is not None else None
            if len(self._events) > 10 * MAX_EVENTS:
                self._events.clear()
            self._events[key] = None if rec is None or when is None else {
                "date": when, "time": rec.get("time"), "title": rec.get("title") or rec.key,
                "status": rec.get("status") or "proposed", "place": rec.get("place"),
                "participants": rec.get("participants"), "address": "@" + path}
        return self._events[key]

    def churn(self, runs: list[dict[str, Any]]) -> list[dict[str, int] | None]:
        """Records added, changed, crumpled and removed by each run's commits (None for a
        run that made none that can be read). The commits not counted yet are read with
        one ``git log --raw`` per store."""
        with self.view.lock:
            commits = [self.view._commits(run) for run in runs]
            todo: dict[str, list[str]] = {}
            for found in commits:
                for store_id, sha in found.items():
                    if (store_id, sha) not in self._churn:
                        todo.setdefault(store_id, []).append(sha)
            for store_id, shas in todo.items():
                self._count_commits(store_id, shas)
            out: list[dict[str, int] | None] = []
            for found in commits:
                total = None
                for store_id, sha in found.items():
                    counts = self._churn.get((store_id, sha))
                    if counts is None:
                        continue
                    total = total or dict.fromkeys([n for n, _ in CHURN], 0)
                    for name in total:
                        total[name] += counts[name]
                out.append(total)
        return out

    def _count_commits(self, store_id: str, shas: list[str]) -> None:
        """Count each commit's changes against its first parent (None when the commit is
        not in the store)."""
        store = self.view._store(store_id)
        shas = list(dict.fromkeys(shas))
        for sha in shas:
            self._churn[(store_id, sha)] = None
        if store is None:
            return
        try:
            raw = store.repo.git("log", "--no-walk=unsorted", "-z", "--raw", "--no-renames",
                                 "--root", "--no-abbrev", "--format=%x01%H", *shas)
        except DreamError:      # a commit that is gone: count them one by one
            raw = "".join(store.repo.git("log", "--no-walk", "-z", "--raw", "--no-renames",
                                         "--root", "--no-abbrev", "--format=%x01%H", sha,
                                         check=False) for sha in shas)
        read = store.repo.reader.read_spec           # one cat-file process for the page
        for chunk in raw.split("\x01")[1:]:
            sha, _, rest = chunk.partition("\x00")
            counts = dict.fromkeys([n for n, _ in CHURN], 0)
            changed: list[tuple[str, str]] = []
            fields = rest.lstrip("\n").split("\x00")
            for meta, path in zip(fields[0::2], fields[1::2], strict=False):
                if not meta.startswith(":") or not _counted(path):
                    continue
                _m1, _m2, old, new, status = meta[1:].split()
                if status == "A":
                    counts["added"] += 1
                elif status == "D":
                    counts["removed"] += 1
                else:
                    changed.append((old, new))
            crumpled = [old for old, new in changed if _CRUMPLED.search(read(new) or b"")]
            counts["crumpled"] = sum(1 for old in crumpled
                                     if not _CRUMPLED.search(read(old) or b""))
            counts["changed"] = len(changed) - counts["crumpled"]
            self._churn[(store_id, sha.strip())] = counts

    # -- page ----------------------------------------------------------------------------------
    def page(self, query: dict[str, list[str]]) -> str:
        from dream.review import pages

        start, note = _start(query)
        runs = list(reversed(self.view.runs()))                      # oldest first
        churned = list(zip(runs, self.churn(runs), strict=True))
        growth = [Point(pages._label(r), float(r["memory_docs"]), r["id"],
                        f"{r['id']}: {r['memory_docs']} documents")
                  for r in runs if r["memory_docs"] is not None]
        costs = [Point(pages._label(r), float(r["cost_usd"]), r["id"],
                       f"{r['id']} ({r['status']}): {pages._money(r['cost_usd'])}")
                 for r in runs]
        body = [STYLE, "<h1>Pictures</h1>"]
        if note:
            body.append(f'<p class="error" id="from-error">{escape(note)}</p>')
        body.append(timeline(self.events(start), start))
        body.append('<div class="charts">'
                    + chart("chart-growth", "Memory documents after each run", growth, "",
                            "line", "#2e7d32")
                    + churn_chart([(r, c) for r, c in churned if c is not None])
                    + chart("chart-cost", "Cost per run (USD)", costs, "$", "bar")
                    + "</div>")
        return pages._page("Dream pictures", "".join(body))


STYLE = """<style>
svg.timeline{background:#fff;border:1px solid #e3e6ea}svg .ev-label{font-size:11px;fill:#1d232b}
svg .ev-date{font-size:10px;fill:#555}svg .today{stroke:#c62828;stroke-dasharray:3 3}
.legend{font-size:11px}
</style>"""


def _counted(path: str) -> bool:
    return path.endswith(".md") and not path.startswith(".dream/") and \
        path.rsplit("/", 1)[-1] != "brief.md"


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value and len(value) == 10 else None
    except ValueError:
        return None


def _start(query: dict[str, list[str]]) -> tuple[date, str]:
    """The timeline's first day: ``?from=YYYY-MM-DD``, else today (UTC)."""
    today = datetime.now(UTC).date()
    raw = (query.get("from") or [""])[0].strip()
    if not raw:
        return today, ""
    found = _date(raw)
    if found is None:
        return today, f"'{raw}' is not a date: give ?from=YYYY-MM-DD; showing from today"
    return found, ""


def timeline(events: list[dict[str, Any]], start: date) -> str:
    """One row per event: its date, time and title in a column on the left, a dot at its
    date on the time axis to the right (weekly ticks, a dashed line at ``start``)."""
    title = f"Coming up from {start.isoformat()}"
    width, row, top, label_w, right = WIDTH * 2, 20, 46, 420, 24
    head = (f'<svg class="timeline" id="timeline" role="img" viewBox="0 0 {width} {{h}}" '
            f'width="{width}" height="{{h}}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{escape(title)}</title>'
            f'<text x="16" y="18" class="chart-title">{escape(title)}</text>')
    if not events:
        return (head.format(h=80) + f'<text x="{width / 2}" y="52" text-anchor="middle" '
                'class="empty">no events coming up</text></svg>')
    end = max(events[-1]["date"], start + timedelta(days=7))
    span = max(1, (end - start).days)
    left = label_w + 16
    plot = width - left - right

    def x_of(day: date) -> float:
        return left + plot * (day - start).days / span

    height = top + row * len(events) + 8
    parts = [head.format(h=height)]
    step = max(1, -(-span // 10 // 7)) * 7          # weekly ticks, at most about 10
    day = start
    while day <= end:
        x = x_of(day)
        parts.append(f'<line x1="{x:.1f}" y1="{top - 10}" x2="{x:.1f}" y2="{height - 4}" '
                     f'class="grid"/><text x="{x:.1f}" y="{top - 14}" text-anchor="middle" '
                     f'class="tick">{escape(day.strftime("%b %d"))}</text>')
        day += timedelta(days=step)
    parts.append(f'<line x1="{left}" y1="{top - 10}" x2="{left}" y2="{height - 4}" '
                 'class="today"/>')
    for i, ev in enumerate(events):
        x, y = x_of(ev["date"]), top + row * i + 6
        colour = STATUS_COLOURS.get(ev["status"], "#3b6ea8")
        when = ev["date"].isoformat() + (f" {ev['time']}" if ev["time"] else "")
        label = ev["title"] + (f" · {ev['place']}" if ev["place"] else "") + \
            (f" · {ev['participants']}" if ev["participants"] else "")
        if ev["status"] not in ("confirmed", "proposed"):
            label += f" ({ev['status']})"
        short = label if len(label) <= 52 else label[:51] + "…"
        tip = f"{when} {label} [{ev['status']}] {ev['address']}"
        parts.append(
            f'<a href="{escape(ev["link"])}">'
            f'<g class="event" data-date="{ev["date"].isoformat()}" '
            f'data-status="{escape(ev["status"])}" data-address="{escape(ev["address"])}">'
            f'<title>{escape(tip)}</title>'
            f'<text x="16" y="{y + 4}" class="ev-label"><tspan class="ev-date">'
            f'{escape(when)}</tspan> {escape(short)}</text>'
            f'<line x1="{left}" y1="{y}" x2="{x:.1f}" y2="{y}" stroke="{colour}" '
            'stroke-opacity="0.25"/>'
            f'<circle cx="{x:.1f}" cy="{y}" r="5" fill="{colour}"/></g></a>')
    parts.append("</svg>")
    return "".join(parts)


def churn_chart(runs: list[tuple[dict[str, Any], dict[str, int]]]) -> str:
    """Stacked bars per run: added, changed, crumpled, removed."""
    from dream.review import pages

    title = "Records added, changed, crumpled, removed per run"
    left, right, top, bottom = 64, 16, 44, 40
    head = (f'<svg class="chart" id="chart-churn" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{escape(title)}</title>'
            f'<text x="{left}" y="18" class="chart-title">{escape(title)}</text>')
    legend = "".join(
        f'<rect x="{left + i * 80}" y="26" width="9" height="9" fill="{colour}"/>'
        f'<text x="{left + i * 80 + 12}" y="34" class="legend">{name}</text>'
        for i, (name, colour) in enumerate(CHURN))
    if not runs:
        return (head + legend + f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" '
                'text-anchor="middle" class="empty">no runs with commits yet</text></svg>')
    top_value = nice_ceiling(max(sum(c.values()) for _r, c in runs))
    plot_w, plot_h = WIDTH - left - right, HEIGHT - top - bottom
    parts = [head, legend]
    for frac in (0, 0.5, 1):
        y = top + plot_h * (1 - frac)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - right}" y2="{y:.1f}" '
                     f'class="grid"/><text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'class="tick">{top_value * frac:g}</text>')
    step = plot_w / len(runs)
    bar_w = max(2.0, step * 0.7)
    for i, (run, counts) in enumerate(runs):
        x = left + step * i + (step - bar_w) / 2
        base = top + plot_h
        tip = f"{run['id']}: " + ", ".join(f"{counts[n]} {n}" for n, _c in CHURN)
        parts.append(f'<g class="churn" data-run="{escape(run["id"])}" '
                     + " ".join(f'data-{n}="{counts[n]}"' for n, _c in CHURN)
                     + f"><title>{escape(tip)}</title>")
        for name, colour in CHURN:
            h = plot_h * counts[name] / top_value
            if h <= 0:
                continue
            base -= h
            parts.append(f'<rect class="bar {name}" x="{x:.1f}" y="{base:.1f}" '
                         f'width="{bar_w:.1f}" height="{h:.1f}" fill="{colour}"/>')
        parts.append("</g>")
    every = max(1, -(-len(runs) * 75 // plot_w))
    for i, (run, _c) in enumerate(runs):
        if i % every == 0 or i == len(runs) - 1:
            x = left + step * (i + 0.5)
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - bottom + 16}" text-anchor="middle" '
                         f'class="tick">{escape(pages._label(run))}</text>')
    parts.append("</svg>")
    return "".join(parts)
