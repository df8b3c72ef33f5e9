#!/usr/bin/env python3
"""Git merge driver for bench/RESULTS.md: a three-way merge by dated section.

Benchmarks append one section each (a ``## `` heading, its table and a JSON block). Two
branches that both append make a conflict at the end of the file; git's ``union`` driver
resolved it line by line and, where sections share lines (``</details>``, fences), it
interleaved them, so JSON blocks ended up under other benchmarks' headings. This driver
merges whole sections instead: a section is kept, replaced or dropped as a three-way merge
of that section says; sections only one side added come after the other side's, in order.

Enable it once per clone (``.gitattributes`` names it; without this git falls back to its
ordinary text merge, which stops with a conflict instead)::

    git config merge.results.name "bench/RESULTS.md by section"
    git config merge.results.driver "python3 scripts/merge_results.py %O %A %B"

Usage as git calls it: ``merge_results.py BASE OURS THEIRS``; the result is written to
OURS; the exit status is 1 when one section was changed differently on both sides (both
versions are kept, marked, for a person to choose).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HEADING = re.compile(r"(?m)^(?=## )")


def sections(text: str) -> dict[str, str]:
    """The preamble (key '') and each section keyed by its heading line; a heading seen
    again gets a counter so that no section is lost."""
    out: dict[str, str] = {}
    for part in HEADING.split(text):
        if not part and out:
            continue
        key = part.split("\n", 1)[0] if part.startswith("## ") else ""
        n, unique = 1, key
        while unique in out:
            n += 1
            unique = f"{key} #{n}"
        out[unique] = part
    return out


def merge(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    """The merged text and whether a section conflicted."""
    b, o, t = sections(base), sections(ours), sections(theirs)
    conflict = False
    merged: list[str] = []
    for key in [*o, *(k for k in t if k not in o)]:
        mine, yours, old = o.get(key), t.get(key), b.get(key)
        if mine == yours or yours == old:
            chosen = mine
        elif mine == old:
            chosen = yours
        elif mine is None or yours is None:
            chosen = mine if yours is None else yours     # one side dropped, one changed
        else:
            conflict = True
            chosen = (f"<<<<<<< ours\n{_ended(mine)}=======\n{_ended(yours)}"
                      f">>>>>>> theirs\n")
        if chosen is not None:
            merged.append(chosen)
    # a section that came last on its side may lack the blank line before the next heading
    text = "".join(part if n == len(merged) - 1 else _ended(part).rstrip("\n") + "\n\n"
                   for n, part in enumerate(merged))
    return text, conflict


def _ended(part: str) -> str:
    return part if part.endswith("\n") else part + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print("usage: merge_results.py BASE OURS THEIRS (git passes %O %A %B)",
              file=sys.stderr)
        return 2
    base, ours, theirs = (Path(p).read_text(encoding="utf-8") for p in argv[1:])
    text, conflict = merge(base, ours, theirs)
    Path(argv[2]).write_text(text, encoding="utf-8")
    return 1 if conflict else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
