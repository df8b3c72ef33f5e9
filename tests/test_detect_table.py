"""One table of sentences, run through the dream run and the review: they never disagree.

Each row is a user statement in a coding session, said right after an assistant turn, and
the finding it is (``correction``, ``directive``, ``preference`` or nothing) with words the
finding's text must keep. The dream run's ``rules`` provider must write exactly that kind of
note; the review, given the same statement in two sessions, must propose it (a correction or
directive through the corrections pass, a preference through the memory pass) or, for a row
that is no finding, propose nothing from it.
"""

from __future__ import annotations

import pytest

from dream.items import Item
from dream.models.base import ModelRequest
from dream.models.rules import RulesProvider
from dream.passes import corrections, memory
from dream.passes.evidence import Evidence

TABLE = [
    # the examples: corrections for the review, and now for the run too
    ("I told you to use pnpm.", "correction", ["pnpm"]),
    ("Stop running the whole suite.", "correction", ["whole suite"]),
    ("Use pnpm, not npm.", "correction", ["pnpm", "npm"]),
    ("Instead, run make test.", "correction", ["make test"]),
    ("No, that's the wrong file. Edit the parser instead.", "correction", ["parser"]),
    # said as asides, limits and reminders; a negation is never dropped
    ("No global ktlint please, use the gradle task so we get the pinned version.", "directive",
     ["don't use global ktlint", "gradle task"]),
    ("Quick reminder: linting is standardrb here, not rubocop.", "correction",
     ["standardrb", "not rubocop"]),
    ("One commit per logical change please, not one giant commit at the end.", "correction",
     ["commit per logical change", "not one giant"]),
    ("Every user-facing change gets an entry in CHANGELOG.md.", "directive", ["CHANGELOG.md"]),
    ("For specs use factories, please no new fixtures.", "directive", ["factories", "no new fixtures"]),
    ("Make it a habit to run `make check` before you commit.", "directive", ["make check"]),
    ("No more console.log in committed code.", "directive", ["do not use console.log in committed"]),
    ("Don't ever push directly to main; open a PR.", "directive",
     ["don't ever push directly to main", "open a PR"]),
    ("Keep the public API backwards compatible; deprecate before removing.", "directive",
     ["backwards compatible"]),
    ("Prefer composition over inheritance in the services layer.", "directive",
     ["composition over inheritance"]),
    ("Please refrain from @Autowired on fields, constructor injection only.", "directive",
     ["refrain from @Autowired"]),
    ("The db reset: migrate:fresh is off limits on the dev box. Rollback + migrate instead.",
     "directive", ["migrate:fresh is off limits", "rollback + migrate instead"]),
    # what not to do to the thing at hand, or another way to do the task at hand: no rule
    ("no, don't inline it, the helper reads fine where it is.", None, []),
    ("or just skip the row, actually skipping is what I want", None, []),
    # a rule that names what to use itself takes no other half from the sentence before it
    ("builds go through ./tools/build.sh (it sets the sysroot), don't call cc by hand.",
     "directive", ["./tools/build.sh", "don't call cc by hand"]),
    ("Nope, we don't use npm here. Always use uv run pytest for tests.", "correction",
     ["uv run pytest"]),
    ("Rather than mocking the database, start the test container.", "correction",
     ["test container"]),
    # standing instructions
    ("Always run the linter before committing.", "directive", ["linter"]),
    ("Never push to main directly.", "directive", ["push", "main"]),
    ("Don't use print for logging, use the logger.", "directive", ["print", "logger"]),
    ("From now on, write the tests with pytest.", "directive", ["pytest"]),
    ("Make sure to update the changelog with every release.", "directive", ["changelog"]),
    ("You have to start the database before the integration tests.", "directive",
     ["database"]),
    ("Please never commit generated files.", "directive", ["generated files"]),
    # preferences
    ("I prefer small commits with clear messages.", "preference", ["small commits"]),
    ("I'd rather keep the config in one file.", "preference", ["config"]),
    # conventions, how-to instructions and rules for every time, in other words
    ("Builds go through `just build`, the Justfile sets the feature flags.", "directive",
     ["just build", "feature flags"]),
    ("Typecheck with `mypy --strict src`, pytest won't catch type errors.", "directive",
     ["mypy --strict src"]),
    ("Remember that the staging database is read-only.", "directive",
     ["staging database", "read-only"]),
    ("Run `cargo fmt --all` before every commit.", "directive", ["cargo fmt --all"]),
    ("poetry run pytest, not plain pytest.", "correction", ["Use poetry run pytest", "not"]),
    ("Don't use yarn in this repo. pnpm install.", "directive",
     ["Use pnpm install", "not yarn"]),
    ("Please only run the tests of the module you touched, the full run takes ages.",
     "directive", ["only run the tests of the module you touched"]),
    ("We use bun here, npm is not installed on the build agents.", "directive", ["bun"]),
    ("you keep forgetting: pnpm, never npm", "correction", ["Use pnpm, never npm"]),
    ("No no no, the frontend lives in web/, not app/.", "correction", ["web/", "not app/"]),
    # a tool said for every time, always before a command, where all of one kind of work goes
    ("good, buildifier every time you touch a BUILD file, CI checks it", "directive",
     ["buildifier every time you touch a BUILD file"]),
    ("and before push always `sbt scalafmtCheckAll`, CI fails on format", "directive",
     ["always `sbt scalafmtCheckAll`"]),
    ("every flutter and dart command goes through fvm in this repo", "directive",
     ["goes through fvm"]),
    ("the build fails every time I run it with the cache on", None, []),
    # what holds for every one of a kind, also after a clause about the thing at hand
    ("but name it test_refund_rounding, every test needs a docstring that says what it pins "
     "down, the one you wrote has none", "directive",
     ["Every test needs a docstring that says what it pins down"]),
    ("every change to a released migration is a NEW migration: `make migration name=...`",
     "directive", ["is a NEW migration", "make migration"]),
    ("each build is slow on this laptop", None, []),
    # "; ..." is code with its middle left out, not the end of a sentence
    ("every migration stays wrapped in BEGIN; ... COMMIT; so a failed one rolls back",
     "directive", ["BEGIN; ... COMMIT"]),
    ("Integration tests need the stack up: `docker compose up -d` first.", "directive",
     ["docker compose up -d"]),
    ("Next time, check the lockfile before bumping anything.", "directive",
     ["Check the lockfile"]),
    ("FYI the seed script must be run after every migration.", "directive", ["seed script"]),
    ("not yarn — pnpm", "correction", ["Use pnpm, not yarn"]),
    ("It's bun here, not node.", "correction", ["Use bun, not node"]),
    ("Don't hit the real payment API in tests; use the sandbox keys.", "directive",
     ["real payment API", "use the sandbox keys"]),
    # what to do instead said after the reason for the prohibition: both halves, one rule
    ("Dont stub the S3 client in tests. The stubs drifted from the real API twice already. "
     "Use the minio container from tests/conftest.py.", "directive",
     ["Dont stub the S3 client in tests; use the minio container"]),
    # what not to do, then what to do said as a rule of its own (past a sentence that only
    # says why), or where the work goes said before it: one rule with both halves
    ("don't hard-code the timeout. limits live in config/limits.toml and reach the client "
     "through Settings.", "directive",
     ["Don't hard-code the timeout; limits live in config/limits.toml"]),
    ("no, don't touch migration 0007. it already ran on prod and its checksum is recorded. "
     "every schema change is a new migration file.", "correction",
     ["Don't touch migration 0007; it already ran on prod"]),
    ("builds go through the wrapper: `./x.py build`. please don't call cargo build by hand, "
     "the feature flags get lost", "directive", ["cargo build by hand", "`./x.py build`"]),
    ("no — we never force-push shared branches, not even for a typo.", "correction",
     ["we never force-push shared branches"]),
    ("The preview deploy goes through Netlify only.", "directive", ["Netlify"]),
    ("Keep migrations under 200 lines please.", "directive", ["under 200 lines"]),
    # nothing: questions, thanks, reports
    ("Can you run the tests?", None, []),
    ("It's fine here, not there.", None, []),
    ("Never mind, I fixed it myself.", None, []),
    ("Don't bother with the changelog, I'll write it.", None, []),
    ("Please don't push yet.", None, []),
    ("Stop, wait.", None, []),
    ("Don't do that.", None, []),
    ("Make sure it works.", None, []),
    ("run make clean at the top and do it in out/ like I said last time", None, []),
    ("You should use a dict here.", None, []),
    ("The tests need more coverage.", None, []),
    ("The export rounds totals down, it should round half up.", None, []),
    ("Add a retry to the webhook client: it should back off exponentially.", None, []),
    ("Intentional, keep it that way.", None, []),
    ("Leave it as is.", None, []),
    ("Let's use the new parser for now.", None, []),
    ("The release notes take forever to write.", None, []),
    ("Why did the build fail?", None, []),
    ("Looks good, thanks.", None, []),
    ("Should we always use pnpm here?", None, []),
    ("The tests pass now on my machine.", None, []),
    # a rule that adds to the sentence before it by pointing back ("too", "both") keeps that
    # sentence when it says what to do, and is no rule when it says nothing of its own
    ("also run the spell checker before you push: `make spelling`. code comments count too, "
     "I want them clean", "directive", ["`make spelling`", "code comments count too"]),
    ("you forgot the changelog entry and the version bump again. every release needs both, "
     "the publish job checks them", None, []),
    # what none of a kind may do, said with "nothing" ("nichts"), and what every one of a kind
    # comes with, also after a clause about the thing at hand or the task
    ("that dump is 2GB, nothing under fixtures/large/ goes into git, the LFS bucket has it",
     "directive", ["Nothing under fixtures/large/ goes into git"]),
    ("Nein, nichts mit sudo pip installieren. Pakete kommen immer über `uv add` rein.",
     "correction", ["nichts mit sudo pip installieren", "`uv add`"]),
    ("fix the rounding and — every change to pricing.py comes with a test in "
     "tests/test_pricing.py", "directive",
     ["Every change to pricing.py comes with a test in tests/test_pricing.py"]),
    # said of today: this once, whatever marker it holds ("from today on" is for every time)
    ("ok. the changelog says we ship 4.2 today.", None, []),
    ("From today on, always run `make lint` before pushing.", "directive", ["make lint"]),
    # a sentence that hands over a credential is said for that once: no line carries it
    ("for the staging dashboard the api key is STAGING_API_KEY=9d2e77c1-4b0a-4c1f-8e2d-55aa01b3"
     " but never call it from CI", None, []),
    ("Falls du es brauchst, der Token fürs Registry ist glpat-4Fh8Kq2LmZx9Rt7Vb3Nw, aber bitte "
     "nie committen.", None, []),
    # ... and so does one whose value the secrets filter replaced
    ("oh, and the deploy key is DEPLOY_KEY=[REDACTED:token-assignment:1a2b3c4d], it only lives "
     "in the CI vault, never use it locally.", None, []),
    # "no X" refusing a call, or said where it is refused, past a lead-in ("again,", "no —")
    ("again, no raw SQL inside the views.", "directive", ["raw SQL inside the views"]),
    ("no — no .to_pandas() on whole tables in job code, ever.", "correction",
     [".to_pandas() on whole tables in job code, ever"]),
    ("no storybook publishes from local, CI does that on merge.", "directive",
     ["storybook publishes from local"]),
    # an abbreviation inside a sentence does not end it
    ("Always go through the wrapper, e.g. ./run.sh test, never call pytest directly.",
     "directive", ["wrapper, e.g. ./run.sh test"]),
    # a thought, a doubt or a question said to be only that: no instruction
    ("I keep thinking we should move the jobs to a queue one day.", None, []),
    ("Not sure if the cache should live in redis, I'll ask Sam.", None, []),
    ("just wondering, not a task", None, []),
    ("Just asking, don't do anything.", None, []),
    # a rule said again by naming it and how often: the name is the rule
    ("ok, `make check`. always.", "directive", ["`make check` every time"]),
    ("tox?? I said every time.", "directive", ["Tox every time"]),
    ("mvn again?? ./mvnw. the wrapper. every single time.", "directive", ["./mvnw every time"]),
    ("Thanks. Every time I run it, it breaks.", None, []),
    # what the user says of themselves beside a rule is not part of it; a sentence that
    # only points back at the rule said before it is none
    ("Dont upload anything to the board, I flash it myself (it's on my desk!!).", "directive",
     ["upload anything to the board"]),
    ("That's how tests run here, always.", None, []),
    # how the user's own things are is no instruction; "actually," is a lead-in like "no,"
    ("My laptop is ALWAYS on battery when we pair.", None, []),
    ("no actually, dont call print() in there, we log through structlog.", "directive",
     ["Dont call print() in there, we log through structlog"]),
    # "I said X" says the rule again: X is kept; "I said that last week" alone adds nothing
    ("NO full rebuilds, I said one package at a time.", "correction",
     ["full rebuilds", "one package at a time"]),
    ("it hangs on the login prompt, I said that last week.", None, []),
    # a feeling about how something is, and a remark on the code being changed, are no rules
    ("I hate how fortran does strings lol, glad this one has none", None, []),
    ("If cardCount is only used in Board, don't expose it from Column.", None, []),
    ("If CI is red, never merge.", "correction", ["never merge"]),
    # code in backticks is one piece, whatever punctuation it holds
    ("Run `tox -e py312; tox -e lint` before every push.", "directive",
     ["`tox -e py312; tox -e lint` before every push"]),
    # German, French and Spanish: the same kinds of rule, kept in their words
    ("Bitte nie `npm install` im Root ausführen.", "directive", ["nie `npm install`"]),
    ("Nein, kein `sudo`. Pakete nur über `brew` installieren.", "correction",
     ["kein `sudo`", "nur über `brew`"]),
    ("Ici on utilise `poetry`, pas pip.", "correction", ["on utilise `poetry`, pas pip"]),
    ("Utilise `ruff` au lieu de `flake8`.", "correction", ["`ruff` au lieu de `flake8`"]),
    ("Nunca hagas `git push --force` a main.", "directive", ["nunca", "git push --force"]),
    ("Siempre corre `npm run lint` antes de cada commit.", "directive", ["`npm run lint`"]),
    # what not to do, then what there is to do it with: one rule with both halves
    ("Nein, kein rm -rf build/ von Hand. Es gibt ein Target dafür: `make distclean`.",
     "correction", ["kein rm -rf build/ von Hand; es gibt ein Target dafür: `make distclean`"]),
    ("No, nada de print() para depurar. Hay un logger en utils/log.py que ya lo formatea.",
     "correction", ["nada de print() para depurar; hay un logger en utils/log.py"]),
    ("Für heute reicht `make quick`, nie mehr.", None, []),
    ("Pour l'instant, pas de tests sur `api/`.", None, []),
    ("¿Podemos usar siempre `vite`?", None, []),
    ("Ya veremos si usamos `bun` siempre.", None, []),
    # a new thing asked for, then what it does after a colon: the thing to build, no rule
    ("The invoice form needs a `discount` field: percent only, and it must not go below zero.",
     None, []),
    ("ajoute un index : on ne doit jamais avoir deux billets avec le même code.", None, []),
    ("Each PR needs a changelog line: no exceptions, never skip it.", "directive",
     ["changelog line"]),
    ("Add a rule: never push to main.", "directive", ["never push to main"]),
    # a reason that states how the project works stays with its rule
    ("Never regenerate the fixtures by hand — CI regenerates them on every merge.",
     "directive", ["by hand — CI regenerates them on every merge"]),
    ("Always keep attachments small in the seed data — the upload limit is 10MB.",
     "directive", ["the upload limit is 10MB"]),
    # "no X" refusing a tag, a decorator or a version range, or refusing it unless something
    # comes with it; what to pin instead is the other half
    ("no :edge tags in deploy/ please, ever. pin it to the release digest.", "correction",
     [":edge tags in deploy/", "pin it to the release digest"]),
    ("no @Suppress without a comment that says which warning and why.", "directive",
     ["@Suppress without a comment"]),
    ("Could you check the log? no output without --verbose here.", None, []),
    # "no X." naming only a file or a tag, then what to do: one rule with both halves
    ("NO setup.py. pyproject.toml only, the build backend reads nothing else.", "directive",
     ["setup.py", "pyproject.toml only"]),
    ("no :edge. pin the base image by digest, in every Dockerfile.", "correction",
     [":edge", "pin the base image by digest"]),
    ("no idea. maybe the cache?", None, []),
    # what to run before saying the work is finished is a rule for every piece of work
    ("and run `mix credo --strict` before you tell me it's done, CI runs it too.", "directive",
     ["`mix credo --strict` before you tell me it's done"]),
    ("btw run the i18n check before you call something done, the release build fails on it.",
     "directive", ["i18n check before you call something done"]),
    ("The tests are done now, run them before you push.", None, []),
    # "leave X alone" naming a file or folder: don't touch it (not "leave it alone", nor "for
    # now")
    ("no, leave migrations/legacy_0001.sql alone — the DBA team owns that one.", "correction",
     ["leave migrations/legacy_0001.sql alone"]),
    ("leave vendor/ alone, make vendor regenerates it from the lockfile.", "directive",
     ["leave vendor/ alone"]),
    ("leave the docs/old.md alone for now, we drop it next sprint.", None, []),
    # two jobs done one way: "build + test with X"
    ("build + test with bazelisk only, plain bazel picks the wrong version.", "directive",
     ["build + test with bazelisk only"]),
]
NOTE_KINDS = {"correction", "directive", "preference"}


def _run_notes(text: str) -> list[dict[str, str]]:
    """The notes the dream run's rules provider writes for the statement."""
    items = [
        {"handle": "E1", "role": "assistant", "kind": "assistant", "evidence": False,
         "text": "I'll take care of it.", "stream": "claude-s1", "source": "claude_code",
         "said_at": "2026-04-06T10:00:00Z"},
        {"handle": "E2", "role": "user", "kind": "statement", "evidence": True, "text": text,
         "stream": "claude-s1", "source": "claude_code", "said_at": "2026-04-06T10:00:05Z"},
    ]
    request = ModelRequest("propose", "", "", {}, payload={
        "rows": [], "bundles": [{"id": "B1", "entities": [], "items": items}]})
    ops = RulesProvider().complete(request).data["ops"]
    notes = []
    for op in ops:
        fields = {f["name"]: f["value"] for f in op["fields"]}
        if op["op"] == "note.add" and fields.get("type") in NOTE_KINDS:
            notes.append(fields)
    return notes


def _review(text: str) -> tuple[list, list]:
    """Candidates of the corrections and memory passes over two sessions that each answer
    an assistant turn with the statement."""
    items, seq = [], 0
    for session in ("s1", "s2"):
        for role, kind, evidence, said in (("assistant", "assistant", False, "I'll do that."),
                                           ("user", "statement", True, text),
                                           ("assistant", "assistant", False, "Understood.")):
            seq += 1
            items.append(Item(seq=seq, id=f"i{seq}", ref=f"{session}.jsonl:{seq}",
                              stream=session, role=role, kind=kind, evidence=evidence,
                              said_at=f"2026-04-0{seq}T10:00:00Z", text=said, tool_name=None,
                              is_error=None, source="claude_code"))
    ev = Evidence("key", "proj", items, 0, seq, run_id="table")
    return corrections.run(ev).candidates, memory.run(ev).candidates


def _has(text: str, words: list[str]) -> bool:
    return all(w.lower() in text.lower() for w in words)


def test_a_complaint_said_with_the_rule_stays_out_of_it():
    [note] = _run_notes("Please only run the tests of the module you touched, the full run "
                        "takes ages.")
    assert "ages" not in note["text"] and "module you touched" in note["text"]


@pytest.mark.parametrize("text, kind, words", TABLE, ids=[row[0][:40] for row in TABLE])
def test_run_and_review_agree(text, kind, words):
    notes = _run_notes(text)
    fixes, remembered = _review(text)
    if kind is None:
        assert notes == [], f"the run wrote {notes}"
        assert fixes == [] and remembered == [], "the review proposed something"
        return
    assert kind in {n["type"] for n in notes}, f"the run found {notes}"
    assert any(_has(n["text"], words) for n in notes if n["type"] == kind)
    proposed = fixes if kind in ("correction", "directive") else remembered
    titles = [c.title for c in proposed]
    assert any(_has(c.title + " " + c.change.get("content", ""), words) for c in proposed), \
        f"the review proposed {titles}"


def test_a_reason_true_only_of_this_once_stays_out_of_the_rule():
    """A reason that only reports an amount of data, a time of day or a day gone by is no
    part of the standing rule, in the run or in the review; the rule itself stays."""
    for text, rule, detail in (
            ("Never wipe the docker volumes without asking me — the pg volume holds about "
             "60GB of replayed events.", "Never wipe the docker volumes without asking", "60GB"),
            ("Always run the down migration too before you push. Down migrations nobody "
             "tried are the ones that fail at 3am.", "Always run the down migration too", "3am"),
            ("Dont restart the queue workers yourself because they crashed last week.",
             "Dont restart the queue workers yourself", "last week")):
        notes = _run_notes(text)
        assert any(rule in n["text"] for n in notes), notes
        assert not any(detail in n["text"] for n in notes), notes
        fixes, _ = _review(text)
        assert any(rule in c.title for c in fixes), [c.title for c in fixes]
        assert not any(detail in c.title + c.change.get("content", "") for c in fixes)


def test_what_the_user_says_of_themselves_stays_out_of_the_rule():
    for text in ("Dont upload anything to the board, I flash it myself (it's on my desk!!).",
                 "Dont use bower or pulp, that's the old setup, I'll fix the README myself.",
                 "haxelib install is never ok in this repo, I told you last time."):
        [note] = _run_notes(text)
        assert not any(w in note["text"] for w in ("desk", "myself", "told")), note["text"]
    [note] = _run_notes("no no, dont call nim c on the test files.")
    assert note["text"].startswith("Dont call nim c"), note["text"]


def test_a_rule_for_this_repository_is_a_rule():
    [note] = _run_notes("Always use pnpm, never npm, in this repository.")
    assert note["text"] == "Always use pnpm, never npm, in this repository."


def test_a_prohibition_keeps_its_reason_and_the_rule_after_it_stays_its_own_line():
    notes = _run_notes("no, don't touch migration 0007. it already ran on prod and its checksum "
                       "is recorded. every schema change is a new migration file.")
    texts = [n["text"] for n in notes]
    assert any("migration 0007" in t and "already ran on prod" in t for t in texts)
    assert any(t.lower().startswith("every schema change is a new migration file") for t in texts)
