"""Bundle (code): group a run's items by entity or thread, across streams.

Items are nodes of a union-find. Two items join when they are consecutive in one stream
within ``THREAD_GAP``, or when they name the same entity within ``ENTITY_WINDOW`` of each
other. So Jordan's text, the group-chat line where Jordan spoke and Jordan's email about
one dinner land in one bundle, and no model sees them apart. Entities come from the spool's
``entities`` column (filled by the collector), the author of another person's message and
capitalised names in the text. An entity named by a large share of the run (the user's own
name, the project's name) is too common to join on and is ignored. A bundle larger than
``MAX_BUNDLE_ITEMS`` items or ``MAX_BUNDLE_CHARS`` characters of prompt is cut into
consecutive chunks so a call stays bounded.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import pairwise

from dream.items import Item
from dream.kinds.text import names, parse_when

THREAD_GAP = timedelta(hours=12)
ENTITY_WINDOW = timedelta(days=7)
MAX_BUNDLE_ITEMS = 120
MAX_BUNDLE_CHARS = 40_000    # about 10k tokens of prompt per bundle
COMMON_SHARE = 0.25          # an entity in more than this share of items does not join
COMMON_MIN = 40              # ... unless the run is small


@dataclass
class Bundle:
    id: str
    items: list[Item]
    entities: list[str] = field(default_factory=list)
    streams: list[str] = field(default_factory=list)

    @property
    def evidence_count(self) -> int:
        return sum(1 for i in self.items if i.evidence)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb


def item_entities(item: Item) -> list[str]:
    found: dict[str, None] = {e: None for e in item.entities}
    if item.role == "other" and item.author:
        found[item.author.strip()] = None
    if item.evidence and item.kind != "tool_result" and not item.entities:
        for name in names(item.text[:2000]):
            found[name] = None
    return [e for e in found if e]


def make_bundles(items: list[Item]) -> list[Bundle]:
    items = sorted(items, key=lambda i: (i.said_at, i.seq))
    n = len(items)
    uf = _UnionFind(n)
    times = [parse_when(i.said_at) for i in items]
    ents = [[e.lower() for e in item_entities(i)] for i in items]

    last_in_stream: dict[str, int] = {}
    for idx, item in enumerate(items):
        prev = last_in_stream.get(item.stream)
        if prev is not None and _close(times[prev], times[idx], THREAD_GAP):
            uf.union(prev, idx)
        last_in_stream[item.stream] = idx

    by_entity: dict[str, list[int]] = defaultdict(list)
    for idx, es in enumerate(ents):
        for e in set(es):
            by_entity[e].append(idx)
    limit = max(COMMON_MIN, int(n * COMMON_SHARE))
    for idxs in by_entity.values():
        if len(idxs) > limit:
            continue
        for a, b in pairwise(idxs):
            if _close(times[a], times[b], ENTITY_WINDOW):
                uf.union(a, b)

    groups: dict[int, list[int]] = defaultdict(list)
    for idx in range(n):
        groups[uf.find(idx)].append(idx)
    bundles: list[Bundle] = []
    for root in sorted(groups):
        members = groups[root]
        # a bundle of nothing but context (assistant prose) says nothing: skip it
        if not any(items[i].evidence for i in members):
            continue
        for chunk in _chunks([items[i] for i in members]):
            ent_count: dict[str, int] = defaultdict(int)
            display: dict[str, str] = {}
            for it in chunk:
                for e in item_entities(it):
                    ent_count[e.lower()] += 1
                    display.setdefault(e.lower(), e)
            top = sorted(ent_count, key=lambda k: (-ent_count[k], k))[:8]
            bundles.append(Bundle(
                id=f"B{len(bundles) + 1}", items=chunk,
                entities=[display[k] for k in top],
                streams=sorted({it.stream for it in chunk}),
            ))
    return bundles


def shown_chars(item: Item) -> int:
    """How many characters of the item a prompt shows (see prompt.ITEM_CHARS)."""
    return min(len(item.text), 400 if not item.evidence else 4000) + 60


def _chunks(members: list[Item]) -> list[list[Item]]:
    """Consecutive chunks of at most MAX_BUNDLE_ITEMS items and MAX_BUNDLE_CHARS shown."""
    out: list[list[Item]] = []
    cur: list[Item] = []
    size = 0
    for it in members:
        cost = shown_chars(it)
        if cur and (len(cur) >= MAX_BUNDLE_ITEMS or size + cost > MAX_BUNDLE_CHARS):
            out.append(cur)
            cur, size = [], 0
        cur.append(it)
        size += cost
    if cur:
        out.append(cur)
    return out


def _close(a, b, gap: timedelta) -> bool:
    if a is None or b is None:
        return True
    return abs(b - a) <= gap
