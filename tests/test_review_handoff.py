"""dream prepare (learned lines + handoff) and how the next review reads the handoff:
primary input, not proof; fabricated citations drop the proposal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_fixtures.sessions import plant

from dream.app import App

LEARNED = ["Tests need requests installed.", "Use logging, not print.", "make lint before push."]


def _prepared(project_key: str) -> list[dict]:
    app = App.from_env()
    rows = app.db.execute("SELECT * FROM journal WHERE kind='dream.prepared' AND project_key=?"
                          " ORDER BY id", (project_key,)).fetchall()
    return [dict(r) for r in rows]


def _prepare(dream, tmp_path: Path, text: str, learned=LEARNED, ok: bool = True):
    handoff = tmp_path / "handoff.md"
    handoff.write_text(text, encoding="utf-8")
    args = ["prepare", "--handoff", str(handoff), "--json"]
    for line in learned:
        args += ["--learned", line]
    return dream(*args, ok=ok)


@pytest.mark.parametrize("learned, message", [
    (LEARNED[:2], "exactly 3 learned lines, not 2"),
    ([*LEARNED, "a fourth"], "exactly 3 learned lines, not 4"),
    ([LEARNED[0], "x" * 201, LEARNED[2]], "learned line 2 has 201 characters"),
    ([LEARNED[0], "  ", LEARNED[2]], "learned line 2 is empty"),
    # a terminal escape sequence is no text of a learned line (it was recorded as it was)
    ([LEARNED[0], LEARNED[1], "Run\x1b]0;pwned\x07 the tests"],
     "learned line 3 holds a control character, ESC (\\x1b) on line 1"),
])
def test_prepare_refuses_bad_learned_lines(dream, repo, tmp_path, learned, message):
    key = json.loads(dream("init", "--json").output)["project_key"]
    result = _prepare(dream, tmp_path, "## Open work\n- fix the api test\n", learned, ok=False)
    assert result.exit_code == 1 and message in result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert _prepared(key) == []


def test_prepare_refuses_a_handoff_over_the_limit(dream, repo, tmp_path):
    key = json.loads(dream("init", "--json").output)["project_key"]
    result = _prepare(dream, tmp_path, "x" * 12_001, ok=False)
    assert result.exit_code == 1 and "12,001 characters, more than 12,000" in result.output
    assert _prepared(key) == []
    result = _prepare(dream, tmp_path, "## Open work\n- fix it\x1b[8m hidden\x1b[0m\n", ok=False)
    assert result.exit_code == 1 and "the handoff holds a control character, ESC (\\x1b) on " \
        "line 2" in result.output
    assert _prepared(key) == []
    assert _prepare(dream, tmp_path, "x" * 12_000).exit_code == 0   # the limit itself is fine
    learned = [arg for line in LEARNED for arg in ("--learned", line)]
    missing = dream("prepare", "--handoff", str(tmp_path / "nope.md"), *learned, ok=False)
    assert missing.exit_code != 0 and "Traceback" not in missing.output


def test_prepare_replaces_and_the_next_review_reads_it_once(dream, repo, tmp_path):
    key = json.loads(dream("init", "--json").output)["project_key"]
    first = json.loads(_prepare(dream, tmp_path, "## Open work\n- first\n").output)
    second = json.loads(_prepare(dream, tmp_path, "## Open work\n- second\n").output)
    assert second["replaces"] == first["id"] and first["replaces"] is None
    rows = _prepared(key)
    assert [r["id"] for r in rows] == [first["id"], second["id"]]
    assert json.loads(rows[-1]["data"])["learned"] == LEARNED
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["handoff"]["id"] == second["id"]
    again = json.loads(dream("review", "start", "--json").output)
    assert again["run"]["handoff"]["id"] is None
    assert "already read by an earlier review" in again["run"]["handoff"]["missing"]


def test_handoff_corrections_are_checked_against_evidence(dream, repo, tmp_path):
    dream("init")
    paths = plant(tmp_path / "t", str(repo), only=["s1", "clean"])
    dream("collect", *map(str, paths.values()))
    s1 = paths["s1"].stem
    handoff = "\n".join([
        "## Open work", "- make the api tests pass", "",
        "## User corrections",
        f"- don't use print statements for debugging, use the logging module (session:{s1})",
        "- always squash commits before merging",
        "", "## Memory slugs", "- @projects/proj/notes/deploy-steps.md",
        "", "## Next steps", "- install requests",
    ])
    _prepare(dream, tmp_path, handoff)
    review = json.loads(dream("review", "start", "--json").output)
    corr = [p for p in review["proposals"] if p["pass"] == "corrections"]
    # said once in the evidence, named in the handoff: proposed, citing the statement
    assert len(corr) == 1 and f"session:{s1}" in corr[0]["evidence"]
    journal = review["journal"]
    # the unbacked handoff line is named, not proposed
    assert any("squash commits" in m for m in journal["corrections"]["missing"])
    assert journal["corrections"]["handoff_corrections"] == {"confirmed": 1, "unbacked": 1}
    assert any("deploy-steps" in m for m in journal["memory"]["missing"])


def test_a_fabricated_citation_drops_the_proposal(dream, repo, tmp_path):
    dream("init")
    paths = plant(tmp_path / "t", str(repo), only=["s1"])
    dream("collect", *map(str, paths.values()))
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("import logging\nlog = logging.getLogger()\n")
    handoff = ("## User corrections\n- don't use print statements for debugging, use the "
               "logging module (see src/app.py:2 and src/debug_helpers.py:40)\n")
    _prepare(dream, tmp_path, handoff)
    review = json.loads(dream("review", "start", "--json").output)
    assert not [p for p in review["proposals"] if p["pass"] == "corrections"]
    [dropped] = review["journal"]["corrections"]["dropped"]
    assert dropped["reason"] == ("citation does not check out: src/debug_helpers.py:40: "
                                 "file src/debug_helpers.py does not exist")
    assert review["run"]["status"] == "ok"        # nothing left to decide: closed
    # the same handoff citing only lines that exist keeps the proposal
    _prepare(dream, tmp_path, handoff.replace(" and src/debug_helpers.py:40", ""))
    again = json.loads(dream("review", "start", "--all", "--json").output)
    [corr] = [p for p in again["proposals"] if p["pass"] == "corrections"]
    assert "src/app.py:2" in corr["evidence"]
    dream("review", "close")
    _prepare(dream, tmp_path, handoff.replace("src/debug_helpers.py:40", "src/app.py:3"))
    third = json.loads(dream("review", "start", "--all", "--json").output)
    [dropped] = third["journal"]["corrections"]["dropped"]
    assert "src/app.py has 2 lines, not 3" in dropped["reason"]


def test_human_output_of_prepare_start_and_show(dream, repo, tmp_path):
    dream("init")
    paths = plant(tmp_path / "t", str(repo), only=["s1", "s3"])
    dream("collect", *map(str, paths.values()))
    text = "## User corrections\n- always squash commits (src/nowhere.py:1)\n"
    out = dream("prepare", "--handoff", "-", "--learned", "a", "--learned", "b",
                "--learned", "c", input=text).output
    assert out.startswith("prepared handoff #") and f"({len(text)} characters)" in out
    started = dream("review", "start").output
    assert "learned:" in started and started.count("\n  - ") == 3
    assert "[proposed] corrections-" in started and "evidence: session:" in started
    shown = dream("review", "show").output
    assert shown.splitlines()[0] == started.splitlines()[0]
    slug = next(line.split()[1] for line in shown.splitlines() if line.startswith("[proposed]"))
    assert dream("review", "reject", slug).output == f"rejected {slug}\n"
