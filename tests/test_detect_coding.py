"""What a coding session's memory holds: rules, commands, pitfalls and open threads, free of
noise, the same for the dream run (rules provider) and the review passes."""

from __future__ import annotations

from dream.items import Item
from dream.models.base import ModelRequest
from dream.models.rules import RulesProvider
from dream.passes import codify, corrections, memory
from dream.passes.evidence import Evidence, Handoff

SOURCES = {"claude": ("claude_code", "Bash"), "pi": ("pi", "bash"), "codex": ("codex", "shell")}


def _session(name: str, turns: list[tuple[str, str]], start: int = 0) -> list[dict]:
    """Items of one session: ("user", text), ("assistant", text), ("call", command),
    ("ok", output) or ("fail", output)."""
    source, tool = SOURCES[name.split("-")[0]]
    out = []
    for n, (what, text) in enumerate(turns, start):
        item = {"handle": f"{name}:{n}", "stream": name, "source": source,
                "said_at": f"2026-04-06T10:{n:02d}:00Z", "tool_name": None, "is_error": None}
        if what == "user":
            item.update(role="user", kind="statement", evidence=True, text=text)
        elif what == "assistant":
            item.update(role="assistant", kind="assistant", evidence=False, text=text)
        elif what == "call":
            item.update(role="assistant", kind="assistant", evidence=False,
                        text=f"{tool}: {text}", tool_name=tool)
        else:
            item.update(role="tool", kind="tool_result", evidence=True, text=text,
                        tool_name=tool, is_error=what == "fail")
        out.append(item)
    return out


def _run(*sessions: list[dict]) -> list[dict]:
    """The notes the dream run's rules provider writes (fields, plus the record name)."""
    bundles = [{"id": f"B{n}", "entities": [], "items": s} for n, s in enumerate(sessions)]
    request = ModelRequest("propose", "", "", {}, payload={"rows": [], "bundles": bundles})
    notes = []
    for op in RulesProvider().complete(request).data["ops"]:
        if op["op"] == "note.add":
            notes.append({**{f["name"]: f["value"] for f in op["fields"]}, "name": op["name"]})
    return notes


def _evidence(*sessions: list[dict], handoff: str | None = None) -> Evidence:
    items = []
    for seq, d in enumerate((d for s in sessions for d in s), 1):
        items.append(Item(seq=seq, id=d["handle"], ref=f"{d['stream']}.jsonl:{seq}",
                          stream=d["stream"], role=d["role"], kind=d["kind"],
                          evidence=d["evidence"], said_at=d["said_at"], text=d["text"],
                          tool_name=d["tool_name"], is_error=d["is_error"], source=d["source"]))
    ho = Handoff(1, "2026-04-07T00:00:00Z", [], handoff) if handoff else None
    return Evidence("key", "proj", items, 0, len(items), run_id="t", handoff=ho)


def test_rules_written_as_a_bulleted_list_are_read_and_a_pasted_diff_is_not():
    """"- never `terraform apply` from here" in a "- " list with nothing added is a list the
    user wrote, not the removed lines of a diff; a pasted diff (hunk header, added lines)
    is still left out."""
    from dream.detect import noise

    notes = _run(_session("codex-1", [
        ("user", "add a bucket for the exports, stack is dev.\n\na few things about this "
                 "repo:\n- always `terraform plan` first and show me\n- never `terraform "
                 "apply` from here, CI applies after merge\n- secrets live in the vault, "
                 "don't ever print them"),
        ("assistant", "ok")]))
    rules = " ".join(n["text"] for n in notes if n["type"] in ("correction", "directive"))
    assert "`terraform apply`" in rules and "`terraform plan`" in rules and "print" in rules
    diff = "this broke it:\n@@ -1,2 +1,2 @@\n- retries = 3\n+ retries = 0\n"
    assert noise.strip_paste(diff) == "this broke it:"
    assert noise.strip_paste("two things:\n- use uv\n- no pip") == \
        "two things:\n- use uv\n- no pip"


def test_the_lines_under_a_heading_for_how_the_project_works_are_rules_not_the_task():
    """In the message that opens a session, the lines under "some things to know about
    this codebase:" say how the project works, with or without "always"/"never": "dates are
    UTC throughout", "use ruff, not black". A line that only says where things are, the task
    asked in a clause of a line, what to build said with "should", and the lines after
    "task:" are no rules."""
    notes = _run(_session("claude-1", [
        ("user", "some things to know about this codebase before you dig in:\n"
                 "- dates are stored as UTC throughout, convert only in the templates\n"
                 "- formatting is ruff format, not black\n"
                 "- the fixtures are in tests/fixtures, add one for the new report\n"
                 "- the report page should link the csv export\n"
                 "task: the monthly report should group refunds by merchant"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert any("UTC throughout" in r for r in rules), rules
    assert any("ruff format, not black" in r for r in rules), rules
    assert not any("fixtures" in r or "merchant" in r or "know about" in r or "csv" in r
                   for r in rules), rules
    # without the heading, the same message is the task, and its lines are no rules
    notes = _run(_session("claude-2", [
        ("user", "the monthly report should group refunds by merchant, dates in UTC "
                 "throughout"),
        ("assistant", "ok")]))
    assert not [n for n in notes if n["type"] in ("correction", "directive")]


def test_a_line_under_the_heading_saying_what_stays_as_it_is_is_a_rule():
    """"the route table in app/routes.ts stays sorted by path" and "the public API remains
    backwards compatible" under "house rules:" say what to keep as it is; a line that only
    says where things are is still no rule."""
    notes = _run(_session("claude-1", [
        ("user", "house rules for this repo:\n"
                 "- the route table in app/routes.ts stays sorted by path\n"
                 "- the public API remains backwards compatible\n"
                 "- the e2e specs are in e2e/\n"
                 "task: add a /health route"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert any("stays sorted by path" in r for r in rules), rules
    assert any("remains backwards compatible" in r for r in rules), rules
    assert not any("e2e/" in r or "/health" in r for r in rules), rules


def test_a_line_under_the_heading_is_one_rule_whatever_its_sentences():
    """Under a heading for how the project works laid out a rule a line, the sentences of
    one line are one rule: its reason ("CI rebuilds that file ...") or its other half said as a
    sentence of its own stays with it, and no line takes its other half from the next line."""
    notes = _run(_session("claude-1", [
        ("user", "the csv export drops its last row. quick notes on how we work here:\n"
                 "- never edit poetry.lock by hand. CI rebuilds that file and rejects manual changes\n"
                 "- publish with `make release`. don't upload wheels with twine yourself\n"
                 "- no print debugging in committed code\n"
                 "task: fix the off-by-one in export/rows.py"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert "Never edit poetry.lock by hand; CI rebuilds that file and rejects manual changes." in rules, \
        rules
    assert any("`make release`" in r and "twine" in r for r in rules), rules
    assert not any("rebuilds" in r and "release" in r for r in rules), rules
    assert len(rules) == 3, rules


def test_the_lines_after_note_in_the_opening_request_are_rules():
    notes = _run(_session("codex-1", [
        ("user", "add a `refund_reason` column to payments and regenerate the models.\n\n"
                 "note: `make schema-check` has to pass before you say it's done"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert any("`make schema-check` has to pass" in r for r in rules), rules
    assert not any("refund_reason" in r for r in rules), rules
    # the task said before the heading is no other half of a prohibition under it
    notes = _run(_session("codex-2", [
        ("user", "add a `refund_reason` column to payments.\n\nnote: never edit the "
                 "generated models by hand"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert rules == ["Never edit the generated models by hand."], rules


def test_a_rule_about_a_class_member_said_in_two_sessions_is_one_repeated_rule():
    """"don't call Config.load at the top level" and, a week later, "you put Config.load at
    module level again, read it inside the function" name one member of the code: one rule
    said twice, proposed for review."""
    from dream.detect import grouping
    from dream.items import Item

    def said(n: int, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=f"s{n}"))

    groups = grouping.group([
        said(1, "Don't call Config.load at the top level, it hits the disk on every import."),
        said(2, "You put Config.load at module level again, read it inside the function.")])
    assert [len(g.items) for g in grouping.repeated(groups)] == [2]


def test_no_x_naming_code_is_written_do_not_use_x():
    """"no `console.log` in committed code pls" and "no --force from here" open with what
    not to use, as "no more console.log" does; a line opening with "No" reads as a reply."""
    from dream.detect.rule_text import rule_text

    assert rule_text("no `console.log` in committed code pls.", []) == \
        "Do not use `console.log` in committed code pls."
    said = rule_text("no --force from here, the remote rejects it.", [])
    assert said is not None and said.startswith("Do not use --force from here"), said


def test_no_x_asked_for_every_time_or_everywhere_but_one_way_is_a_rule_and_no_errors_is_not():
    """"no mocks pls", "no retries, ever", "no npm installs outside the container" and "X is
    banned here" forbid something for good; "no errors this time" reports a run."""
    notes = _run(_session("claude-1", [
        ("user", "add the export endpoint"), ("assistant", "done, tests pass"),
        ("user", "no mocks of the db pls, the testcontainer is cheap enough"),
        ("assistant", "ok"),
        ("user", "no retries, ever. it double-charges."), ("assistant", "ok"),
        ("user", "no npm installs outside the container, the host node is 16"),
        ("assistant", "ok"),
        ("user", "Thread.sleep is banned here."), ("assistant", "ok"),
        ("user", "no errors this time, nice"), ("assistant", "great")]))
    rules = " | ".join(n["text"] for n in notes if n["type"] in ("correction", "directive"))
    assert "mocks of the db" in rules and "retries, ever" in rules, rules
    assert "outside the container" in rules and "Thread.sleep is banned" in rules, rules
    assert "errors this time" not in rules, rules


def test_what_to_do_instead_is_not_taken_from_a_sentence_about_what_something_does():
    """"no seeds from here, ever." + "they run against the shared db" + "use the fixtures
    loader": the sentence about what the seeds do says why, the one after it what to do."""
    from dream.detect.rule_text import rule_text

    said = rule_text("no seeds from here, ever.", ["they run against the shared staging db",
                                                    "use the fixtures loader"])
    assert said == "Use the fixtures loader, not seeds.", said


def test_what_not_to_run_from_this_machine_is_a_rule_even_in_the_opening_request():
    """"no prod migrations from here", "no --force from here", "(...) — never X" and "after
    any X" are standing rules; "from here" is this machine, not a spot in the code, and the
    user's own "if I want it there I'll do it myself" is no way for the agent to work."""
    notes = _run(_session("pi-1", [
        ("user", "add a soft-delete flag to invoices. no prod migrations from here btw, the "
                 "release job runs them"),
        ("assistant", "ok"),
        ("user", "no --force from here, the remote rejects it anyway"), ("assistant", "ok"),
        ("user", "lint with `ruff check` — never flake8, the config is gone"),
        ("assistant", "ok"),
        ("user", "and run `make client` after any route change"),
        ("assistant", "ok"),
        ("user", "stop. no staging deploys by hand. if I want it on staging I'll do it "
                 "myself"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    said = " | ".join(rules)
    assert "prod migrations from here" in said and "use --force from here" in said, said
    assert "never flake8" in said and "after any route change" in said, said
    assert any("staging deploys by hand" in r for r in rules), said
    assert "myself" not in said, said
    assert "soft-delete" not in said, said


def test_a_rule_said_in_brackets_as_an_aside_loses_the_brackets():
    notes = _run(_session("pi-1", [
        ("user", "fix the import"), ("assistant", "done"),
        ("user", "ok. (never install packages into the system python)"),
        ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert rules == ["Never install packages into the system python."], rules


def test_a_rule_said_again_by_pointing_at_last_time_is_a_correction():
    """"same answer as yesterday: no terraform apply locally", "--frozen-lockfile, same as
    last week" and "same as last time: ./scripts/lint.sh --fix" say a rule again; "you forgot the
    changelog again", "ugh, again" and "hot reload, again" name nothing to keep."""
    notes = _run(_session("codex-1", [
        ("user", "add the queue"), ("assistant", "running terraform apply"),
        ("user", "same answer as yesterday: no terraform apply locally. CI applies it."),
        ("assistant", "ok, pnpm install"),
        ("user", "--frozen-lockfile, same as last week."), ("assistant", "ok"),
        ("user", "same as last time: ./scripts/lint.sh --fix"), ("assistant", "ok"),
        ("user", "you forgot the changelog again."), ("assistant", "sorry"),
        ("user", "ugh, again."), ("assistant", "sorry"),
        ("user", "hot reload, again."), ("assistant", "ok")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    said = " | ".join(rules)
    assert "terraform apply locally" in said and "--frozen-lockfile" in said, said
    assert "./scripts/lint.sh --fix" in said, said
    assert "changelog" not in said and "hot reload" not in said and "ugh" not in said, said
    # a name too short to stand as a line of its own ("make ci.") is left to the commands
    notes = _run(_session("codex-2", [
        ("user", "add the queue"), ("assistant", "done"),
        ("user", "same as last time: make ci"), ("assistant", "ok")]))
    assert not [n for n in notes if n["type"] in ("correction", "directive")]


def test_a_prohibition_takes_what_to_do_from_the_command_or_the_place_said_after_it():
    """What not to do, then the command or where the thing comes from: one rule with both
    halves ("gem install is never ok here" + "`bundle add x` so it lands in the Gemfile";
    "don't brew anything" + "the toolchain lives in the devcontainer: `make shell`")."""
    from dream.detect.rule_text import rule_text

    said = rule_text("gem install is never ok in this repo.",
                     ["`bundle add faraday` so it lands in the Gemfile"])
    assert said is not None and "bundle add faraday" in said, said
    said = rule_text("don't brew anything on my laptop.",
                     ["the toolchain lives in the devcontainer: `make shell` then build"])
    assert said is not None and "`make shell`" in said, said
    # a sentence about something else is no other half
    said = rule_text("don't brew anything on my laptop.", ["the build is slow today"])
    assert said == "Don't brew anything on my laptop.", said


def test_a_reason_said_only_of_this_once_is_cut_and_a_standing_one_is_kept():
    """After "—", ";" or "because", a reason that only reports an amount, a time of day or
    a day gone by is dropped, in the sentence or as the next one; a reason with a standing
    fact, a limit or a rate in it is kept."""
    from dream.detect.rule_text import rule_text

    assert rule_text("never `docker system prune` on the runner — the cache there is ~120GB.",
                     []) == "Never `docker system prune` on the runner."
    assert rule_text("dont deploy on fridays; the last one went down at 11pm.", []) == \
        "Dont deploy on fridays."
    assert rule_text("always run `make smoke` before tagging.", [],
                     "the tag nobody smoke-tested broke checkout yesterday") == \
        "Always run `make smoke` before tagging."
    # a clause beside the amount that says why the rule stands keeps the whole reason
    said = rule_text("never rebuild the base image from scratch because the layer cache is "
                     "12 gigs and the registry rate-limits pulls.", [])
    assert said is not None and "rate-limits pulls" in said, said
    # a rate or a limit is how the project is, not this once
    said = rule_text("don't poll the status endpoint in a loop — it allows 5MB per minute.", [])
    assert said is not None and "5MB per minute" in said, said
    said = rule_text("never run the migrations by hand — CI runs them too.", [])
    assert said is not None and "CI runs them too" in said, said


def test_a_consent_said_with_i_said_is_no_rule_said_again():
    """"I said yes to the rename, not to the schema change" tells what was agreed, not a
    rule; "I said run the linter first" is the rule said again."""
    from dream.detect.rule_text import rule_text

    assert rule_text("I said yes to the rename, not to the schema change.", []) is None
    said = rule_text("I said run `make lint` first.", [])
    assert said is not None and "`make lint`" in said, said


def test_a_rule_keeps_its_negation_and_loses_the_pasted_terminal():
    notes = _run(_session("pi-1", [
        ("assistant", "Done."),
        ("user", "my dude, this exploded when i restarted with -r. invalid themes must NEVER "
                 "explode ➜ pi-mono git:(main) ✗ npx tsx packages/coding-agent/src/cli.ts -r "
                 "Debugger attached. ⠇ Working..."),
        ("assistant", "Fixed."),
        ("user", "Migrations must never drop columns without a backup step.")]))
    rules = {n["text"]: n for n in notes if n["type"] in ("correction", "directive")}
    assert set(rules) == {"Invalid themes must NEVER explode.",
                          "Migrations must never drop columns without a backup step."}
    assert all("never" in n["name"].split() for n in rules.values())
    assert not any("➜" in n["text"] or "⠇" in n["text"] for n in notes)


def test_context_free_replies_and_frustration_are_no_rules():
    notes = _run(_session("pi-1", [
        ("assistant", "I moved the block."), ("user", "no, the block should stay as is"),
        ("assistant", "Is this right?"), ("user", "no, that's not it. fucking hell."),
        ("assistant", "Switched to indices."),
        ("user", "omfg use fucking rgb values in the themes, no rgb indices!")]))
    assert [n["text"] for n in notes] == ["Use rgb values in the themes, no rgb indices."]


def test_a_correction_keeps_both_halves_in_the_run_and_in_the_instructions_patch():
    said = [("assistant", "I'll run npm test."),
            ("user", "Nope, we don't use npm here. Always use uv run pytest for tests.")]
    sessions = [_session("claude-1", said), _session("codex-2", said, 10)]
    [rule] = [n for n in _run(*sessions) if n["type"] == "correction"]
    assert rule["text"] == "Always use uv run pytest for tests, not npm."
    assert rule["said"] == "2 times in 2 sessions"
    [lesson] = codify.run(_evidence(*sessions)).candidates
    assert "Always use uv run pytest for tests, not npm." in lesson.change["patch"]["diff"]


def test_a_dry_run_or_every_run_named_in_the_refusal_is_no_way_of_doing_it():
    # "run" in "a dry-run" or "every run" is a thing, not what to do instead: the next
    # sentence still gives the rule its other half
    from dream.detect.rule_text import _both_halves, only_what_not
    assert _both_halves("We don't use jest here, not even in a dry-run.", ["bun test."]) == \
        "Use bun test, not jest"
    assert _both_halves("We don't use npm for the nightly run.", ["pnpm install."]) == \
        "Use pnpm install, not npm"
    assert only_what_not("Don't skip the dry-run.")
    # said as what to do, it still is one
    assert _both_halves("We don't use jest here, use vitest.", ["bun test."]) == \
        "We don't use jest here, use vitest."
    assert not only_what_not("Never push to main, run the release script.")


def test_paraphrases_in_three_sessions_are_one_rule_proposed_for_the_agent_file():
    sessions = [_session(f"{src}-{n}", [("assistant", "Running npm install."), ("user", text)],
                         10 * n)
                for n, (src, text) in enumerate([
                    ("claude", "Use pnpm, not npm."),
                    ("pi", "I told you to use pnpm, never npm."),
                    ("codex", "We always use pnpm here, not npm.")])]
    rules = [n for n in _run(*sessions) if n["type"] in ("correction", "directive")]
    assert len(rules) == 1 and rules[0]["said"] == "3 times in 3 sessions"
    ev = _evidence(*sessions)
    assert len(corrections.run(ev).candidates) == 1
    [lesson] = codify.run(ev).candidates
    assert lesson.title.startswith("Add to AGENTS.md:") and "pnpm" in lesson.title


FAILED_TS = ("src/core/session.ts(12,5): error TS2339: Property 'tokensAfter' does not exist "
             "on type 'CompactionEntry'.\nnpm error Lifecycle script `check` failed with error:"
             "\nnpm error code 2")


def test_one_pitfall_per_root_cause_whatever_tool_ran_it():
    notes = _run(_session("codex-1", [("call", "npm run check"), ("fail", FAILED_TS)]),
                 _session("pi-2", [("call", "npm run check"), ("fail", FAILED_TS)], 10))
    [pitfall] = [n for n in notes if n["type"] == "failure"]
    assert "error TS2339: Property 'tokensAfter'" in pitfall["text"]     # the cause, real
    assert "<path>" not in pitfall["text"] and "npm error" not in pitfall["text"]
    assert pitfall["said"] == "2 times in 2 sessions"


def test_a_pitfall_names_the_step_that_fixed_it_and_a_one_off_is_none():
    missing = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'stripe'"
    notes = _run(_session("claude-1", [
        ("call", "uv run pytest -q tests/test_a.py"), ("fail", missing),
        ("call", "uv run pytest -q tests/test_b.py"), ("fail", missing),
        ("call", "npm test"), ("fail", "sh: 1: npm: not found"),
        ("call", "uv sync --extra payments && uv run pytest -q"), ("ok", "42 passed in 3.1s")]))
    [pitfall] = [n for n in notes if n["type"] == "failure"]
    assert "No module named 'stripe'" in pitfall["text"]
    assert "Fix: run `uv sync --extra payments`." in pitfall["text"]


def test_how_to_work_here_comes_from_commands_that_succeeded():
    notes = _run(_session("claude-1", [
        ("call", "cd /repo && uv run pytest -q 2>&1 | tail -5"), ("ok", "12 passed"),
        ("call", "make lint"), ("fail", "ruff: 3 errors"),
        ("call", "git status"), ("ok", "clean")]),
        _session("pi-2", [("call", "uv run pytest -q"), ("ok", "12 passed")], 10))
    commands = {n["text"]: n for n in notes if n["type"] == "command"}
    assert list(commands) == ["Test: `uv run pytest -q`"]
    test = commands["Test: `uv run pytest -q`"]
    assert test["toolchain"] == "uv" and test["said"] == "2 times in 2 sessions"


def test_open_threads_from_the_handoff_and_an_unanswered_request_are_proposals():
    ev = _evidence(_session("codex-1", [
        ("assistant", "Done with the README."),
        ("user", "Help me apply for the agentic engineering grant by Superteam."),
        ("call", "git log --oneline -20"), ("ok", "abc123 first commit")]),
        handoff="## Open work\n- Port the theme loader to the new settings manager\n")
    threads = [c for c in memory.run(ev).candidates if c.change.get("op") == "add"
               and "type: thread" in c.change["content"].replace("value: thread", "type: thread")]
    titles = sorted(c.title for c in threads)
    assert titles == [
        "Keep the open thread: Help me apply for the agentic engineering grant by Superteam.",
        "Keep the open thread: Port the theme loader to the new settings manager."]


def test_a_memory_that_only_points_at_a_file_is_no_proposal():
    ev = _evidence(_session("pi-1", [
        ("assistant", "Compacted."),
        ("user", "also remember the @packages/coding-agent/docs/refactor.md file btw.")]))
    assert memory.run(ev).candidates == []


def test_what_the_user_typed_when_rejecting_a_tool_call_is_a_rule_for_run_and_review():
    rejected = ("The user doesn't want to proceed with this tool use. The tool use was "
                "rejected (eg. if it was a file edit, the new_string was NOT written to the "
                "file). To tell you how to proceed, the user said:\n"
                "Don't add the telemetry flag to the config, we always read it from settings.")
    sessions = [_session(name, [("call", "git diff"), ("fail", rejected)], 10 * n)
                for n, name in enumerate(("claude-1", "claude-2"))]
    [rule] = [n for n in _run(*sessions) if n["type"] in ("correction", "directive")]
    assert "settings" in rule["text"] and rule["said"] == "2 times in 2 sessions"
    [proposal] = corrections.run(_evidence(*sessions)).candidates
    assert "settings" in proposal.title


def test_a_codex_call_the_user_declined_is_no_way_of_working_and_no_pitfall():
    """Codex answers a call declined at the approval prompt with "exec command rejected by
    user": the command never ran, so it is neither listed as how the project is deployed
    nor, declined in two sessions, a failure to remember (the person's "no" is theirs to
    explain; nothing broke)."""
    sessions = [_session(name, [
        ("user", "add the bucket and show me the diff"),
        ("call", "pulumi preview --diff --stack dev"), ("ok", "Previewing update (dev)"),
        ("call", "pulumi up --stack dev --yes"), ("fail", "exec command rejected by user"),
        ("assistant", "Understood, I won't apply it.")],
        10 * n) for n, name in enumerate(("codex-1", "codex-2"))]
    notes = _run(*sessions)
    assert "pulumi preview --diff" in " ".join(n["text"] for n in notes)
    assert not [n["text"] for n in notes if "rejected by user" in n["text"] or
                ("pulumi up" in n["text"] and n["type"] in ("command", "failure"))]


def test_a_setting_the_retry_added_is_the_fix_not_a_step_run_in_between():
    """The user names the passphrase file, the agent type-checks, then retries with the
    setting: the setting made it work, not the type check."""
    missing = ("Exit code: 255\nWall time: 3.1 seconds\nOutput:\nerror: getting secrets "
               "manager: passphrase must be set with STACK_PASSPHRASE_FILE")
    sessions = [_session(name, [
        ("call", "stackctl preview --stack dev"), ("fail", missing),
        ("user", "STACK_PASSPHRASE_FILE=~/.config/stack/dev.pass, it's there"),
        ("call", "pnpm exec tsc --noEmit"), ("ok", "Exit code: 0\nOutput:\n"),
        ("call", "STACK_PASSPHRASE_FILE=~/.config/stack/dev.pass stackctl preview --stack dev"),
        ("ok", "Previewing update (dev): 3 to create")], 10 * n)
        for n, name in enumerate(("codex-1", "codex-2"))]
    [pitfall] = _pitfalls(*sessions)
    assert "Fix: run `STACK_PASSPHRASE_FILE=" in pitfall and "tsc" not in pitfall


def _pitfalls(*sessions: list[dict]) -> list[str]:
    return [n["text"] for n in _run(*sessions) if n["type"] == "failure"]


def test_a_pitfall_is_named_by_the_diagnostic_above_the_build_tools_summary():
    out = ("internal/db/conn.go:14:2: undefined: pgx.Connect\n"
           "make: *** [Makefile:9: build] Error 1")
    [pitfall] = _pitfalls(_session("codex-1", [("call", "make build"), ("fail", out)]),
                          _session("pi-2", [("call", "make build"), ("fail", out)], 10))
    assert "undefined: pgx.Connect" in pitfall and "make: ***" not in pitfall
    assert "conn.go:14:2" not in pitfall            # the cause, without its location


def test_the_step_between_a_failure_and_the_retry_that_worked_is_the_fix():
    refused = ("Traceback (most recent call last):\n  File \"app/cache.py\", line 8\n"
               "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. "
               "Connection refused.")
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "python -m pytest -q"), ("fail", refused),
        ("call", "ls docker"), ("ok", "compose.yml"),
        ("call", "docker compose up -d redis"), ("ok", "Container redis-1 Started"),
        ("call", "python -m pytest -q"), ("ok", "61 passed in 4.2s")]))
    assert pitfall.startswith("`python -m pytest -q` fails with: ConnectionError: Error 111")
    assert pitfall.endswith("Fix: run `docker compose up -d redis`.")


def test_a_runner_that_made_the_same_command_work_is_the_fix():
    missing = "An error occurred while loading spec_helper.\ncannot load such file -- " \
              "rails_helper (LoadError)"
    [pitfall] = _pitfalls(_session("pi-1", [
        ("call", "rspec spec/models"), ("fail", missing),
        ("call", "rspec spec/models/user_spec.rb"), ("fail", missing),
        ("call", "bundle exec rspec spec/models"), ("ok", "12 examples, 0 failures")]))
    assert "LoadError" in pitfall and "Fix: run `bundle exec rspec spec/models`." in pitfall


def test_a_compile_error_the_user_explained_is_a_pitfall_with_the_explanation():
    err = ("error[E0425]: cannot find value `MAX_RETRIES` in this scope\n --> src/client.rs:40:17"
           "\nerror: could not compile `client` (lib) due to 1 previous error")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "cargo check"), ("fail", err),
        ("user", "oh right, MAX_RETRIES moved to config::limits last sprint, import it from "
                 "there."),
        ("call", "cargo check --all-targets"), ("fail", err),
        ("call", "cargo check"), ("ok", "Finished dev profile")]))
    assert "cannot find value `MAX_RETRIES`" in pitfall and "could not compile" not in pitfall
    assert "The user said: MAX_RETRIES moved to config::limits" in pitfall


def test_looking_for_a_file_that_is_not_there_and_a_one_off_type_error_are_no_pitfalls():
    assert _pitfalls(_session("claude-1", [
        ("call", "cat config/local.yml"), ("fail", "cat: config/local.yml: No such file or "
                                                   "directory"),
        ("call", "ls config/secrets"), ("fail", "ls: config/secrets: No such file or directory"),
        ("call", "npx tsc --noEmit"),
        ("fail", "src/api.ts(3,9): error TS2304: Cannot find name 'Reqest'.")])) == []


def test_a_rejected_commit_message_fix_shows_the_new_message_not_the_old_one():
    hook = ("⧗   input: update stuff\n✖   subject must not be sentence-case [subject-case]\n"
            "✖   type may not be empty [type-empty]\n\nhusky - commit-msg script failed (code 1)")
    sessions = [_session(name, [("call", f'git commit -m "update stuff {n}"'), ("fail", hook),
                                ("call", f'git commit -m "fix: handle empty carts {n}"'),
                                ("ok", "[main 1a2b3c4] fix: handle empty carts")], 10 * n)
                for n, name in enumerate(("pi-1", "claude-2"))]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.startswith("`git commit` fails with: subject must not be sentence-case")
    assert "update stuff" not in pitfall and "husky" not in pitfall
    assert 'Fix: run `git commit -m "fix: handle empty carts' in pitfall


def test_commands_are_read_by_their_own_words_and_a_one_off_dependency_is_none():
    notes = _run(_session("codex-1", [
        ("call", "dotnet build"), ("ok", "Build succeeded."),
        ("call", "pnpm lint"), ("ok", "No ESLint warnings"),
        ("call", "pnpm add lodash-es --filter web"), ("ok", "+ lodash-es 4.17.21"),
        ("call", "python manage.py test billing --settings=shop.settings.ci"), ("ok", "OK"),
        ("call", "git status"), ("ok", "clean")]))
    commands = sorted(n["text"] for n in notes if n["type"] == "command")
    assert commands == ["Build: `dotnet build`", "Lint and check: `pnpm lint`",
                        "Test: `python manage.py test billing --settings=shop.settings.ci`"]


def test_the_form_the_user_asked_for_and_a_pasted_prompt_count_as_how_to_work():
    notes = _run(_session("pi-1", [
        ("user", "here is what I run:\n$ make serve\nListening on :8080\n"
                 "and the tests go through make check-all, use make check-all -j4 locally"),
        ("call", "make check-all"), ("ok", "all checks passed"),
        ("call", "make check-all -j4"), ("ok", "all checks passed")]))
    commands = {n["text"] for n in notes if n["type"] == "command"}
    assert "Run: `make serve`" in commands
    assert any(c.endswith(": `make check-all -j4`") for c in commands)


def test_the_scripts_of_the_projects_package_json_are_how_to_work():
    manifest = ('{\n  "name": "web",\n  "scripts": {\n    "dev": "vite",\n'
                '    "build": "vite build",\n    "test": "vitest run"\n  }\n}')
    notes = _run(_session("claude-1", [("call", "cat package.json"), ("ok", manifest)]),
                 _session("claude-2", [("call", "cat node_modules/vite/package.json"),
                                       ("ok", manifest.replace("vite build", "rollup"))], 10))
    [scripts] = [n["text"] for n in notes if n.get("purpose") == "scripts"]
    assert scripts == ("Scripts in package.json: `npm run dev` (vite), `npm run build` (vite "
                       "build), `npm run test` (vitest run)")


def test_a_rule_said_two_ways_in_two_sessions_is_one_rule_in_its_fullest_wording():
    sessions = [
        _session("claude-1", [("assistant", "Running everything."),
                              ("user", "Stop running the entire test suite.")]),
        _session("codex-2", [("assistant", "Running all tests."),
                             ("user", "Only run the tests for the package you changed, the "
                                      "whole thing is too slow.")], 10)]
    [rule] = [n for n in _run(*sessions) if n["type"] in ("correction", "directive")]
    assert rule["text"] == "Only run the tests for the package you changed."
    assert rule["said"] == "2 times in 2 sessions"
    [lesson] = [c for c in codify.run(_evidence(*sessions)).candidates
                if c.title.startswith("Add to AGENTS.md")]
    assert "package you changed" in lesson.title


def test_a_mistyped_word_is_spelled_as_the_session_spells_it():
    notes = _run(_session("pi-1", [
        ("call", "grep -rn logger src"), ("ok", "src/a.ts: logger.info\n" * 6),
        ("assistant", "Switched the handlers to the logger."),
        ("user", "Always use the lgoger, never print.")]))
    [rule] = [n for n in notes if n["type"] in ("correction", "directive")]
    assert "logger" in rule["text"] and "lgoger" not in rule["text"]


OPTIONS = ("Two ways to store the cache:\n\nWhere should the cache live?\n\n"
           "1. **In Redis** (Recommended) - shared between workers, survives restarts\n"
           "2. **In process memory** - simplest, lost on restart\n\nWhich do you prefer?")


def test_a_choice_among_the_agents_options_is_a_decision_with_the_option_and_the_users_words():
    notes = _run(_session("claude-1", [("assistant", OPTIONS),
                                       ("user", "1, and give keys a one hour ttl")]))
    [decision] = [n["text"] for n in notes if n["type"] == "decision"]
    assert decision == ("Where should the cache live? Chosen: In Redis - shared between "
                        "workers, survives restarts (the user: and give keys a one hour ttl).")


def test_a_choice_for_now_a_long_reply_or_no_pick_is_no_decision():
    for reply in ("2 for now, we'll revisit", "Neither, read the config file instead.",
                  "1 " + "because " * 40):
        notes = _run(_session("pi-1", [("assistant", OPTIONS), ("user", reply)]))
        assert [n for n in notes if n["type"] == "decision"] == [], reply


def test_a_failure_that_says_how_the_machine_is_set_up_is_a_pitfall_the_first_time():
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "docker compose up -d"),
        ("fail", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the "
                 "docker daemon running?"),
        ("call", "colima start"), ("ok", "done"),
        ("call", "docker compose up -d"), ("ok", "Container api-1 Started")]))
    assert "Cannot connect to the Docker daemon" in pitfall
    assert pitfall.endswith("Fix: run `colima start`.")


def test_a_count_of_logged_errors_is_a_summary_and_a_read_more_link_is_no_cause():
    """"Error: error building site: logged 1 error(s)" only counts what was logged above:
    the cause is the ERROR line, so two different errors under the same count are two
    pitfalls, not one; the "see <link> for more information" after a cause is a pointer,
    left out of the line shown."""
    from dream.detect.failures import cause_line

    def site(error: str) -> str:
        return ("Exit code 1\nStart building sites … \nsitegen v0.9.1 linux/amd64\n\n"
                f"{error}\nTotal in 198 ms\nError: error building site: logged 1 error(s)")

    theme = site("ERROR SASS: failed to transform \"css/app.scss\": this feature needs the "
                 "full edition, see https://example.org/x1 for more information")
    ref = site('ERROR [en] REF_MISSING: "docs/start.md:3:1": page not found')
    assert cause_line(theme) == ("ERROR SASS: failed to transform \"css/app.scss\": this "
                                 "feature needs the full edition")
    assert cause_line(ref).startswith("ERROR [en] REF_MISSING")
    assert cause_line("Build failed with 2 errors") == "Build failed with 2 errors"
    assert cause_line("src/a.c:3:1: error: expected ';'\n1 error generated.") == \
        "src/a.c:3:1: error: expected ';'"
    pits = _pitfalls(_session("claude-1", [("call", "sitegen --minify"), ("fail", theme),
                                           ("call", "./bin/sitegen --minify"), ("fail", ref)]),
                     _session("claude-2", [("call", "sitegen"), ("fail", theme),
                                           ("call", "./bin/sitegen"), ("ok", "Total in 2 s")], 10))
    [sass] = [p for p in pits if "SASS" in p]
    assert "example.org" not in sass and "REF_MISSING" not in sass and "logged" not in sass


def test_the_cause_is_neither_the_step_that_exited_nor_a_runners_status_of_one_case():
    """"FATAL ERROR: command exited with status 1: /usr/bin/cmake ..." names the step that
    ran and "ERROR - board_a  tests/queue.unit  FAILED : Build failure" names the case that
    failed: the cause is the diagnostic beside them, the same in both, so the two failures
    are one pitfall."""
    from dream.detect.failures import cause_line

    missing = ("CMake Error at cmake/FindToolkit.cmake:12 (find_package):\n"
               "  Could not find a package configuration file provided by \"Toolkit\"\n")
    build = (f"-- Configuring project\n{missing}-- Configuring incomplete, errors occurred!\n"
             "FATAL ERROR: command exited with status 1: /usr/bin/cmake -B build -GNinja")
    tests = ("INFO    - Building initial testsuite list...\n"
             "ERROR   - board_a     tests/queue/queue.unit    FAILED : Build failure\n"
             f"{missing}INFO    - 0 of 2 executed test configurations passed (0.00%)")
    want = 'Could not find a package configuration file provided by "Toolkit"'
    assert cause_line(build) == want and cause_line(tests) == want


def test_a_chain_that_worked_again_after_an_edit_of_the_code_shows_no_fix():
    """"source env.sh && runner -p sim" failed on an assertion, the test was edited, the
    same chain then passed: the set-up step it already ran is no fix, and a one-off failure
    of the code being changed is no pitfall."""
    edit = ("The file /src/tests/queue/main.c has been updated. Here's the result of running "
            "`cat -n` on a snippet of the edited file:\n     1\tzassert_equal(space, 7);")
    session = _session("claude-1", [
        ("user", "one unit test is red since yesterday, can you look"),
        ("call", "source scripts/env.sh && runner -T tests -p sim"),
        ("fail", "INFO - 1/3 sim tests/queue.unit FAILED Failed (0.012s)\n"
                 "assertion fail [space == 8] @ tests/queue/src/main.c:41"),
        ("assistant", "The assertion still expects the old free space; updating it."),
        ("tool-edit", edit),
        ("call", "source scripts/env.sh && runner -T tests -p sim"),
        ("ok", "INFO - 3 of 3 executed test configurations passed (100.00%)")])
    for item in session:
        if item["handle"].endswith(":4"):   # the edit's result, from the Edit tool
            item.update(tool_name="Edit")
    from dream.detect import commands, fixes

    runs = commands.by_session(_evidence(session).items)
    [failed] = [r for rs in runs.values() for r in rs if r.failed]
    assert fixes.fix([failed], runs) is None
    assert _pitfalls(session) == []


def test_cause_lines_of_other_toolchains():
    from dream.detect.failures import cause_line
    assert cause_line("# app\n./main.go:12:5: cannot use x (variable of type int) as string "
                      "value\nFAIL\tapp [build failed]") == \
        "./main.go:12:5: cannot use x (variable of type int) as string value"
    assert cause_line("** (CompileError) lib/shop.ex:3: undefined function total/1\n"
                      "    (elixir 1.17.2) expanding macro: Kernel.def/2") == \
        "** (CompileError) lib/shop.ex:3: undefined function total/1"
    assert cause_line("** WARNING: connection is not using a post-quantum key exchange "
                      "algorithm.\nroot@host: Permission denied (publickey).") == \
        "root@host: Permission denied (publickey)."


def test_scripts_and_runners_are_read_by_what_they_do():
    from dream.detect.howto import purposes
    assert purposes("./scripts/test.sh --fast") == [("test", "./scripts/test.sh --fast")]
    assert purposes("docker compose run --rm web bin/rails test")[0][0] == "test"
    assert purposes("pre-commit run --all-files")[0][0] == "lint"
    assert purposes("git push origin main") == [] and purposes("ls -la") == []
    # a target named by what it does to something: "make linkcheck" checks the links
    assert purposes("make linkcheck") == [("lint", "make linkcheck")]
    assert purposes("make htmltest")[0][0] == "test"
    assert purposes("task docs-build")[0][0] == "build"
    assert purposes("make latest") == [] and purposes("git checkout main") == []


def test_a_codex_exec_command_result_fails_by_the_exit_code_in_its_header():
    out = ("Chunk ID: 7c1e\nWall time: 0.4 seconds\nProcess exited with code 1\n"
           "Original token count: 31\nOutput:\nerror: externally-managed-environment\n"
           "× This environment is externally managed")
    session = _session("codex-1", [("call", "pip install -e ."), ("ok", out),
                                   ("call", "uv pip install -e ."), ("ok", "Installed 1 package")])
    [pitfall] = _pitfalls(session)
    assert "externally managed" in pitfall and "Chunk ID" not in pitfall
    assert pitfall.endswith("Fix: run `uv pip install -e .`.")
    commands = [n["text"] for n in _run(session) if n["type"] == "command"]
    assert commands == ["Install: `uv pip install -e .`"]


def test_a_failure_told_only_by_its_exit_header_is_a_failure_for_the_review_too():
    """A spool collected before the Codex reader read exit headers holds ``Exit code: 1``
    results without the error flag: the failures pass counts them as the pitfalls do."""
    from dream.passes import failures as failures_pass
    out = ("Exit code: 2\nWall time: 1.1 seconds\nOutput:\nE   ModuleNotFoundError: No module "
           "named 'attrs'")
    ev = _evidence(*(_session(f"codex-{n}", [("call", "python -m pytest -q"), ("ok", out)])
                     for n in (1, 2)))
    [proposal] = failures_pass.run(ev).candidates
    assert "No module named" in proposal.title and proposal.change["sessions"] == 2


PRISMA = (" FAIL  src/orders.test.ts [ src/orders.test.ts ]\nError: @prisma/client did not "
          "initialize yet. Please run \"prisma generate\" and try to import it again.\n ❯ new "
          "PrismaClient node_modules/.prisma/client/default.js:43:11\n\n Test Files  1 failed (1)")


def test_a_one_off_failure_whose_message_names_the_step_that_then_fixed_it_is_a_pitfall():
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "pnpm test"), ("fail", PRISMA),
        ("call", "pnpm prisma generate"), ("ok", "Generated Prisma Client"),
        ("call", "pnpm test"), ("ok", "Test Files  2 passed (2)")]))
    assert "@prisma/client did not initialize yet" in pitfall       # not vitest's FAIL line
    assert pitfall.endswith("Fix: run `pnpm prisma generate`.")


def test_two_causes_one_step_fixed_in_two_sessions_are_one_pitfall_and_a_mid_change_error_is_none():
    gomod = "go: updates to go.mod needed; to update it:\n\tgo mod tidy"
    gosum = ("internal/store/pg.go:9:2: missing go.sum entry for module providing package "
             "github.com/jackc/pgx/v5 (imported by example.com/x/store); to add:\n\tgo get "
             "example.com/x/store\nFAIL\texample.com/x/store [setup failed]")
    first = _session("claude-1", [
        ("call", "go build ./..."), ("fail", "internal/a.go:41:2: declared and not used: limit"),
        ("call", "go build ./..."), ("fail", gomod),
        ("call", "go mod tidy"), ("ok", ""), ("call", "go build ./..."), ("ok", "")])
    second = _session("codex-2", [
        ("call", "go test ./internal/store/..."), ("fail", gosum),
        ("call", "go mod tidy"), ("ok", ""), ("call", "go test ./internal/store/..."),
        ("ok", "ok  \texample.com/x/store\t1.1s")], start=10)
    [pitfall] = _pitfalls(first, second)
    assert "go.sum" in pitfall and "declared and not used" not in pitfall
    assert "Fix: run `go mod tidy`." in pitfall
    [note] = [n for n in _run(first, second) if n["type"] == "failure"]
    assert note["said"] == "2 times in 2 sessions"
    ev = _evidence(first, second)
    assert any("go mod tidy" in c.title or "go mod tidy" in str(c.change)
               for c in codify.run(ev).candidates)


def test_different_commands_failing_on_one_cause_keep_the_fix_found_after_two_of_them():
    down = ("SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select * from "
            "information_schema.tables where table_schema = 'b')")
    sessions = [_session(f"{name}-{n}", [("call", cmd), ("fail", down),
                                         ("call", "docker compose up -d"), ("ok", "Started"),
                                         ("call", cmd), ("ok", "ok")], start=10 * n)
                for n, (name, cmd) in enumerate([("claude", "php artisan test"),
                                                 ("codex", "php artisan migrate"),
                                                 ("pi", "./vendor/bin/pest")])]
    [pitfall] = _pitfalls(*sessions)
    assert "Connection refused" in pitfall and "SQL:" not in pitfall
    assert "Fix: run `docker compose up -d`." in pitfall


def test_a_package_manager_refused_by_the_machine_is_fixed_by_the_tool_that_installed_instead():
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "pip install protego"),
        ("fail", "error: externally-managed-environment\n\n× This environment is externally "
                 "managed"),
        ("user", "not pip — uv add"), ("call", "uv add protego"), ("ok", "+ protego==0.3.1")]))
    assert "externally managed" in pitfall and pitfall.endswith("Fix: run `uv add protego`.")


def test_the_request_that_opens_a_session_is_the_work_of_the_day_not_a_rule():
    notes = _run(_session("claude-1", [
        ("user", "The CSV export should include the timezone column. Please add it and a test."),
        ("call", "uv run pytest -q"), ("ok", "3 passed"),
        ("user", "Exports should always be UTF-8 with a BOM, Excel needs it.")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert rules == ["Exports should always be UTF-8 with a BOM, Excel needs it."]


def test_one_rule_said_with_other_words_in_two_sessions_is_one_proposal_for_agents_md():
    first = _session("codex-1", [("user", "fix the sites filter"), ("assistant", "Done."),
                                 ("user", "And whenever something user-visible changes, put "
                                          "a line under Unreleased in CHANGELOG.md")])
    second = _session("claude-2", [("user", "add a region filter"), ("assistant", "Done."),
                                   ("user", "you forgot the changelog again. every user-facing "
                                            "change gets an entry in CHANGELOG.md")], start=10)
    [proposal] = [c for c in codify.run(_evidence(first, second)).candidates
                  if "CHANGELOG.md" in c.title]
    assert "2 times" in proposal.change["lessons"][0]


def test_a_command_the_users_rule_rejects_is_no_way_to_work_and_names_keep_do_not():
    notes = _run(_session("claude-1", [
        ("call", "bundle exec rubocop -a app/models/item.rb"), ("ok", "1 file inspected"),
        ("user", "we don't use rubocop directly — it's standardrb. bundle exec standardrb --fix"),
        ("call", "bundle exec standardrb --fix"), ("ok", "")]))
    commands = [n["text"] for n in notes if n["type"] == "command"]
    assert not any("rubocop" in c for c in commands)
    assert any("standardrb" in c for c in commands)
    [rule] = [n for n in notes if n["type"] in ("correction", "directive")]
    assert "rubocop" in rule["text"] and "standardrb" in rule["text"]
    names = [n["name"] for n in _run(_session("pi-2", [
        ("user", "fix the login page"), ("assistant", "Done."),
        ("user", "don't use npx in this repo, everything goes through pnpm")]))]
    assert any("do-not use npx" in name for name in names), names


def test_a_java_failure_is_named_by_its_last_cause_and_a_long_daemon_error_by_its_end():
    mvn = ("[ERROR] com.acme.InvoiceTest.drafts -- Time elapsed: 0.4 s <<< ERROR!\n"
           "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC "
           "Connection\n\tat org.springframework.jdbc.DataSourceUtils.get(DataSourceUtils.java:84)"
           "\nCaused by: org.postgresql.util.PSQLException: Connection to localhost:5433 refused."
           "\n[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.maven.plugins:"
           "maven-surefire-plugin:3.2.5:test (default-test) on project x: There are test failures.")
    taken = ("Error response from daemon: driver failed programming external connectivity on "
             "endpoint invoices-db-1 (3f9c0a8e1d2b): Bind for 0.0.0.0:5433 failed: port is "
             "already allocated")
    found = _pitfalls(_session("claude-1", [
        ("call", "./mvnw -q verify"), ("fail", mvn),
        ("call", "docker compose up -d db"), ("fail", taken),
        ("call", "docker rm -f old-db && docker compose up -d db"), ("ok", "Started"),
        ("call", "./mvnw -q verify"), ("ok", "BUILD SUCCESS")]))
    assert any("PSQLException: Connection to localhost:5433 refused" in p for p in found)
    [port] = [p for p in found if "port is already allocated" in p]
    assert "Bind for 0.0.0.0:5433 failed: port is already allocated" in port
    assert port.endswith("Fix: run `docker rm -f old-db`.")
    assert not any("Failed to execute goal" in p for p in found)


def test_a_system_library_installed_to_make_a_build_work_is_a_pitfall_and_a_rejected_subcommand_only_drops_itself():
    openssl = ("error: failed to run custom build command for `openssl-sys v0.9.103`\n\n"
               "Caused by:\n  process didn't exit successfully: `target/debug/build/x` (exit "
               "status: 101)\n  Could not find openssl via pkg-config:\n  The system library "
               "`openssl` required by crate `openssl-sys` was not found.")
    notes = _run(_session("claude-1", [
        ("call", "cargo build"), ("fail", openssl),
        ("call", "sudo -n apt-get install -y libssl-dev pkg-config"), ("ok", "Setting up"),
        ("call", "cargo build"), ("ok", "Finished"), ("call", "cargo test"), ("ok", "ok"),
        ("user", "please don't run cargo update, the lockfile is pinned on purpose")]))
    [pitfall] = [n["text"] for n in notes if n["type"] == "failure"]
    assert "openssl" in pitfall and "libssl-dev" in pitfall
    assert "failed to run custom build command" not in pitfall
    commands = [n["text"] for n in notes if n["type"] == "command"]
    assert "Test: `cargo test`" in " ".join(commands)     # "cargo update" is rejected, not cargo


def test_causes_of_more_toolchains_are_their_own_lines_not_the_summaries():
    from dream.detect import failures, shell
    frozen = (" ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because "
              "pnpm-lock.yaml is not up to date with package.json\n\n  Failure reason:\n  "
              "specifiers in the lockfile don't match specs in package.json")
    eslint = ("\n/home/u/web/src/App.tsx\n  14:7  error  'unused' is assigned a value but never "
              "used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n")
    race = ("==================\nWARNING: DATA RACE\n==================\n--- FAIL: TestPool "
            "(0.01s)\n    testing.go:1398: race detected during execution of test\nFAIL\n"
            "FAIL\texample.com/q/worker\t0.214s\nFAIL")
    shown = [shell.shown_cause(failures.cause_line(t)) for t in (frozen, eslint, race)]
    assert shown[0].startswith("ERR_PNPM_OUTDATED_LOCKFILE Cannot install")
    assert shown[1] == ("error 'unused' is assigned a value but never used "
                        "@typescript-eslint/no-unused-vars")
    assert shown[2] == "race detected during execution of test"


def test_one_tool_rule_said_two_ways_in_two_sessions_is_one_proposal_but_two_tools_rules_are_not():
    first = _session("claude-1", [("user", "lint the model"), ("assistant", "Done."),
                                  ("user", "we don't use rubocop directly — it's standardrb. "
                                           "bundle exec standardrb --fix")])
    second = _session("pi-2", [("user", "add the serializer"), ("assistant", "Done."),
                               ("user", "quick reminder: linting is standardrb here, not "
                                        "rubocop")], start=10)
    third = _session("codex-3", [("user", "add a field"), ("assistant", "Done."),
                                 ("user", "Always run mypy through uv, not a global mypy.")],
                     start=20)
    rules = [c for c in codify.run(_evidence(first, second, third)).candidates
             if c.kind == "instruction" and "pitfall" not in c.title]
    assert len(rules) == 1 and "standardrb" in rules[0].title


def test_a_rule_about_how_the_work_is_done_stays_a_rule_in_the_request_that_opens_a_session():
    notes = _run(_session("claude-1", [
        ("user", "Add a retry to the fetcher. The tests must not hit the network.")]))
    rules = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert rules == ["The tests must not hit the network."]


def test_what_the_user_said_to_run_right_after_a_failure_is_its_lesson():
    [pitfall] = _pitfalls(_session("pi-1", [
        ("call", "npm test"), ("fail", "npm ERR! code EUNSUPPORTEDPROTOCOL\nnpm ERR! "
                                       "Unsupported URL Type \"workspace:\": workspace:*"),
        ("user", "use pnpm test here, npm can't read the workspace protocol")]))
    assert "workspace:" in pitfall
    assert pitfall.endswith("The user said: Use pnpm test here, npm can't read the workspace "
                            "protocol.")


def test_a_cause_line_is_what_went_wrong_not_advice_a_summary_or_a_log_level():
    from dream.detect.failures import cause_line
    # advice to the reader is no cause: the line that says what happened is
    assert cause_line(
        "Exit code 1\n\n NX   Daemon process terminated and closed the connection\n\n"
        "Please rerun the command, which will restart the daemon.\nIf you get this error "
        "again, check for any errors in the daemon process logs found in: /x/daemon.log\n\n"
        "Pass --verbose to see the stacktrace.") == \
        "NX   Daemon process terminated and closed the connection"
    # a summary that points up takes the failure above it, even one logged as a warning
    assert cause_line(
        "[INFO] --- maven-enforcer-plugin:3.4.1:enforce (enforce-maven) @ app ---\n"
        "[WARNING] Rule 1: org.apache.maven.enforcer.rules.version.RequireMavenVersion failed "
        "with message:\nDetected Maven Version: 3.6.3 is not in the allowed range [3.9.6,).\n"
        "[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.maven.plugins:"
        "maven-enforcer-plugin:3.4.1:enforce (enforce-maven) on project app: Some Enforcer "
        "rules have failed. Look above for specific messages explaining why the rule failed."
    ) == "Detected Maven Version: 3.6.3 is not in the allowed range [3.9.6,)."
    # a last "Failed to <do something>." names nothing; the line above it does
    assert cause_line(
        "Resolving dependencies...\nBecause app requires Flutter SDK version 3.22.3, version "
        "solving failed.\nFailed to update packages.") == \
        "Because app requires Flutter SDK version 3.22.3, version solving failed."
    # a log level in front of each line ("[error]") hides no exception
    assert cause_line(
        "[error] ## Exception when compiling 214 sources to /x/classes\n"
        "[error] java.lang.OutOfMemoryError: Metaspace\n[error] java.base/java.lang.Class"
        "Loader.defineClass1(Native Method)\n[error] Total time: 96 s") == \
        "java.lang.OutOfMemoryError: Metaspace"
    # an exception class named without Error or Exception, after pytest's E marker
    assert cause_line(
        "ImportError while loading conftest '/x/tests/conftest.py'.\ntests/conftest.py:3: in "
        "<module>\n    raise ImproperlyConfigured(\nE   django.core.exceptions.Improperly"
        "Configured: Requested setting INSTALLED_APPS, but settings are not configured.") \
        .startswith("django.core.exceptions.ImproperlyConfigured: Requested setting")


def test_the_fix_is_the_step_the_failure_names_a_setting_or_the_projects_own_wrapper():
    # a setting in front of the same command is a retry of it, and that retry is the fix
    daemon = "Exit code 1\n NX   Daemon process terminated and closed the connection"
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "npx nx test cart-ui"), ("fail", daemon),
        ("call", "NX_DAEMON=false npx nx test cart-ui"), ("ok", "Tests: 9 passed")]),
        _session("claude-2", [
            ("call", "npx nx test catalog-ui"), ("fail", daemon),
            ("call", "NX_DAEMON=false npx nx test catalog-ui"), ("ok", "Tests: 6 passed")], 10))
    assert "Daemon process terminated" in pitfall and "Fix: run `NX_DAEMON=false npx nx" in pitfall
    # the step the message said to run, not the flag the retry happened to add
    unpinned = ("ERROR: /x/BUILD.bazel:12:13: no such package '@maven//': the lock file must "
                "be regenerated. To update it, please run:\n    REPIN=1 bazel run "
                "@unpinned_maven//:pin\nERROR: Build did NOT complete successfully")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "./tools/bazel test //q:all"), ("fail", unpinned),
        ("call", "REPIN=1 ./tools/bazel run @unpinned_maven//:pin"), ("ok", "pinned"),
        ("call", "./tools/bazel test //q:all --keep_going"), ("ok", "2 tests pass")]))
    assert pitfall.endswith("Fix: run `REPIN=1 ./tools/bazel run @unpinned_maven//:pin`.")
    # the same arguments through the project's wrapper, after a retry that failed otherwise
    old = "[ERROR] Rule 1: RequireMavenVersion failed: Detected Maven Version: 3.6.3 is not " \
          "in the allowed range [3.9.6,)."
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "mvn -q -pl core test"), ("fail", old),
        ("call", "./mvnw -q -pl core test"), ("fail", "[ERROR] X.java:[4,1] cannot find symbol"),
        ("call", "./mvnw -q -pl core test"), ("ok", "BUILD SUCCESS")]),
        _session("codex-2", [("call", "mvn -q -pl core test"), ("fail", old),
                             ("call", "./mvnw -q -pl core test"), ("ok", "BUILD SUCCESS")], 10))
    assert "3.6.3" in pitfall and pitfall.endswith("Fix: run `./mvnw -q -pl core test`.")
    # a program handed to a version manager ("fvm flutter"); a version query is no fix
    [pitfall] = _pitfalls(_session("pi-1", [
        ("call", "flutter test"), ("fail", "Because app requires Flutter SDK version 3.22.3, "
                                           "version solving failed.\nFailed to update packages."),
        ("call", "flutter --version"), ("ok", "Flutter 3.27.1"),
        ("call", "fvm flutter test"), ("ok", "All tests passed!")]),
        _session("pi-2", [("call", "flutter test"), ("fail", "Because app requires Flutter SDK "
                                                             "version 3.22.3, version solving failed."),
                          ("call", "fvm flutter test"), ("ok", "All tests passed!")], 10))
    assert "version solving failed" in pitfall and pitfall.endswith("Fix: run `fvm flutter test`.")


def _rules(*sessions: list[dict]) -> list[str]:
    return [n["text"] for n in _run(*sessions) if n["type"] in ("correction", "directive")]


def test_the_request_that_starts_a_session_is_its_task_unless_a_sentence_is_for_every_time():
    assert _rules(_session("codex-1", [
        ("user", "Add a SynonymExpander and wire it in. Use commons-text for the tokenizer. "
                 "And use ./tools/bazel, never whatever bazel is on PATH.")])) == \
        ["Use ./tools/bazel, never whatever bazel is on PATH."]
    for task in ("admin CSV export writes dates as 23/10/2026, should be ISO 8601",
                 "pls add a roundToCents helper. the tests in PricingTests must still pass",
                 "the sync queue retries forever on a 422. stop retrying on 4xx and test it",
                 # what the request asks to be shown, with what not to do meanwhile
                 "wire the new queue into staging. show me the plan, dont apply anything"):
        assert _rules(_session("pi-1", [("user", task)])) == [], task
    # how the project works, said in the request: "we stay on", "pinned to"
    assert _rules(_session("codex-1", [
        ("user", "bump Serilog. we stay on EF Core 8 because the Oracle provider lags.")])) == \
        ["We stay on EF Core 8 because the Oracle provider lags."]


def test_a_rule_keeps_its_other_half_said_next_to_it_and_loses_a_pointer_back():
    said = [("assistant", "Running mvn."),
            ("user", "dont use the system mvn, it's ancient. always ./mvnw from the repo root"),
            ("assistant", "Ok."),
            ("user", "and dont run the full `test`, it takes 15 min. only testOnly of the spec "
                     "you touch"),
            ("assistant", "Ok."),
            ("user", "one thing: do NOT change public signatures in invoice-api. if something "
                     "has to go, deprecate it and add the new method next to it"),
            ("assistant", "Ok."),
            ("user", "stop. I said it last week: no pip in this repo. I told you last week."),
            ("assistant", "Ok."),
            ("user", "dont use npm test in this repo. use npx vitest run")]
    assert _rules(_session("claude-1", said)) == [
        "Dont use the system mvn, it's ancient; always ./mvnw from the repo root.",
        "Dont run the full `test`, it takes 15 min; only testOnly of the spec you touch.",
        "Do NOT change public signatures in invoice-api; if something has to go, deprecate it "
        "and add the new method next to it.",
        "Do not use pip in this repo.",
        "Use npx vitest run, not npm test."]


def test_a_flag_said_to_be_for_once_and_scripts_that_repeat_what_ran_are_no_way_to_work():
    manifest = '{\n  "scripts": {\n    "test": "vitest run",\n    "lint": "eslint ."\n  }\n}'
    notes = _run(_session("codex-1", [
        ("call", "cat package.json"), ("ok", manifest),
        ("call", "./mvnw -q test"), ("ok", "BUILD SUCCESS"),
        ("user", "skip the javadoc for this one, -Dmaven.javadoc.skip=true, I'll fix it "
                 "tomorrow"),
        ("call", "./mvnw -q -Dmaven.javadoc.skip=true install"), ("ok", "BUILD SUCCESS")]))
    # the install ran only with the flag of that day; the scripts add nothing to what ran
    assert sorted(n["text"] for n in notes if n["type"] == "command") == \
        ["Test: `./mvnw -q test`"]


def test_a_command_is_read_by_its_inline_code_its_own_name_or_what_it_printed():
    from dream.detect.howto import by_output, command_key, purposes
    # code handed to a program inline: the function it calls says what it does, and a ";"
    # inside the quotes splits nothing
    assert purposes("python3 -c 'import app; app.migrate()'") == \
        [("database", "python3 -c 'import app; app.migrate()'")]
    assert purposes("node -e \"require('./tasks').build()\"")[0][0] == "build"
    assert command_key("python3 -c 'import app; app.migrate()'") == "python3 app.migrate"
    # a program named after its job; a folder named like a task after another argument
    assert purposes("yamllint .")[0][0] == "lint" and purposes("hadolint Dockerfile")[0][0] == "lint"
    assert purposes("isort src tests") == [] and purposes("rake spec")[0][0] == "test"
    # an alias named in a flag, and a program whose name has a digit
    assert purposes("clj -X:lint")[0][0] == "lint"
    assert command_key("node22 run build") != command_key("node22 run start")
    # words that say nothing: a test run's or a checker's clean summary does
    assert by_output("./run-suite", "....\nRan 12 tests in 0.3s\n\nOK") == \
        [("test", "./run-suite")]
    assert by_output("vale docs", "0 errors, 0 warnings and 0 suggestions in 12 files.") == \
        [("lint", "vale docs")]
    assert by_output("ls -la", "Ran 12 tests") == [] and by_output("./deploy", "done") == []


def test_how_to_work_keeps_the_step_that_sets_up_the_shell_and_prefers_the_agents_form():
    notes = _run(_session("pi-1", [
        ("call", "source .venv/bin/activate && ./bin/suite"), ("ok", "All 40 tests passed."),
        ("user", "on my side:\n$ ./bin/suite\nAll 40 tests passed.\nthanks")]))
    assert [n["text"] for n in notes if n["type"] == "command"] == \
        ["Test: `source .venv/bin/activate && ./bin/suite`"]


def test_pitfalls_named_by_the_gravest_log_line_a_headings_meaning_or_a_marked_error():
    from dream.detect.failures import cause_line
    assert cause_line(
        "INFO     starting flash\nCRITICAL Could not open port /dev/ttyUSB0: Permission "
        "denied\nERROR    Flash failed\nWARNING  cleaning up") == \
        "CRITICAL Could not open port /dev/ttyUSB0: Permission denied"
    assert cause_line("CRITICAL Tool return code was 2, command was: x\nfailed: boom") != \
        "CRITICAL Tool return code was 2, command was: x"
    assert cause_line("  Resolving\nerror: Unknown package\n\nThe package `left-pad` is "
                      "not published on this registry.\n") == \
        "error: Unknown package. The package `left-pad` is not published on this registry."
    assert cause_line("× failed to resolve the environment\n╰─▶ No candidates were found "
                      "for openssl ==1.1.\n") == \
        "× failed to resolve the environment: No candidates were found for openssl ==1.1."
    assert cause_line("× This environment is externally managed\n╰─> To install Python "
                      "packages system-wide, try apt install.") == \
        "× This environment is externally managed"
    long_path = " ".join(f"/usr/lib/perl5/{n}" for n in range(40))
    assert cause_line(f"not ok 1 - load\n#   Failed test 'load'\n#   Error:  Can't locate "
                      f"Net/SMTP.pm in @INC (@INC contains: {long_path})\nResult: FAIL") \
        .startswith("Error:  Can't locate Net/SMTP.pm in @INC")


def test_the_fix_runs_the_failing_command_in_an_environment_and_edits_or_looks_fix_nothing():
    missing = "Exit code 1\nModuleNotFoundError: No module named 'yaml'"
    [pitfall] = _pitfalls(*[_session(f"codex-{n}", [
        ("call", "pytest -q"), ("fail", missing),
        ("call", "cd services/api"), ("ok", ""),
        ("call", "conda run -n api pytest -q"), ("ok", "8 passed")], 10 * n) for n in (1, 2)])
    assert pitfall.endswith("Fix: run `conda run -n api pytest -q`.")
    # a patch of the code and a look at the open ports are no fix; a one-off test failure
    # fixed in the code is no pitfall
    assert _pitfalls(_session("codex-1", [
        ("call", "hatch test"), ("fail", "FAILED tests/test_tiles.py::test_cover - assert 9 == 12"),
        ("call", "lsof -i :8080"), ("ok", "python 123"),
        ("call", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: tiles.py\nEOF"),
        ("ok", "Success."), ("call", "hatch test"), ("ok", "16 passed")])) == []


def test_a_missing_piece_set_up_before_a_retry_that_worked_is_a_pitfall_the_first_time():
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "bundle exec rake test"),
        ("fail", "Could not find gem 'pg (~> 1.5)' in locally installed gems."),
        ("call", "bundle exec rake test"),
        ("fail", "The user doesn't want to proceed with this tool use. The tool use was "
                 "rejected."),
        ("call", "bundle install"), ("ok", "Bundle complete!"),
        ("call", "bundle exec rake test"), ("ok", "12 runs, 30 assertions, 0 failures")]))
    assert "Could not find gem" in pitfall and pitfall.endswith("Fix: run `bundle install`.")
    # asking for root once and being refused is no set-up of the machine; twice is
    refused = "sudo: a terminal is required to read the password"
    assert _pitfalls(_session("claude-1", [("call", "sudo apt-get install -y libpq-dev"),
                                           ("fail", refused)])) == []
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "sudo apt-get install -y libpq-dev"), ("fail", refused),
        ("call", "sudo systemctl restart postgresql"), ("fail", refused)]))
    assert "terminal is required" in pitfall


def test_a_tool_the_project_runs_names_one_rule_said_in_two_sessions_and_its_short_reminder():
    # "zigmod" and "nimble" are in no list of tools: the sessions ran them, so they are
    first = _session("claude-1", [
        ("user", "add the parser"), ("assistant", "Running nimble."),
        ("call", "nimble test"), ("ok", "Success: 12 tests passed"),
        ("user", "we don't use zigmod in this repo, its nimble only.")])
    second = _session("pi-2", [
        ("user", "add the lexer"), ("assistant", "Done."), ("call", "zigmod fetch"),
        ("fail", "zigmod: no zig.mod"),
        ("user", "nimble, always nimble in this repo, there isn't even a zig.mod."),
        ("assistant", "Ok."), ("call", "nimble lintcheck"), ("ok", "clean"),
        ("user", "always finish with nimble lintcheck before you say done.")], start=10)
    third = _session("codex-3", [
        ("user", "add the printer"), ("assistant", "Done."),
        ("user", "lintcheck?? I said every time.")], start=30)
    titles = [c.title for c in codify.run(_evidence(first, second, third)).candidates
              if c.kind == "instruction" and "pitfall" not in c.title]
    assert len(titles) == 2, titles
    assert any("nimble" in t and "zigmod" in t for t in titles)
    assert any("lintcheck" in t for t in titles)


def test_a_rule_said_again_by_its_name_and_how_often_joins_the_rule_it_names():
    notes = _run(_session("codex-1", [
        ("user", "fix the rounding"), ("assistant", "Running mvn."),
        ("user", "dont use the system mvn, it's ancient. always ./mvnw from the repo root"),
        ("assistant", "Ok."),
        ("user", "mvn again?? I told you last week. ./mvnw. the wrapper. every single time.")]))
    assert [(n["text"], n["said"]) for n in notes if n["type"] == "directive"] == [
        ("Dont use the system mvn, it's ancient; always ./mvnw from the repo root.",
         "2 times in 1 session")]


def test_a_command_the_user_said_no_to_right_after_it_ran_is_no_way_to_work_nor_a_pitfall():
    # the agent's mistake: the lesson is the user's rule, not a command or a pitfall
    notes = _run(*[_session(f"pi-{n}", [
        ("user", "add the integrator"), ("assistant", "Installing utest."),
        ("call", "haxelib install utest"), ("ok", "Installing utest\nDone"),
        ("user", "no, no haxelib install!! `npx lix download` installs what is pinned"),
        ("call", "npx lix download"), ("ok", "done"),
        ("call", "nim c -r tests/tcli.nim"),
        ("fail", "Exit code 1\n/src/serve.nim(2, 8) Error: cannot open file: mummy"),
        ("user", "dont call nim c on the test files, tests go through nimble")], 10 * n)
        for n in (1, 2)])
    shown = [n["text"] for n in notes if n["type"] in ("command", "failure")]
    assert not any("haxelib install" in t or "nim c" in t for t in shown), shown
    assert shown == [], shown
    # a command said once with a "no" elsewhere in the sentence, or with its fix shown, stays
    kept = _run(*[_session(f"codex-{n}", [
        ("user", "fix the search"), ("assistant", "Running the tests."),
        ("call", "pytest tests/test_api.py -q"),
        ("fail", "Exit code 4\nE   django.core.exceptions.ImproperlyConfigured: Requested "
                 "setting INSTALLED_APPS, but settings are not configured."),
        ("user", "don't call pytest yourself, tox sets DJANGO_SETTINGS_MODULE"),
        ("call", "tox -e py312 -- tests/test_api.py"), ("ok", "py312: OK\n3 passed")], 10 * n)
        for n in (1, 2)])
    assert any("ImproperlyConfigured" in n["text"] and "tox -e py312" in n["text"]
               for n in kept if n["type"] == "failure"), kept
    assert [n["text"] for n in _run(_session("pi-1", [
        ("user", "add it"), ("assistant", "Running."), ("call", "cargo test --workspace"),
        ("ok", "test result: ok. 9 passed"),
        ("user", "no, just run cargo test, the workspace one is slow")]))
        if n["type"] == "command"] != []


def test_a_retry_that_got_past_the_cause_shows_the_fix_even_when_it_then_fails_in_the_code():
    """Adding a flag made the first failure go away and the command went on to fail in a
    test: the flag is the fix. A retry with nothing changed but the code shows none."""
    missing = "Error: config 'staging' not found in ./deploy/configs (searched ~/.tool)"
    [pitfall] = _pitfalls(
        _session("claude-1", [("call", "tool check --env staging"), ("fail", missing),
                              ("call", "tool check --env staging --config-dir ./deploy/configs"),
                              ("fail", "FAILED check_limits: expected 5, got 7")]),
        _session("pi-2", [("call", "tool check --env staging"), ("fail", missing),
                          ("call", "tool check --env staging --config-dir ./deploy/configs"),
                          ("ok", "all checks passed")], 10))
    assert "not found" in pitfall and "--config-dir ./deploy/configs" in pitfall


def test_a_step_the_user_said_no_to_is_no_fix_and_a_wrapper_of_the_whole_command_is():
    no_mod = "E   ModuleNotFoundError: No module named 'attrs'"
    [pitfall] = _pitfalls(
        _session("codex-1", [("call", "pytest -q tests/test_io.py"), ("fail", no_mod),
                             ("call", "pip install attrs"), ("ok", "Successfully installed"),
                             ("user", "no pip here, ever. it goes through hatch."),
                             ("call", "hatch run pytest -q"), ("ok", "12 passed")]),
        _session("codex-2", [("call", "pytest -q"), ("fail", no_mod),
                             ("call", "hatch run pytest -q"), ("ok", "12 passed")], 10))
    assert pitfall.endswith("Fix: run `hatch run pytest -q`.")
    not_there = "/bin/sh: 1: iverilog: not found\nmake: *** [sim] Error 127"
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "make -C sim TOP=fifo"), ("fail", not_there),
        ("user", "nix develop -c make ... the tools only exist in the dev shell"),
        ("call", "nix develop -c make -C sim TOP=fifo"), ("ok", "PASS=4 FAIL=0")]))
    assert "iverilog: not found" in pitfall
    assert pitfall.endswith("Fix: run `nix develop -c make -C sim TOP=fifo`.")


def test_a_one_off_fix_the_user_named_is_a_pitfall_and_an_interrupted_run_is_no_failure():
    """A failure seen once whose fix the user named right after it (a flag, here) is worth
    knowing; a command the user interrupted did not fail on its own."""
    wrong = ("Fetching quota for project 4412 ...\nThe active login belongs to project 9981, "
             "not 4412\nSubprocess exited with error 1")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "cloudtool plan"), ("fail", wrong),
        ("user", "--login dev-sandbox, like always"),
        ("call", "cloudtool plan --login dev-sandbox"), ("ok", "Plan: 2 to add")]))
    assert "active login belongs to project 9981" in pitfall      # not the summary line
    assert pitfall.endswith("Fix: run `cloudtool plan --login dev-sandbox`.")
    assert _pitfalls(_session("claude-1", [
        ("call", "cargo build --release"), ("fail", "Error: Command was interrupted by the user"),
        ("user", "run `cargo build` instead, release takes forever"),
        ("call", "cargo build"), ("ok", "Finished dev")])) == []


def test_a_one_off_failure_fixed_by_an_edit_of_the_code_is_no_pitfall_and_a_failing_test_neither():
    gone = "Model 'orders' depends on a node named 'stg_order' which was not found"
    edit = [("call", "dbt run --select orders"), ("fail", gone)]
    session = _session("claude-1", edit)
    session.append({"handle": "claude-1:9", "stream": "claude-1", "source": "claude_code",
                    "said_at": "2026-04-06T10:09:00Z", "role": "tool", "kind": "tool_result",
                    "evidence": True, "text": "The file models/orders.sql has been updated.",
                    "tool_name": "Edit", "is_error": False})
    session += _session("claude-1", [("call", "dbt run --select orders"), ("ok", "Completed")],
                        10)
    assert _pitfalls(session) == []
    snap = (" FAIL  test/app.test.ts\n  › 1 snapshot failed. Inspect your code changes or run "
            "`npm test -- -u` to update them.")
    assert _pitfalls(_session("codex-1", [("call", "npm test"), ("fail", snap),
                                          ("call", "npm test -- -u"), ("ok", "1 updated")])) == []


def test_causes_that_differ_only_in_a_quoted_name_are_one_pitfall_and_a_dotted_name_is_no_program():
    a = '✘ [ERROR] Could not resolve "node:path"\n\n    src/a.ts:1:20:'
    b = '✘ [ERROR] Could not resolve "events"\n\n    src/b.ts:3:9:'
    [pitfall] = _pitfalls(_session("codex-1", [("call", "npm run build"), ("fail", a)]),
                          _session("codex-2", [("call", "npm run build"), ("fail", b)], 10))
    assert "Could not resolve" in pitfall and "2 times in 2 sessions" not in pitfall
    quota = "Failure: plugin remote.example/go: quota exceeded: too many requests"
    [pitfall] = _pitfalls(
        _session("codex-1", [("call", "remote check && remote generate"), ("fail", quota)]),
        _session("codex-2", [("call", "remote generate"), ("fail", quota)], 10))
    assert pitfall.startswith("`remote generate` fails with")


def test_a_bare_error_label_names_no_cause_and_an_indented_diagnostic_does():
    from dream.detect.failures import cause_line
    nested = ("checking the config...\nerror:\n       … while evaluating the module\n"
              "         at /store/abc-source/lib/eval.conf:12:3:\n\n"
              "       error: file '/store/abc-source/conf/extra.conf' does not exist")
    assert cause_line(nested) == "error: file '/store/abc-source/conf/extra.conf' does not exist"
    runner = ("00:01 +0 -1: loading spec/widget_spec.ext [E]\n  Failed to load \"spec/widget_"
              "spec.ext\":\n  lib/widget.gen.ext:9:5: Error: Unknown field 'width'.\n"
              "00:01 +0 -1: Some specs failed.")
    assert cause_line(runner) == "lib/widget.gen.ext:9:5: Error: Unknown field 'width'."


def test_two_rules_are_alike_whichever_of_them_quotes_the_name_from_the_code():
    """ "`bigint`" is quoted only in the later sentence: either one naming what the other
    says, with another word shared, is the same rule (grouping is order-free)."""
    from dream.detect.grouping import Sentence, alike
    plain = Sentence("Mid-change it's bigint cents for amounts, not bare floats.",
                     _evidence(_session("claude-1", [("user", "x")])).items[0])
    quoted = Sentence("No bare floats for money; amounts are `bigint` cents, like before.",
                      _evidence(_session("codex-2", [("user", "y")], 10)).items[0])
    assert alike(plain, quoted) and alike(quoted, plain)
    # a name of several words ("`zig build test`") is said again when all its words are
    command = Sentence("Don't call zig test on single files; `zig build test` wires the modules.",
                       _evidence(_session("claude-1", [("user", "x")])).items[0])
    short = Sentence("Tests go through zig build every time.",
                     _evidence(_session("pi-2", [("user", "y")], 10)).items[0])
    assert alike(command, short) and alike(short, command)


def test_a_known_pitfall_proposal_keeps_the_step_that_fixed_it():
    gem = ("tool (FATAL): Unable to find a runtime gem that matches the requirement "
           "'= 7.34.0'. Available runtime gems: 8.10.0, 8.9.0, 8.8.1, 8.7.0, 8.6.0")
    sessions = [_session(f"pi-{n}", [("call", "tool test unit"), ("fail", gem),
                                     ("call", "tool test unit --runtime-version 7"),
                                     ("ok", "42 examples, 0 failures")], n * 10)
                for n in (1, 2)]
    lessons = [c.change["lessons"][0] for c in codify.run(_evidence(*sessions)).candidates
               if "pitfall" in c.title]
    assert len(lessons) == 1 and lessons[0].endswith("--runtime-version 7`.")


def test_a_flags_only_command_of_the_same_program_is_no_retry_and_a_tagged_error_comes_first():
    """``engine --headless --reindex`` is another job of the same program, not a retry of
    ``engine --headless -s run_tests.scr``: it is the step between, and the retry that got
    past the first error shows it; the first error line, tagged "SCRIPT ERROR", is the cause."""
    parse = ("SCRIPT ERROR: Parse Error: Could not find type \"Paddle\" in the current scope.\n"
             "ERROR: Failed to load script \"res://tests/test_paddle.scr\" with error \"Parse "
             "error\".\nTotals: 0 passing")
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "engine --headless -s run_tests.scr"), ("fail", parse),
        ("user", "the class index is empty on a fresh clone, run `engine --headless --reindex` "
                 "once first"),
        ("call", "engine --headless --reindex"), ("ok", "Reindexed 40 classes"),
        ("call", "engine --headless -s run_tests.scr"), ("fail", "Failing: 1 (paddle bounce)")]))
    assert 'Could not find type "Paddle"' in pitfall
    assert pitfall.endswith("Fix: run `engine --headless --reindex`.")


def test_a_retry_on_another_value_is_part_of_the_fix_and_what_failed_with_its_reason_is_the_cause():
    missing = "Failure: git ref 'trunk' not found in this shallow clone"
    [pitfall] = _pitfalls(*(_session(f"codex-{n}", [
        ("call", "schema diff --base git:trunk"), ("fail", missing),
        ("call", "git fetch --depth=20 origin trunk && schema diff --base git:origin/trunk"),
        ("ok", "no changes")], n * 10) for n in (1, 2)))
    assert pitfall.endswith("Fix: run `git fetch --depth=20 origin trunk && schema diff --base "
                            "git:origin/trunk`.")
    from dream.detect.failures import cause_line
    two = ("\nIn Connection.php line 70:\n\n  resolving cache-host failed: Temporary failure in "
           "name resolution\n\nIn Logger.php line 12:\n\n  The log file could not be opened\n\n"
           "Command exited with code 1")
    assert cause_line(two).startswith("resolving cache-host failed: Temporary failure")


def test_a_short_negation_is_not_as_never_is_and_an_elided_word_is_no_content():
    """The review read "don't" as the word "don" (the apostrophe split it), so "don't rebase
    shared branches" and "never rebase shared branches" differed by a word; an elided article
    or pronoun ("qu'elles", "l'") and a subject pronoun are no content either."""
    from dream.detect.grouping import said

    assert said("don't rebase shared branches") == said("never rebase shared branches")
    assert said("the linter isn't optional") == said("the linter not optional")
    assert said("c'est l'option qu'elles utilisent") == said("option utilisent")
    assert "ils" not in said("les fixtures, ils restent dans tests/data")


def test_only_said_in_another_language_is_the_scope_word_only_is():
    from dream.detect.grouping import said

    assert "scope" in said("Classes utilitaires uniquement") & said("utility classes only")
    assert "scope" in said("solo con pnpm, nunca npm")


def test_a_short_paraphrase_sharing_three_words_that_say_something_is_the_same_rule():
    """Three shared words, two of them about what the rule is about, make a short paraphrase
    the same rule ("not releases ... locally" / "do not cut terraform releases locally"); three
    shared words of every rule ("make sure", "also") do not."""
    from dream.detect.grouping import close, said
    from dream.detect.wording import core

    a = said(core("Only lint and typecheck locally, not releases; those run in CI on the tag."))
    b = said("Do not cut terraform releases locally.")
    assert close(a, b)
    assert not close(said("Make sure the changelog also mentions the flag rename"),
                     said("Also make sure the api docs are regenerated"))


def test_a_repeated_rule_said_in_other_words_shows_the_reviewer_how_it_was_said():
    """A rule said once in full and once short in another session is one proposal; its text
    quotes the shorter wording too, so the reviewer sees why they are one rule."""
    first = _session("claude-1", [
        ("user", "bump the alpine base image"), ("assistant", "Done, image builds."),
        ("user", "no pushes from here, ever. images go out from CI on the tag and cost "
                 "registry quota. lint and hadolint is all you run locally")])
    second = _session("codex-2", [
        ("user", "add a healthcheck"), ("assistant", "Pushing the image now."),
        ("user", "no, do not use docker push locally")], start=10)
    [proposal] = [c for c in codify.run(_evidence(first, second)).candidates
                  if c.title.startswith("Add to")]
    assert "Also said as:" in proposal.change["text"]
    assert "docker push" in proposal.change["text"]


def test_a_rule_whose_second_half_is_what_another_session_said_is_that_rule_said_again():
    """The reason kept after ";" is left out when rules are compared, but a rule said as two
    clauses ("don't tag anything from here ...; only the pipeline cuts releases") says in its
    second one what another session's rule said: one rule said twice."""
    from dream.detect import grouping

    def said(n: int, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=f"s{n}"))

    groups = grouping.group([
        said(1, "Releases are cut by the pipeline, never from a laptop."),
        said(2, "Don't tag anything from here, not even a dry run; only the pipeline cuts "
                "releases.")])
    assert [len(g.items) for g in grouping.repeated(groups)] == [2]
    # two rules of one session are never grouped this way, nor two whose words differ
    groups = grouping.group([
        said(1, "Releases are cut by the pipeline, never from a laptop."),
        said(2, "Don't edit the fixtures by hand; the generator rewrites them.")])
    assert not grouping.repeated(groups)


def test_a_product_name_inside_a_compound_word_is_no_name_the_two_rules_share():
    """"GitLab-Vorlagen" is a German compound (the GitLab templates), one word as the review
    reads words: two rules that share only "not" and the product named in it are two rules."""
    from dream.detect import grouping

    def said(n: int, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=f"s{n}"))

    assert "gitlab" not in grouping.named("Die Images kommen nicht aus den GitLab-Vorlagen.")
    assert "gitlab" in grouping.named("Pipelines startest du nie lokal, nur in GitLab selbst.")
    groups = grouping.group([
        said(1, "Pipelines startest du nie lokal, nur in GitLab selbst."),
        said(2, "Runner-Images kommen aus unserer Registry, nicht aus den GitLab-Vorlagen.")])
    assert not grouping.repeated(groups)


def test_grouping_reads_each_sentence_once_however_many_it_is_compared_with(monkeypatch):
    """Every sentence is compared with every group, so its words, names and tools are read
    once and kept: grouping 150 different rules from six sessions reads words a number of
    times that grows with the sentences, not with the pairs (it took seconds on a few
    hundred rules)."""
    from dream.detect import grouping, wording

    def said(n: int, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=f"s{n % 6}"))

    rules = [said(n, f"Use omega{n}.yaml for the zeta{n} `kappa{n}` job.")
             for n in range(150)]
    calls = 0

    def counted(text: str) -> frozenset[str]:
        nonlocal calls
        calls += 1
        return wording.words(text)

    for cached in (grouping.said, grouping.named, grouping._words, grouping._tools):
        cached.cache_clear()
    monkeypatch.setattr(grouping, "words", counted)
    groups = grouping.group(rules)
    assert len(groups) == len(rules)
    assert calls <= 6 * len(rules), calls


def test_a_rule_said_again_in_words_read_as_no_rule_counts_when_the_user_says_it_was_said():
    """A rule said once as a rule, and in another session again in words the run does not
    read as a rule, is proposed as said twice when the later statement says it was said
    before ("again", "like I said last time"); the rule shown stays the one said as a rule,
    the other sentence is quoted."""
    first = _session("claude-1", [
        ("user", "add the retry helper to net.lua"), ("assistant", "Added; formatting now."),
        ("user", "we format with bin/stylua, the one from the repo, NOT the global stylua "
                 "from luarocks, that one is 0.18 and reflows everything")])
    second = _session("pi-2", [
        ("user", "the backoff should cap at 30s"), ("assistant", "Capped and formatted."),
        ("user", "thats the global stylua again. bin/stylua please")], start=10)
    [proposal] = [c for c in codify.run(_evidence(first, second)).candidates
                  if c.title.startswith("Add to")]
    assert "bin/stylua" in proposal.title and len(proposal.items) == 2
    assert "Also said as:" in proposal.change["text"]
    assert "the global stylua again" in proposal.change["text"]
    # said in the later session without saying it was said before: a mention, not a saying
    plain = _session("pi-2", [
        ("user", "the backoff should cap at 30s"), ("assistant", "Capped and formatted."),
        ("user", "looks good. bin/stylua is fine with it")], start=10)
    assert not [c for c in codify.run(_evidence(first, plain)).candidates
                if c.title.startswith("Add to")]


def test_a_sentence_said_again_only_joins_the_rule_it_names_and_a_task_naming_a_tool_is_none():
    """The later statement says it was said before, but that alone makes no sentence of the
    other session a saying of the rule: an earlier sentence naming the same thing from the
    code is ("you need `make gen-proto` first"), a task that only names the same tool is not
    ("check it comes up in tilt")."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str, kind: str = "statement") -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", kind, True, text, stream=stream,
                                            said_at=f"2026-04-0{n}T10:00:00Z"))

    rule = said(5, "s2", "After a schema change run `make gen-proto` before building, "
                         "I said this last week.")
    groups = grouping.group([rule])
    earlier = said(1, "s1", "when the .proto files changed you need `make gen-proto` first, "
                            "it regenerates the stubs.")
    grouping.said_again(groups, [earlier, rule])
    assert [s.text for s in groups[0].again] == [earlier.text]
    tilt = said(6, "s2", "Always check the context is kind-local before tilt up, like I "
                         "said last time.")
    groups = grouping.group([tilt])
    task = said(2, "s1", "bump the memory limit and check it comes up in tilt")
    grouping.said_again(groups, [task, tilt], frozenset({"tilt"}))
    assert not grouping.repeated(groups)


def test_a_rule_whose_first_clause_names_nothing_is_compared_whole_and_same_as_always_says_again():
    """"Nope, not that; `cargo build -p ledger-api` only" has a first clause of one word the
    review compares ("not"): it was left out of the grouping, so the rule said in full in
    another session stood alone; read whole, it is that rule said again. And "same as
    always" says a sentence was said before, as "like last time" does."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-0{n}T10:00:00Z"))

    groups = grouping.group([
        said(1, "s1", "Never build the whole workspace, it takes twenty minutes; always "
                      "`cargo build -p ledger-api` for the service."),
        said(2, "s2", "Nope, not that; `cargo build -p ledger-api` only.")])
    assert [len(g.items) for g in grouping.repeated(groups)] == [2]
    rule = said(1, "s1", "Preview only against staging — `pulumi preview` is fine, but never "
                         "`pulumi up` yourself, the deploy job applies after merge.")
    groups = grouping.group([rule])
    again = said(2, "s2", "preview only, same as always — the deploy job applies, not us")
    grouping.said_again(groups, [rule, again])
    assert [s.text for s in groups[0].again] == [again.text]


def test_a_rule_said_again_in_its_own_words_counts_without_saying_it_was_said():
    """A later session's sentence that says the rule in its words ("not helm upgrade on prod,
    that's the pipeline's job" after "we never run helm upgrade against prod from a laptop")
    is the rule said again, though it does not say it was said before and is read as no
    rule of its own; a sentence sharing only "not" and "from here", or a task naming the
    same tool, is not."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-0{n}T10:00:00Z"))

    rule = said(1, "s1", "We never run helm upgrade against prod from a laptop.")
    again = said(3, "s2", "not helm upgrade on prod, that's the pipeline's job.")
    groups = grouping.group([rule])
    grouping.said_again(groups, [rule, again])
    assert [s.text for s in groups[0].again] == [again.text]
    for other in ("not from here.", "bump the chart version and show me the helm diff for "
                                    "staging"):
        groups = grouping.group([rule])
        grouping.said_again(groups, [rule, said(3, "s2", other)])
        assert not grouping.repeated(groups), other


def test_a_statement_read_as_a_rule_may_say_another_rule_again_in_its_other_sentences():
    """"Migrations go through `make migrate` ... and the seed data: psql -f fixtures/seed.sql
    after every migration": the statement was read as the first rule, and its other
    sentence says the rule another session said; it was skipped whole."""
    from dream.detect import grouping

    statement = Item(1, "i1", "user", "statement", True, "", stream="s1",
                     said_at="2026-04-01T10:00:00Z")
    migrate = grouping.Sentence("Migrations go through `make migrate`, never alembic by hand.",
                                statement)
    seed = grouping.Sentence("and the seed data: psql -f fixtures/seed.sql after every "
                             "migration.", statement)
    later = grouping.Sentence("Always load fixtures/seed.sql with psql after a migration.",
                              Item(4, "i4", "user", "statement", True, "", stream="s2",
                                   said_at="2026-04-04T10:00:00Z"))
    groups = grouping.group([migrate, later])
    grouping.said_again(groups, [migrate, seed, later])
    assert [(g.rule, [s.text for s in g.again]) for g in groups] == [
        (migrate.text, []), (later.text, [seed.text])]


def test_a_rule_that_says_it_was_said_before_finds_its_earlier_saying():
    """The rule itself says it was said before ("load the seed with psql after every
    migration, like I said last time"): the other session's sentence sharing two words of
    what it is about is the saying it points at; one sharing a single word is not."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-0{n}T10:00:00Z"))

    rule = said(4, "s2", "Load the seed with psql after every migration, like I said last time.")
    earlier = said(2, "s1", "the seed data lives in fixtures/seed.sql, load it with psql once "
                            "the schema is up")
    groups = grouping.group([rule])
    grouping.said_again(groups, [earlier, rule])
    assert [s.text for s in groups[0].again] == [earlier.text]
    groups = grouping.group([rule])
    grouping.said_again(groups, [said(2, "s1", "psql is in the nix shell, no need to install "
                                               "it"), rule])
    assert not grouping.repeated(groups)


def test_a_pair_of_names_or_a_path_joined_by_a_slash_says_each_of_its_names():
    """"Logging goes through LOG_INFO/LOG_WARN" names LOG_WARN and "./tools/fmt" is
    "tools/fmt": a later "I told you, LOG_WARN(tag, ...)" or "tools/fmt, like I said" says
    the rule again; read as one word each, they shared nothing. Each name counts once: a
    path shared with the rule is one word shared, not three."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-0{n}T10:00:00Z"))

    assert {"log_warn", "log_info"} <= grouping.said("Logging goes through LOG_INFO/LOG_WARN.")
    assert grouping.said("use ./tools/fmt") == grouping.said("use tools/fmt") == {
        "use", "tool", "fmt"}
    for rule_text, again_text in [
            ("Logging goes through LOG_INFO/LOG_WARN with a tag per module, never printf.",
             "I told you, LOG_WARN(tag, ...)."),
            ("Formatting is ./tools/fmt from the repo, not the global one.",
             "tools/fmt, like I said.")]:
        rule = said(1, "s1", rule_text)
        groups = grouping.group([rule])
        grouping.said_again(groups, [rule, said(3, "s2", again_text)])
        assert [s.text for s in groups[0].again] == [again_text], rule_text


def test_dutch_swedish_and_polish_say_a_rule_was_said_before_as_the_other_languages_do():
    """Rules are read in Dutch, Swedish and Polish, so "weer zo'n ...", "som jag sa", "znowu"
    say a sentence was said before as "again" and "te lo dije" do; doing it once more ("doe
    het weer", "kör den igen", "spróbuj znowu") does not."""
    from dream.detect import grouping

    for text in ("Weer zo'n losse SQL-string in de controller...", "Zoals ik al zei: alleen "
                 "via de repository.", "Hoe vaak nog?", "Alltid via Makefile, som jag sa.",
                 "Jag har ju redan sagt det.", "Znowu ręczny deploy...", "Jak już mówiłem, "
                 "tylko przez pipeline.", "Ile razy?"):
        assert grouping.said_before(text), text
    for text in ("Doe het weer na de migratie.", "Kör den igen med --verbose.",
                 "Spróbuj znowu z czystym cache."):
        assert not grouping.said_before(text), text

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-0{n}T10:00:00Z"))

    rule = said(1, "s1", "Queries gaan via de repository, geen losse SQL-strings in de "
                         "controllers.")
    again = said(3, "s2", "Weer zo'n losse SQL-string in de controller...")
    groups = grouping.group([rule])
    grouping.said_again(groups, [rule, again])
    assert [s.text for s in groups[0].again] == [again.text]


def test_what_did_i_say_i_keep_saying_and_czech_say_a_rule_was_said_before():
    """"what did I say.", "didn't I tell you", "I keep saying this" say a sentence was said
    before as "like I said" does, and so do the Czech "říkal jsem", "už jsem ti to říkal",
    "kolikrát" (rules are read in Czech); asking what the agent said or did, keeping a
    thing and a plain Czech past tense do not."""
    from dream.detect import grouping

    for text in ("what did I say. previews only from this laptop", "didn't I tell you to "
                 "pin it?", "fixtures first. I keep saying this", "říkal jsem, jen proti "
                 "stagingu", "už jsem ti to říkal, žádný force push", "kolikrát ještě?"):
        assert grouping.said_before(text), text
    for text in ("what did you change in the config?", "I keep the logs for a week",
                 "jsem to opravil včera", "what did the linter say?"):
        assert not grouping.said_before(text), text


def test_a_rule_said_again_by_a_statement_whose_sentences_say_it_only_together():
    """"where's the limit for /export? without one the gateway drops everything. same as
    last time" says again "every endpoint gets a rate limit in the gateway config" though no
    sentence of it shares two words with the rule: the two statements do, one of them a
    word of the rule, and the later one says it was said before in a sentence of its own.
    The saying quoted is its sentences that say it. A statement whose "like last time"
    points at something else ("run the load test like last time"), one saying it only with
    "again", and one sharing only a tool and a verb with the rule are no saying."""
    from dream.detect import grouping, wording

    def said(n: int, stream: str, text: str) -> list[grouping.Sentence]:
        item = Item(n, f"i{n}", "user", "statement", True, text, stream=stream,
                    said_at=f"2026-04-0{n}T10:00:00Z")
        return [grouping.Sentence(t, item) for t in wording.split(text)]

    first = said(1, "s1", "add the /export endpoint. every endpoint gets a rate limit in the "
                          "gateway config, or the gateway drops its calls")
    rule = first[1]
    later = said(4, "s2", "looks fine. where's the limit for /export? without one the gateway "
                          "drops everything. same as last time")
    groups = grouping.group([rule])
    grouping.said_again(groups, first + later)
    [grp] = grouping.repeated(groups)
    assert [s.text for s in grp.again] == ["where's the limit for /export? without one the "
                                           "gateway drops everything. same as last time"]
    for other in ("the gateway needs a higher rate limit for /export. run the load test "
                  "like last time",
                  "where's the limit for /export again? without one the gateway drops "
                  "everything"):
        groups = grouping.group([rule])
        grouping.said_again(groups, first + said(4, "s2", other))
        assert not grouping.repeated(groups), other
    tilt = said(6, "s2", "Always check the context is kind-local before tilt up, like I said "
                         "last time.")
    groups = grouping.group(tilt)
    grouping.said_again(groups, said(2, "s1", "bump the memory limit and check it comes up "
                                              "in tilt") + tilt, frozenset({"tilt"}))
    assert not grouping.repeated(groups)


def test_a_no_to_the_agents_offer_says_no_to_what_was_offered():
    """"Want me to push the 1.4.0 image to the registry?" / "no, like last time: CI only":
    the reply names nothing of the rule said in the earlier session ("never push images to
    the registry from a laptop, CI pushes them on tag"), what it says no to does; it is
    proposed as that rule said again. An offer followed by something else, or answered
    with more than a no, adds nothing."""
    from dream.passes.evidence import rule_groups

    first = _session("claude-1", [
        ("user", "add the healthcheck to the Dockerfile"), ("assistant", "Added."),
        ("user", "never push images to the registry from a laptop. CI pushes them on tag")])
    offer = ("assistant", "Built and tested locally. Want me to push the 1.4.0 image to the "
                          "registry?")
    second = _session("pi-2", [("user", "bump the base image to alpine 3.20"), offer,
                               ("user", "no, like last time: CI only")], start=10)
    [grp] = [g for g in rule_groups(_evidence(first, second).items) if len(g.items) > 1]
    assert grp.rule.startswith("Never push images") and \
        [s.text for s in grp.again] == ["no, like last time: CI only"]
    for turns in ([offer, ("assistant", "Running the scan first."),
                   ("user", "no, like last time: CI only")],
                  [offer, ("user", "yes please, like last time: CI only")]):
        second = _session("pi-2", [("user", "bump the base image to alpine 3.20"), *turns],
                          start=10)
        assert not [g for g in rule_groups(_evidence(first, second).items)
                    if len(g.items) > 1], turns


def test_two_rules_that_say_no_to_one_tool_on_its_own_are_one_rule():
    """"tests run through `just test` -- never cargo directly, just sets the features" and,
    after the agent did it anyway, "Do not use bare cargo.": two statements saying no to one
    tool, on its own, are one rule said twice, though they share no other word. Saying no
    to a subcommand of it ("never `cargo publish`") or to something of it ("no cargo
    plugins") is another rule."""
    from dream.detect import grouping

    def said(n: int, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream="s1", said_at=f"2026-04-0{n}T10:00:00Z"))

    first = said(1, "tests run through `just test` -- never cargo directly, just sets the "
                    "features.")
    assert [len(g.items) for g in grouping.repeated(grouping.group(
        [first, said(3, "Do not use bare cargo.")]))] == [2]
    for other in ("Never `cargo publish` from here.", "No cargo plugins, please."):
        assert not grouping.repeated(grouping.group([first, said(3, other)])), other


def test_said_again_reads_each_statement_once_for_whether_it_says_it_was_said_before(monkeypatch):
    """Whether a statement (or a rule) says it was said before is read once per statement
    and once per rule, not once per pair of a rule and a sentence over every sentence heard
    (a project with 200 rules and 1,800 sentences took a minute in this step alone)."""
    from dream.detect import grouping

    def said(n: int, stream: str, text: str) -> grouping.Sentence:
        return grouping.Sentence(text, Item(n, f"i{n}", "user", "statement", True, text,
                                            stream=stream, said_at=f"2026-04-01T10:{n:02d}:00Z"))

    rules = [said(n, "s1", text) for n, text in enumerate([
        "Never edit the generated proto stubs by hand.",
        "Always run `make lint` before pushing a branch.",
        "Don't use the global stylua, use bin/stylua.",
        "Only deploy through the pipeline, never with kubectl apply."])]
    heard = rules + [said(10 + n, "s2", f"Look at the {name} output. It is odd.")
                     for n, name in enumerate(["alpha", "beta", "gamma", "delta", "omega"])]
    groups = grouping.group(rules)
    assert len(groups) == len(rules)
    calls = 0
    real = grouping.said_before

    def counted(text: str) -> bool:
        nonlocal calls
        calls += 1
        return real(text)

    monkeypatch.setattr(grouping, "said_before", counted)
    grouping.said_again(groups, heard)
    assert not any(g.again for g in groups)
    assert calls <= len({s.item.id for s in heard}) + len(rules), calls


def test_a_question_after_and_or_so_is_no_rule_whatever_it_adds():
    """"and why did you print the token, don't do that" asks, like the same question said
    first; the rule said as a rule stays."""
    from dream.detect.rule_text import rule_text

    assert rule_text("and why did you print the deploy token, don't do that", []) is None
    assert rule_text("so how does the cache get warmed, don't guess", []) is None
    said = rule_text("and don't print the deploy token in logs, ever", [])
    assert said is not None and "deploy token" in said, said


def test_wondering_with_the_subject_left_out_is_a_thought_not_a_rule():
    from dream.detect.rule_text import rule_text

    assert rule_text("wonder if we should've gone with sqlc instead of the ORM tbh", []) is None
    assert rule_text("hmm, wondering whether the cache should always live in redis", []) is None
    said = rule_text("never cache the session in redis, it has to survive restarts", [])
    assert said is not None and "redis" in said, said


def test_the_next_step_said_with_now_is_the_task_not_a_rule():
    """"now run the importer ..., I want to see the row counts" asks for the next step of
    the session; "I want" in it is no standing wish."""
    from dream.detect.rule_text import rule_text

    assert rule_text("now run the importer against the staging dump, I want to see the row "
                     "counts in the log", []) is None
    assert rule_text("then add the index to the migration, I want it fast", []) is None
    said = rule_text("now always run the importer with --dry-run first", [])
    assert said is not None and "--dry-run" in said, said


def test_a_report_that_something_fails_is_no_rule_but_a_way_around_it_is():
    """"gcc chokes on the vendored asm" and "the thumbnails don't load in safari" say how
    something behaves; said after "same thing as yesterday," or on its own it is no rule,
    while what to do beside it, or that it fails here, still is."""
    from dream.detect.rule_text import rule_text

    notes = _run(_session("pi-1", [
        ("assistant", "The build failed on the asm objects."),
        ("user", "clang!! same thing as yesterday, gcc chokes on the vendored asm. "
                 "CC=clang every time"),
        ("assistant", "Rebuilt with clang."),
        ("user", "the thumbnails don't load in safari, only broken icons. check the srcset "
                 "and fix it")]))
    texts = [n["text"] for n in notes if n["type"] in ("correction", "directive")]
    assert not [t for t in texts if "chokes" in t or "thumbnails" in t], texts
    assert rule_text("the thumbnails don't load in safari, only broken icons.", []) is None
    said = rule_text("the e2e tests don't build with gcc, use clang", [])
    assert said is not None and "clang" in said, said
    said = rule_text("the e2e tests don't build with gcc in this repo", [])
    assert said is not None and "gcc" in said, said


def test_here_you_dont_even_need_it_is_about_the_code_at_hand():
    from dream.detect.rule_text import rule_text

    assert rule_text("here you don't even need it — just index the array", []) is None
    assert rule_text("you don't really need that, the loop is fine", []) is None
    said = rule_text("you don't need sudo for anything in this repo", [])
    assert said is not None and "sudo" in said, said


def test_where_a_tool_is_installed_is_no_rule_but_where_project_files_live_is():
    from dream.detect import directives

    assert directives.classify("clang 18 lives in /opt/llvm and gets on PATH through mise",
                               coding=True) is None
    assert directives.classify("the shared fixtures live in tests/fixtures/",
                               coding=True) == "directive"


def test_no_x_said_alone_is_a_rule_and_an_answer_or_a_report_is_not():
    """"no terser." and "no docker compose down -v." refuse a thing in a sentence of their
    own, as "no sync, no apply, ever" and "no globals in handlers, module state" do; "no
    idea.", "no wait, ..." and "no warnings reported." answer or report; a clause of its own
    after the comma ("no mocks, the fake is fine for now") is left to the other markers."""
    from dream.detect import directives
    from dream.detect.rule_text import rule_text

    for said in ("no terser.", "no docker compose down -v.", "no sync, no apply, ever.",
                 "no globals in handlers, module state."):
        assert directives.classify(said, coding=True) == "directive", said
        assert rule_text(said, []) is not None, said
    for said in ("no idea.", "no wait, the other file", "no warnings reported.", "No luck.",
                 "no mocks, the fake is fine for this test"):
        kind = directives.classify(said, coding=True)
        assert kind is None or rule_text(said, []) is None, said
    assert rule_text("no terser.", []) == "Do not use terser."


def test_no_x_said_alone_takes_the_rule_said_after_it():
    """"no helm upgrade." then "I said: nothing gets deployed from here, flux does it" is
    one rule; "no raw sql in views." then where the queries go is one rule too."""
    rules = _rules(_session("pi-1", [
        ("assistant", "Running helm upgrade."),
        ("user", "no helm upgrade. I said: nothing gets deployed from here, flux does it."),
        ("assistant", "ok"),
        ("user", "no raw sql in views. queries go in app/queries/ with a test each"),
        ("assistant", "ok")]))
    assert rules == [
        "Do not use helm upgrade; nothing gets deployed from here, flux does it.",
        "Do not use raw sql in views; queries go in app/queries/ with a test each."], rules


def test_a_prohibition_takes_a_bare_command_said_with_its_reason_after_it():
    """"no npx, I told you last time." + "pnpm exec vitest run — the lockfile pins vitest":
    the command is what to use, its reason kept once; "don't use pip install, ..." + "poetry:
    `poetry add httpx`" names the way too."""
    from dream.detect.rule_text import rule_text

    said = rule_text("no npx, I told you last time.",
                     ["pnpm exec vitest run — the lockfile pins vitest"],
                     "pnpm exec vitest run — the lockfile pins vitest")
    assert said == "Use pnpm exec vitest run, not npx; the lockfile pins vitest.", said
    said = rule_text("don't use pip install, it skips the lockfile.",
                     ["poetry: `poetry add httpx`"])
    assert said is not None and "`poetry add httpx`" in said, said


def test_dont_x_from_here_in_three_words_is_a_rule_and_never_from_here_alone_is_not():
    from dream.detect.rule_text import rule_text

    said = rule_text("Don't deploy from here.", [],
                     "Deploying is the release job's business, you only build.")
    assert said is not None and said.startswith("Don't deploy from here"), said
    assert rule_text("never from here", []) is None


def test_how_code_is_formatted_said_as_one_tool_and_not_another_is_a_rule():
    """"formatting is black, not yapf" and "docstrings here are sphinx style, not numpy" say
    how code is written here, even in the request that opens a session; "the problem is
    caching, not the network" is a diagnosis."""
    from dream.detect import directives

    assert _rules(_session("codex-1", [
        ("user", "add a --dry-run flag to the sync command. Docstrings here are sphinx style, "
                 "not numpy.")])) == ["Docstrings here are sphinx style, not numpy."]
    assert directives.classify("also formatting is black, not yapf — config is in "
                               "pyproject.toml", coding=True) == "directive"
    assert directives.classify("the problem is caching, not the network",
                               coding=True) != "directive"


def test_a_reason_pointing_back_with_they_or_it_is_kept():
    from dream.detect.rule_text import rule_text

    said = rule_text("never publish the crate from here.", [],
                     "it goes out only through the release workflow after the tag is pushed")
    assert said == ("Never publish the crate from here; it goes out only through the release "
                    "workflow after the tag is pushed."), said


def test_what_to_do_on_a_condition_may_start_with_a_command_in_backticks():
    from dream.detect.rule_text import rule_text

    said = rule_text("don't bundle update.", ["Gemfile.lock is pinned for the release branch",
                                              "if you need a gem, `bundle add` it and tell me"])
    assert said is not None and "`bundle add`" in said, said


def test_actually_no_before_a_rule_is_a_lead_in():
    from dream.detect import wording

    assert wording.plain_rule("actually no — no tagging from the agent.") == \
        "No tagging from the agent."


def test_a_plural_in_ses_is_the_same_word_as_its_singular():
    # "releases" and "release" are one word when two rules are compared; "passes" stays
    # "pass"
    from dream.detect import wording
    assert wording.words("tag the releases from CI") == wording.words("tag the release from CI")
    assert wording.words("the databases get migrated") >= wording.words("database migrated")
    assert wording.words("the check passes") >= wording.words("pass")


def test_from_here_is_read_in_linear_time_on_a_long_run_of_dashes():
    """A sentence of 50,000 dashes (a pasted rule line) was tried as "three words, then
    from here" at every split of the run: seconds, growing with the square of its length.
    What it reads is unchanged (the hostile line is read, and read as no rule)."""
    from dream.detect.rule_text import _FROM_HERE
    assert not _FROM_HERE.match("-" * 50_000)
    assert _FROM_HERE.match("-- no devnet deploys from here.")
    assert _FROM_HERE.match("don't flash from here!")
    assert not _FROM_HERE.match("never from here")


def test_a_prohibition_takes_the_other_way_said_past_a_reminder_or_naming_the_same_thing():
    """"no panics. the firmware has no unwinder, remember? return an Err with the code": the
    reminder between says why, the "return ..." after it what to do instead; "no releases from
    your laptop" + "tag it and CI releases" names what is refused again: its other half; "no
    staging pushes" + "open a PR, always": "staging" only says which pushes are refused."""
    from dream.detect.rule_text import rule_text

    assert rule_text("no panics.", ["the firmware has no unwinder, remember?",
                                    "return an Err with the code"]) is not None
    rules = _rules(_session("claude-1", [
        ("user", "wire the sensor read into the loop"), ("assistant", "done"),
        ("user", "no panic. the firmware has no unwinder, remember? return an Err with the "
                 "code"), ("assistant", "ok"),
        ("user", "no releases from your laptop, ever. push a tag and CI releases"),
        ("assistant", "ok"),
        ("user", "no staging pushes from the agent. open a PR, always"), ("assistant", "ok")]))
    said = " | ".join(rules)
    assert any("panic" in r and "return an Err" in r for r in rules), said
    assert any("releases from your laptop" in r and "CI releases" in r for r in rules), said
    assert any("staging pushes" in r and "open a PR" in r for r in rules), said
    assert "not staging" not in said, said


def test_a_rule_said_again_loses_as_i_said_and_alone_it_names_too_little():
    """"use the money type, like I said last time" is the rule said again, without the
    pointer; "component, please, like I told you before" after "raw divs again" names one
    word: no line."""
    rules = _rules(_session("pi-1", [
        ("user", "add the refund total"), ("assistant", "done"),
        ("user", "use the Money type for amounts, like I said last time"), ("assistant", "ok"),
        ("user", "raw divs again. component, please, like I told you before"),
        ("assistant", "ok")]))
    assert rules == ["Use the Money type for amounts."], rules


def test_every_one_gets_one_takes_the_thing_asked_for_and_alone_is_no_rule():
    """"where is the changelog entry?? every PR needs one" names what "one" is; "every PR
    needs one" said alone does not."""
    rules = _rules(_session("codex-1", [
        ("user", "bump the parser"), ("assistant", "done, PR is up"),
        ("user", "where is the changelog entry?? I told you every PR needs one"),
        ("assistant", "added")]))
    assert rules == ["Every PR needs a changelog entry."], rules
    assert _rules(_session("codex-1", [
        ("user", "bump the parser"), ("assistant", "done, PR is up"),
        ("user", "every PR needs one"), ("assistant", "ok")])) == []


def test_no_flag_said_with_the_flag_written_out_is_the_flag_missing():
    """"NO namespace flag. --namespace billing-dev on every helm call": the flag is missing
    from what the agent ran, not refused; "no verbose flag, it floods CI" refuses it."""
    rules = _rules(_session("claude-1", [
        ("user", "roll the chart"), ("assistant", "running helm upgrade api ./chart"),
        ("user", "NO namespace flag. that goes to default. --namespace billing-dev on every "
                 "helm call"), ("assistant", "ok")]))
    assert not any("Do not use namespace" in r for r in rules), rules
    assert any("verbose flag" in r for r in _rules(_session("claude-1", [
        ("user", "roll the chart"), ("assistant", "done"),
        ("user", "no verbose flag, it floods CI"), ("assistant", "ok")])))


def test_the_question_mark_operator_named_at_the_end_is_no_question():
    """"... or propagate with ?" names Rust's operator: the sentence is a rule; "what do we
    go with?" stays a question."""
    from dream.detect import directives

    rules = _rules(_session("pi-1", [
        ("user", "parse the header"), ("assistant", "done"),
        ("user", "no expect() in library code, return a typed error or bubble it up with ?"),
        ("assistant", "ok")]))
    assert rules == ["Do not use expect() in library code, return a typed error or bubble it "
                     "up with `?`."], rules
    assert directives.is_question("which crate do we go with?")
    assert _rules(_session("pi-1", [
        ("user", "parse the header"), ("assistant", "done"),
        ("user", "which crate do we go with?"), ("assistant", "nom")])) == []


def test_what_ships_in_the_same_commit_as_what_is_a_rule_and_the_fix_at_hand_is_not():
    """"the regenerated openapi.json goes in the same PR as the route change" says how work
    ships here; "that fix goes in the same commit as the rename" is about the change at hand."""
    assert _rules(_session("codex-1", [
        ("user", "add the /health route"), ("assistant", "done"),
        ("user", "ok. the regenerated openapi.json goes in the same PR as the route change"),
        ("assistant", "ok")])) == [
            "The regenerated openapi.json goes in the same PR as the route change."]
    assert _rules(_session("codex-1", [
        ("user", "add the /health route"), ("assistant", "done"),
        ("user", "that fix goes in the same commit as the rename"), ("assistant", "ok")])) == []


def test_the_code_at_hand_pointed_at_before_a_dash_leaves_the_rule_after_it():
    """"and that Thread.sleep(500) — never sleep in tests, use the fake clock": the pointer at
    the line the agent wrote goes, the rule stays."""
    rules = _rules(_session("claude-1", [
        ("user", "fix the flaky retry test"), ("assistant", "done, added a short wait"),
        ("user", "and that Thread.sleep(500) — never sleep in tests, use the fake clock"),
        ("assistant", "ok")]))
    assert rules == ["Never sleep in tests, use the fake clock."], rules


def test_a_verbless_always_takes_the_name_said_before_it():
    """"dry_run=True! always a dry run" is about the setting named before it; "--frozen!
    always a locked install" about the flag."""
    rules = _rules(_session("pi-1", [
        ("user", "apply the firewall state"), ("assistant", "applied"),
        ("user", "dry_run=True! always a dry run. nothing gets applied for real"),
        ("assistant", "ok")]))
    assert rules and rules[0] == "dry_run=True, always a dry run.", rules


def test_a_prohibition_past_its_reason_takes_the_bare_command_to_run_instead():
    """"never bare cargo test. it skips the doctests. cargo nextest run": the command after
    the reason is what to run instead."""
    rules = _rules(_session("claude-1", [
        ("user", "run the tests"), ("assistant", "running cargo test"),
        ("user", "never bare cargo test. it skips the doctests. cargo nextest run"),
        ("assistant", "ok")]))
    assert rules == ["Never bare cargo test; use cargo nextest run."], rules


def test_a_flag_said_again_for_every_call_is_a_rule():
    """"--namespace billing-dev on every single helm call, I said it last week": the flag
    goes on every call."""
    rules = _rules(_session("claude-1", [
        ("user", "roll the chart"), ("assistant", "running helm upgrade api ./chart"),
        ("user", "--namespace billing-dev on every single helm call, I said it last week"),
        ("assistant", "ok")]))
    assert rules == ["--namespace billing-dev on every single helm call."], rules


def test_a_prohibition_takes_the_other_half_said_as_any_tool_and_its_subcommand():
    """"no bare jest. nx test web -- --watch=false if you need flags": the tool and its
    subcommand are what to run, whatever the tool; "the tests build fine" is a report."""
    from dream.detect.rule_text import rule_text

    said = rule_text("no bare jest.", ["nx test web -- --watch=false if you need flags"])
    assert said == "Do not use bare jest; nx test web -- --watch=false if you need flags.", said
    assert rule_text("no bare jest.", ["tests build fine"]) == "Do not use bare jest."
