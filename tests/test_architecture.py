"""Import boundaries: the layers stay apart (imports inside functions count too)."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO_ROOT

SRC = REPO_ROOT / "src"
FRONT_ENDS = ("dream.cli", "dream.mcp_server", "dream.mcp_tools", "dream.review.web",
              "dream.review.pages", "dream.review.memory_pages", "dream.integrations", "dream.__main__")
CORE = ("dream.errors", "dream.home", "dream.config", "dream.db", "dream.tokens", "dream.runs",
        "dream.items")
# the use-cases: above the pipeline, review and notes, below every front end
SERVICE = ("dream.core",)


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in (SRC / "dream").rglob("*.py"):
        module = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "dream":
                    found |= {f"dream.{alias.name}" for alias in node.names}
                elif node.module.startswith("dream."):
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("dream.")}
        graph[module] = found
    return graph


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


GRAPH = _imports()


@pytest.mark.parametrize("layer, forbidden", [
    # the store is the base: it knows nothing of what is built on it
    (("dream.store",), ("dream.notes", "dream.index", "dream.spool", "dream.sources",
                        "dream.pipeline", "dream.passes", "dream.review", "dream.models",
                        "dream.kinds", "dream.detect", "dream.app", *SERVICE, *FRONT_ENDS)),
    # the core modules import only each other
    (CORE, ("dream.store", "dream.notes", "dream.index", "dream.spool", "dream.sources",
            "dream.pipeline", "dream.passes", "dream.review", "dream.models", "dream.kinds",
            "dream.detect", "dream.app", *SERVICE, *FRONT_ENDS)),
    # readers of sources know nothing of the spool, the pipeline or front ends
    (("dream.sources",), ("dream.spool", "dream.pipeline", "dream.passes", "dream.review",
                          "dream.detect", *FRONT_ENDS)),
    # the dream run never reaches into review dreams or a front end
    (("dream.pipeline", "dream.kinds", "dream.models"),
     ("dream.passes", "dream.review", *FRONT_ENDS)),
    # detection reads items and text: below the run's provider and the review passes, above
    # the record kinds; it stores, loads and decides nothing
    (("dream.detect",), ("dream.store", "dream.notes", "dream.index", "dream.spool",
                         "dream.sources", "dream.pipeline", "dream.models", "dream.passes",
                         "dream.review", "dream.app", "dream.api", *FRONT_ENDS)),
    # the record kinds know nothing of detection
    (("dream.kinds",), ("dream.detect",)),
    # no library layer imports a front end
    (("dream.notes", "dream.index", "dream.spool", "dream.passes", "dream.api",
      "dream.automations", "dream.review.service"), FRONT_ENDS),
    # the service layer is called by front ends and calls everything below them
    (SERVICE, FRONT_ENDS),
    # nothing below the service layer calls up into it
    (("dream.store", "dream.notes", "dream.index", "dream.spool", "dream.sources",
      "dream.pipeline", "dream.passes", "dream.models", "dream.kinds", "dream.detect",
      "dream.app", "dream.review.service", "dream.review.promotion", "dream.review.proposals",
      "dream.review.handoff", "dream.automations", *CORE), SERVICE),
])
def test_layer_does_not_import(layer, forbidden):
    bad = sorted(f"{module} imports {target}"
                 for module, targets in GRAPH.items() if _under(module, layer)
                 for target in targets if _under(target, forbidden))
    assert not bad, "\n".join(bad)


def test_front_ends_do_not_read_run_rows():
    """Runs are read through dream.runs (a typed Run), never as rows of the runs table."""
    offenders = []
    for path in (SRC / "dream").rglob("*.py"):
        module = ".".join(path.relative_to(SRC).with_suffix("").parts)
        if module in ("dream.runs", "dream.db", "dream.pipeline.spool"):
            continue            # the spool joins on run status in SQL; it reads no run row
        text = path.read_text(encoding="utf-8")
        for needle in ("FROM runs", "UPDATE runs", "INTO runs"):
            if needle in text:
                offenders.append(f"{module}: {needle}")
    assert not offenders, "\n".join(offenders)


def test_the_graph_was_read():
    assert "dream.pipeline.run" in GRAPH and "dream.store.git" in GRAPH
    assert "dream.errors" in GRAPH["dream.store.git"]
    # the run's provider and the review passes read through the same detectors
    for reader in ("dream.models.rules", "dream.passes.corrections", "dream.passes.codify"):
        assert any(_under(t, ("dream.detect",)) for t in GRAPH[reader]), reader
