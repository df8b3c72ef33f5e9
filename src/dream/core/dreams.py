"""Dream runs as use-cases: run, correct, promote or discard, and the runs view."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dream import runs
from dream.app import App
from dream.config import PACK_HIGH, PACK_LOW
from dream.errors import BadInput, NoteNotFound
from dream.kinds.fields import check
from dream.models.base import known_configured
from dream.notes.address import parse
from dream.pipeline import commit as git_commit
from dream.pipeline.corrections import record_correction, target_of
from dream.pipeline.prompt import PACK_TOKENS
from dream.pipeline.run import RunOptions, run_dream
from dream.pipeline.state import Scope
from dream.runs import Run
from dream.secrets import redact

PACK_ENV = "DREAM_PACK_TOKENS"


def scopes_for(app: App, project: str | None = None) -> tuple[list[Scope], str | None]:
    """The current project's scope (or ``project``'s, when a store manages it) and the
    personal scope."""
    from dream.pipeline.answers import app_scopes

    return app_scopes(app, project)


def scope_of(app: App, address: str) -> tuple[Scope, str, str | None]:
    """(scope, path inside its store, project key of the run) for a record's address. An
    ``@projects/<name>/`` address is that project's wherever the command runs."""
    from dream.pipeline.answers import address_project

    scopes, key = scopes_for(app, address_project(address))
    relpath = parse(address).relpath
    scope = next((s for s in scopes if relpath.startswith(s.root.rstrip("/") + "/")), None)
    if scope is None:
        raise BadInput(f"{address} is not in this project or in @user/",
                       "run 'dream correct' inside the project the record belongs to")
    return scope, relpath, key


def run_options(app: App, **kw: Any) -> RunOptions:
    """RunOptions from the command's flags, then the environment, then config.toml."""
    cfg = app.config
    flag, env = kw.pop("pack_tokens", None), os.environ.get(PACK_ENV)
    pack = flag or env or cfg.get("run", "pack_tokens", PACK_TOKENS)
    # a bad value is named where it was set: the flag, the variable or config.toml
    where = ("--pack-tokens" if flag else f"{PACK_ENV}" if env else
             f"run.pack_tokens in {cfg.path}")
    try:
        pack = int(pack)
        if not PACK_LOW <= pack <= PACK_HIGH:
            raise ValueError(pack)
    except (TypeError, ValueError):
        # the same bounds as --pack-tokens: past them no model's context holds a call
        raise BadInput(f"{where} = {pack!r} is not a number of tokens from {PACK_LOW:,} "
                       f"to {PACK_HIGH:,}", "set it to e.g. 12000") from None
    flag_model = kw.pop("model", None)
    model = flag_model or cfg.get("model", "default", "rules")
    if not flag_model:
        known_configured(str(model), dict(cfg.data.get("model", {})), str(cfg.path))
    brief = kw.pop("brief_tokens", None) or cfg.get("run", "brief_tokens", 2000)
    try:
        brief = int(brief)
    except (TypeError, ValueError):
        raise BadInput(f"run.brief_tokens in {cfg.path} must be a whole number",
                       "set it to e.g. 2000") from None
    flag_apply = kw.pop("apply", None)
    apply = flag_apply or cfg.get("run", "apply", "auto")
    if apply not in ("auto", "review"):
        where = "--apply" if flag_apply else f"run.apply in {cfg.path}"
        raise BadInput(f"{where} = {apply!r} is not a way to apply a run",
                       "use auto or review")
    # a caller with its own provider settings or prices (a benchmark's local server)
    # passes them; everyone else gets config.toml's
    settings = kw.pop("model_settings", None) or dict(cfg.data.get("model", {}))
    pricing = kw.pop("pricing", None) or dict(cfg.data.get("pricing", {}))
    return RunOptions(model=model, model_settings=settings, pricing=pricing,
                      pack_tokens=pack, brief_tokens=brief, apply=apply, **kw)


def run(app: App, progress: Callable[[str, int, int], None] | None = None,
        project: str | Sequence[str] | None = None,
        **flags: Any) -> tuple[list[Run], str | None]:
    """Run a dream over the current project (or ``project``: one or several names or keys
    a store knows, all in one run) and the personal streams; returns the runs and the
    project key they covered (None when they covered several)."""
    wanted = [project] if project is None or isinstance(project, str) else list(project)
    scopes: list[Scope] = []
    keys: list[str] = []
    for name in wanted or [None]:
        found, key = scopes_for(app, name)
        scopes += [s for s in found
                   if not any((s.store.id, s.root) == (t.store.id, t.root) for t in scopes)]
        if key and key not in keys:
            keys.append(key)
    scopes.sort(key=lambda s: s.project_key is None)   # the projects, then personal streams
    key = keys[0] if len(keys) == 1 else None
    opts = run_options(app, progress=progress, **flags)
    return run_dream(app.db, app.home.notes_path, scopes, opts, key), key


def ran_before(app: App) -> bool:
    """Whether a dream run (not a dry run) ever ran in this home."""
    return runs.any_ran(app.db)


@dataclass
class Correction:
    run: Run
    item: str
    address: str
    field: str
    value: str
    kind: str

    def as_dict(self) -> dict[str, Any]:
        return {**self.run.as_dict(), "item": self.item, "address": self.address,
                "field": self.field, "value": self.value, "kind": self.kind}


def correct(app: App, address: str, field: str, value: str) -> Correction:
    """A correction typed now: evidence said at this moment, applied by a realtime run.
    The value is redacted before it is stored, run or echoed."""
    value = redact(value)[0]
    scope, relpath, key = scope_of(app, address)
    kind, _ = target_of(scope, relpath)
    head = scope.store.repo.head()
    if head is None or scope.store.repo.read_at(head, relpath) is None:
        raise NoteNotFound(f"no record at {address}",
                           f"list the records with 'dream notes list {scope.address_prefix}'")
    field, value = check(kind, field, value)
    item_id = record_correction(app.db, scope, relpath, field, value)
    opts = run_options(app, mode="realtime", sweep=False, only_ids=[item_id])
    done = run_dream(app.db, app.home.notes_path, [scope], opts, key)
    run = done[-1]
    if run.status == "ok" and not run.commit:
        # never say "corrected" when the record did not change
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(run.details.dropped.items()))
        raise BadInput(
            f"the correction of {field} at {address} changed nothing (run {run.id}"
            + (f"; dropped: {why}" if why else "") + ")",
            f"the record may already say this, or a statement dated later than now holds "
            f"the field: see 'dream show {address}' and its history")
    return Correction(run, item_id, address, field, value, kind)


def decide(app: App, run_id: str, promote: bool) -> Run:
    """Promote or discard a run left for review (``--apply review``)."""
    from dream.pipeline.decide import decide as decide_run

    app.home.require()
    return decide_run(app.db, app.stores.all(), app.home.notes_path, run_id, promote,
                      int(app.config.get("run", "brief_tokens", 2000)))


def list_runs(app: App, limit: int = 30) -> list[Run]:
    app.home.require()
    return runs.recent(app.db, limit, "dream")


@dataclass
class RunView:
    run: Run
    diff_stat: str | None
    store: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        out = {**self.run.as_dict(), "diff_stat": self.diff_stat}
        if self.store is not None:
            out["store"] = self.store
        return out


def show_run(app: App, run_id: str) -> RunView:
    """One run with the diff stat of its commit."""
    app.home.require()
    run = runs.get(app.db, run_id, "dream")
    for store in app.stores.all():
        sha = run.details.commits.get(store.id)
        if sha:
            parent = store.repo.git("rev-parse", "-q", "--verify", f"{sha}^",
                                    check=False).strip() or None
            return RunView(run, git_commit.diff_stat(store.repo, parent, sha),
                           store.describe())
    return RunView(run, None, None)
