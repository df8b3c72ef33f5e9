"""review start|show|accept|reject|close, and prepare."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dream.cli.common import emit_json, get_app, json_option
from dream.errors import BadInput
from dream.review import handoff, service
from dream.terminal import strip_control


def register(cli: click.Group) -> None:
    cli.add_command(review)
    cli.add_command(prepare)


@click.group()
def review() -> None:
    """Review dreams: six read-only passes propose; a person accepts or rejects."""


@review.command("start")
@click.option("--project", default=None, help="Project key or name (default: this repository).")
@click.option("--model", default=None,
              help="Model spec for richer wording, e.g. openai:gpt-4o-mini (default: rules, "
                   "offline and deterministic).")
@click.option("--all", "all_evidence", is_flag=True,
              help="Review all of the project's evidence, not only what came after the "
                   "review watermark.")
@json_option
def review_start(project: str | None, model: str | None, all_evidence: bool,
                 as_json: bool) -> None:
    """Run the six passes (memory, failures, tools, corrections, codify, project) over the
    project's evidence since its last review and the prepared handoff. Changes nothing."""
    app = get_app()
    result = service.start(app, project, model, all_evidence)
    if as_json:
        emit_json(result)
        return
    _print(result)
    if result["run"]["items"] == 0:
        from dream.cli.run import point_elsewhere

        point_elsewhere(app, result["run"]["project_key"])


@review.command("show")
@click.argument("run", required=False)
@click.option("--project", default=None, help="Project key or name (default: this repository).")
@json_option
def review_show(run: str | None, project: str | None, as_json: bool) -> None:
    """Show a review's learned lines and proposals (the latest review by default)."""
    result = service.show(get_app(), run, project)
    if as_json:
        emit_json(result)
        return
    _print(result)


@review.command("accept")
@click.argument("slugs", nargs=-1, required=True)
@click.option("--run", "run_id", default=None, help="Review run (default: the newest with "
              "that slug).")
@json_option
def review_accept(slugs: tuple[str, ...], run_id: str | None, as_json: bool) -> None:
    """Accept proposals: memory is promoted (one commit each), code and instruction
    proposals are exported as work items under DREAM_HOME/exports/."""
    from dream.core import review as core_review

    done = core_review.accept(get_app(), list(slugs), run_id)
    if as_json:
        emit_json(done)
        return
    for entry in done:
        if entry["status"] == "accepted":
            click.echo(f"accepted {entry['slug']}: {entry['address']} in commit "
                       f"{entry['commit'][:12]} (undo: dream revert {entry['run']})")
        else:
            click.echo(f"exported {entry['slug']}: {entry['export']}")


@review.command("reject")
@click.argument("slugs", nargs=-1, required=True)
@click.option("--why", default=None, help="Why (recorded with the rejection).")
@click.option("--run", "run_id", default=None, help="Review run (default: the newest with "
              "that slug).")
@json_option
def review_reject(slugs: tuple[str, ...], why: str | None, run_id: str | None,
                  as_json: bool) -> None:
    """Reject proposals; they are not proposed again for the same evidence."""
    from dream.core import review as core_review

    done = core_review.reject(get_app(), list(slugs), why, run_id)
    if as_json:
        emit_json(done)
        return
    for entry in done:
        click.echo(f"rejected {entry['slug']}")


@review.command("close")
@click.argument("run", required=False)
@click.option("--project", default=None, help="Project key or name (default: this repository).")
@json_option
def review_close(run: str | None, project: str | None, as_json: bool) -> None:
    """Close an open review without deciding every proposal (or after a crash)."""
    result = service.close(get_app(), run, project)
    if as_json:
        emit_json(result)
        return
    run = result["run"]
    if result["already_closed"]:
        ended = "" if run["status"] == "ok" else f" ({run['status']})"
        click.echo(f"review {run['id']} is already closed{ended}: every proposal is decided "
                   "or it was closed before; nothing to close")
        return
    click.echo(f"closed review {run['id']} ({run['status']})")


_HANDOFF_READ = 1 << 20


@click.command()
@click.option("--learned", "learned", multiple=True,
              help="A learned line (at most 200 characters); give exactly three.")
@click.option("--handoff", "handoff_file", required=True,
              type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="File with the handoff ('-' for stdin): open work, decisions, user "
                   "corrections, memory slugs, next steps; at most 12,000 characters.")
@click.option("--project", default=None, help="Project key or name (default: this repository).")
@json_option
def prepare(learned: tuple[str, ...], handoff_file: Path, project: str | None,
            as_json: bool) -> None:
    """Record three learned lines and a handoff for the next review dream (a passive
    dream.prepared journal entry that replaces the previous one)."""
    # at most 1 MB is read ('--handoff /dev/zero' or an endless pipe is refused at once);
    # the handoff itself is capped far lower, and validate() says by how much
    try:
        if str(handoff_file) == "-":
            raw = sys.stdin.buffer.read(_HANDOFF_READ + 1)
        else:
            with open(handoff_file, "rb") as fh:
                raw = fh.read(_HANDOFF_READ + 1)
    except FileNotFoundError as exc:
        raise BadInput(f"no handoff file {handoff_file}", "give an existing file") from exc
    except OSError as exc:
        raise BadInput(f"cannot read the handoff file {str(handoff_file)[:200]} "
                       f"({exc.strerror})", "give the path of a readable file") from exc
    if len(raw) > _HANDOFF_READ:
        raise BadInput(f"the handoff {str(handoff_file)[:200]} is larger than 1 MB",
                       "write the handoff in at most 12,000 characters")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{handoff_file} is not UTF-8 text", "save it as UTF-8") from exc
    handoff.validate(list(learned), text)
    app = get_app()
    ref = service.resolve_project(app, project)
    result = handoff.prepare(app.db, ref.key, list(learned), text)
    if as_json:
        emit_json(result)
        return
    click.echo(f"prepared handoff #{result['id']} for {ref.name} ({result['chars']} characters)"
               + (f", replacing #{result['replaces']}" if result["replaces"] else ""))


def _state(run: dict) -> str:
    """A review is open (its run row says ``running``) until every proposal is decided or
    it is closed; a closed one says how its passes ended when one failed."""
    if run["status"] == "running":
        return "open"
    return "closed" if run["status"] == "ok" else f"closed, {run['status']}"


def _echo(line: str) -> None:
    """A line of a review, printed without terminal escape codes: a proposal's words are
    said in the transcripts (a rule, a quoted sentence), which the spool keeps as collected,
    so an escape code there set the terminal's title or wrote its clipboard when shown
    here, as 'history show' no longer lets it (--json keeps the text as it is)."""
    click.echo(strip_control(line))


def _print(result: dict) -> None:
    run = result["run"]
    undecided = sum(p["status"] == "proposed" for p in result["proposals"])
    _echo(f"review {run['id']} of {run.get('project_name') or run['project_key']}: "
          f"{_state(run)}, {run['items']} items"
          + (f", {undecided} of {len(result['proposals'])} proposals undecided"
             if undecided else ""))
    _echo("learned:")
    for line in result["learned"]:
        _echo(f"  - {line}")
    if not result["proposals"]:
        _echo("no proposals")
    for p in result["proposals"]:
        _echo(f"[{p['status']}] {p['slug']}  ({p['pass']}, {p['kind']}, size {p['size']}, "
              f"risk {p['risk']})")
        _echo(f"    {p['title']}")
        if p["replaces"]:
            _echo(f"    replaces: {', '.join(p['replaces'])}")
        _echo(f"    evidence: {', '.join(p['evidence'][:6])}"
              + (" ..." if len(p["evidence"]) > 6 else ""))
    dropped = [(name, d) for name, entry in result["journal"].items()
               for d in entry.get("dropped", [])]
    for name, d in dropped:
        _echo(f"dropped {d['slug']} ({name}): {d['reason']}")
