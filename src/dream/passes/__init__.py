"""The six read-only review passes: memory, failures, tools, corrections, codify, project.

Each pass is a pure function of the loaded :class:`~dream.passes.evidence.Evidence`
(``run(ev) -> PassResult``); none of them writes anything. :func:`run_all` runs them in
parallel and, with a model provider other than ``rules``, lets the model reword what the
deterministic core found (:mod:`dream.passes.model`).
"""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

from dream.errors import DreamError
from dream.models.base import Provider
from dream.passes.base import PASS_NAMES, Candidate, PassResult
from dream.passes.evidence import Evidence

__all__ = ["PASS_NAMES", "Candidate", "Evidence", "PassResult", "module", "run_all", "run_one"]


def module(name: str) -> ModuleType:
    if name not in PASS_NAMES:
        raise ValueError(f"unknown pass {name}")
    return importlib.import_module(f"dream.passes.{name}")


def run_one(name: str, ev: Evidence, provider: Provider | None = None) -> PassResult:
    try:
        result: PassResult = module(name).run(ev)
    except Exception as exc:  # noqa: BLE001 - one broken pass must not take the others down
        return PassResult(name, status="failed", error=f"{type(exc).__name__}: {exc}",
                          journal={"missing": [], "error": f"{type(exc).__name__}: {exc}"})
    for cand in result.candidates:
        if not cand.replaces and cand.change.get("replaces"):
            cand.replaces = list(cand.change["replaces"])
    if provider is not None and result.candidates:
        from dream.passes.model import refine

        try:
            refine(result, ev, provider)
        except DreamError as exc:
            result.status = "partial"
            result.error = exc.one_line()
            result.journal["model_error"] = exc.one_line()
    return result


def run_all(ev: Evidence, provider: Provider | None = None,
            names: tuple[str, ...] = PASS_NAMES) -> list[PassResult]:
    """Run the passes in parallel; results come back in ``names`` order."""
    with ThreadPoolExecutor(max_workers=len(names), thread_name_prefix="dream-pass") as pool:
        futures = [pool.submit(run_one, name, ev, provider) for name in names]
        return [f.result() for f in futures]
