"""Detector patterns stay linear on hostile input and keep their matches on real text.

User text can hold long runs of spaces or one repeated token (a pasted log, a padded table);
a pattern that backtracks over such a run is quadratic and stalls a run. These tests check
what the patterns find, on realistic lines and on a long hostile one, never how long it took.
"""
from dream.detect import (
    directives,
    failures,
    mailtext,
    noise,
    plan_targets,
    plan_words,
    plans,
    purpose,
    rule_text,
    shell,
)

LONG = 50_000


def test_unsure_finds_the_same_clauses():
    found = [bool(plans._UNSURE.search(s)) for s in [
        "I can't remember if the dentist is on Tuesday or Wednesday",
        "not sure, whether it's the 4th or the 5th",
        "no sé si es el lunes o el martes",
        "ich weiß nicht, ob es Montag oder Dienstag ist",
        "I'm not sure the venue is booked",
        "don't recall whether mum said noon or one",
    ]]
    assert found == [True, True, True, True, False, True]


def test_unsure_on_a_long_run_of_spaces():
    assert plans._UNSURE.search("not sure" + " " * LONG + "x") is None
    assert plans._UNSURE.search("not sure" + " " * LONG + "if") is not None


def test_summary_lines_are_the_same():
    lines = ["npm ERR! code ELIFECYCLE", "  Found 3 errors in 2 files.",
             "Error: error building site: logged 1 error(s)",
             "Command [\"gprbuild\", \"-P\", \"baro.gpr\"] exited with code 4",
             "Tests:  1 failed, 17 passed, 18 total",
             "TypeError: Cannot read properties of undefined (reading 'map')",
             "   at Object.<anonymous> (src/index.ts:4:11)"]
    assert [bool(failures._SUMMARY.match(ln)) for ln in lines] == [
        True, True, True, True, True, False, False]


def test_summary_on_a_long_run_of_spaces():
    assert failures._SUMMARY.match(" " * LONG) is None
    assert failures._SUMMARY.match(" " * LONG + "Found 2 errors") is not None


def test_strong_cause_is_the_same_on_lines_and_blocks():
    lines = ["psycopg.OperationalError: connection refused", "panic: runtime error: index out of range",
             "src/a.ts(3,4): error TS2339: Property 'x' does not exist",
             "ERR_PNPM_OUTDATED_LOCKFILE  Cannot install", "Done in 2.3s", "  ✖ type may not be empty",
             "the build went fine (no ValueError)"]
    assert [bool(failures._STRONG_CAUSE.match(ln)) for ln in lines] == [
        True, True, True, True, False, True, False]
    block = "Compiling...\n  main.go:12:3: undefined: Foo\nexit status 1"
    assert failures._STRONG_CAUSE.search(block) is not None
    assert failures._STRONG_CAUSE.search("Compiling...\nDone in 2.3s") is None


def test_strong_cause_on_a_long_line():
    assert failures._STRONG_CAUSE.search(" " * LONG + "x") is None
    assert failures._STRONG_CAUSE.search("1" * LONG) is None
    assert failures._STRONG_CAUSE.search(" " * LONG + "x\nValueError: bad input") is not None


def test_see_link_is_cut_the_same():
    cut = [failures._SEE_LINK.sub("", s) for s in [
        "npm ERR! peer dep missing, see https://goo.gl/YMrWcn for more information.",
        "Deprecated option (see <https://eslint.org/docs/rules>)",
        "read the docs at https://example.com first",
        "Unknown flag; visit https://x.io/help for help",
    ]]
    assert cut == ["npm ERR! peer dep missing", "Deprecated option",
                   "read the docs at https://example.com first", "Unknown flag"]


def test_see_link_on_a_long_run_of_spaces():
    text = "see https://x.io" + " " * LONG + "y"
    assert failures._SEE_LINK.sub("", text) == text
    assert failures._SEE_LINK.sub("", "boom" + " " * LONG + "see https://x.io") == "boom"


def test_trace_lines_are_the_same():
    lines = ["    at Module._compile (node:internal/modules/cjs/loader:1256:14)",
             '  File "app.py", line 3, in <module>', "  12 | const x = y;", "   ^^^^^",
             "the error: is mine", "Just a sentence."]
    assert [bool(noise.TRACE.match(ln)) for ln in lines] == [True, True, True, True, False, False]


def test_trace_on_a_long_run_of_spaces():
    assert noise.TRACE.match(" \t" * LONG + "x") is None
    assert noise.TRACE.match(" " * LONG + "42 | x") is not None


def test_emoticons_are_cut_the_same():
    cut = [noise._EMOTICON.sub("", s) for s in [
        "see you at 7 :) bring the cake", ":-) thanks", "ok <3", "ratio 3:1 stays", "lol ^^  fine ;)"]]
    assert cut == ["see you at 7  bring the cake", " thanks", "ok ", "ratio 3:1 stays", "lol   fine "]


def test_emoticon_on_a_long_run_of_spaces():
    text = "a" + " \t" * LONG + "b"
    assert noise._EMOTICON.sub("", text) == text
    assert noise._EMOTICON.sub("", "a" + " " * LONG + ":)") == "a "


def test_sql_query_is_cut_the_same():
    cut = [shell._QUERY.sub("", s) for s in [
        "SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select * from users)",
        "Connection refused (SQL: select 1)", "a (b) plain line"]]
    assert cut == ["SQLSTATE[HY000] [2002] Connection refused", "Connection refused", "a (b) plain line"]


def test_sql_query_on_a_long_run_of_spaces():
    text = " \t" * LONG + "x"
    assert shell._QUERY.sub("", text) == text
    assert shell._QUERY.sub("", "boom" + " " * LONG + "(SQL: select 1)") == "boom"


def test_clauses_split_the_same():
    split = [plan_words.CLAUSE_RE.split(s) for s in [
        "Dinner with Sam on Fri. 12 Dec. We booked the place, but it may rain.",
        "Call the plumber tomorrow but not before 9\nthen pay the bill",
        "I moved it to Thursday, and she agreed; fine.", "Sa. 12.12. passt mir"]]
    assert split == [["Dinner with Sam on Fri. 12 Dec.", "We booked the place", "but it may rain."],
                     ["Call the plumber tomorrow", "not before 9", "then pay the bill"],
                     ["I moved it to Thursday", "and she agreed;", "fine."], ["Sa. 12.12. passt mir"]]


def test_clauses_on_a_long_run_of_spaces():
    text = "lunch" + " " * LONG + "x"
    assert plan_words.CLAUSE_RE.split(text) == [text]
    assert plan_words.CLAUSE_RE.split("lunch" + " " * LONG + "but later") == ["lunch", "later"]


def test_contact_sentences_are_cut_the_same():
    cut = [mailtext._CONTACT.sub("", s) for s in [
        "Thanks for the invite. Call me on +49 170 1234567 if anything changes. See you soon!",
        "Please reply to this email by Friday.\nBest, Ana", "The order 1234 shipped."]]
    assert cut == ["Thanks for the invite. See you soon!", "\nBest, Ana", "The order 1234 shipped."]


def test_contact_on_a_long_sentence():
    text = "0" + " 1" * LONG + "x"
    assert mailtext._CONTACT.sub("", text) == text
    assert mailtext._CONTACT.sub("", "a" * LONG + " call 0170 1234 5678.") == ""


def test_command_tail_is_cut_the_same():
    cut = [purpose._TAIL.sub("", s) for s in [
        "pytest -x 2>&1 | tail -20", "make build > /dev/null 2>&1", "cat /dev/null 2>&1",
        "npm test | grep FAIL", "ls -la"]]
    assert cut == ["pytest -x", "make build", "cat /dev/null", "npm test", "ls -la"]


def test_command_tail_on_a_long_command():
    text = "make" + " 2>&1" * (LONG // 5) + " x"
    assert purpose._TAIL.sub("", text) == text
    assert purpose._TAIL.sub("", "make" + " " * LONG + "2>&1") == "make"


def test_rule_marker_finds_the_same_rules():
    found = [bool(rule_text.MARKER.search(s)) for s in [
        "use pnpm, not npm", "prefer ruff over flake8", "not jest but vitest here",
        "use  uv   not pip", "we ship on Fridays", "use pnpm for the workspace",
    ]]
    assert found == [True, True, True, True, False, False]


def test_rule_marker_on_a_long_run_of_spaces():
    assert rule_text.MARKER.search("use pnpm" + " " * LONG + "x") is None
    assert rule_text.MARKER.search("use pnpm" + " " * LONG + "not npm") is not None


def test_a_place_said_with_the_one_it_replaces_is_read_the_same():
    found = [plan_targets._NOT_THIS_PLACE.search(s) for s in [
        "not Lakeside Lodge but The Foundry", "nicht im Adler, sondern in der Krone",
        "pas au Comptoir mais chez Sophie", "not tonight but tomorrow"]]
    assert [(m["old"], m["new"]) if m else None for m in found] == [
        ("Lakeside Lodge", "The Foundry"), ("Adler", "Krone"), ("Comptoir", "Sophie"), None]


def test_a_place_on_a_long_run_of_spaces():
    assert plan_targets._NOT_THIS_PLACE.search("not The Foundry" + " " * LONG + "x") is None
    found = plan_targets._NOT_THIS_PLACE.search("not The Foundry" + " " * LONG + "but Krone")
    assert found and found["new"] == "Krone"


def test_pushback_is_read_the_same():
    found = [bool(directives.PUSHBACK.search(s)) for s in [
        "use pnpm, not npm", "not jest but vitest", "i told you to use make",
        "use pnpm for the install"]]
    assert found == [True, True, True, False]


def test_pushback_on_a_long_run_of_spaces():
    assert directives.PUSHBACK.search("not pnpm" + " " * LONG + "x") is None
    assert directives.PUSHBACK.search("use pnpm" + " " * LONG + "not npm") is not None
