"""Mistakes a newcomer makes get one line that says how to fix them (found by trying Dream
as a new user would)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT


def run_cli(*args: str, cwd, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dream", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), **env})


def test_a_home_that_is_a_file_is_named_not_crashed_on(repo, tmp_path):
    home = tmp_path / "homefile"
    home.write_text("not a folder")
    for args in (("init",), ("status",), ("search", "x")):
        proc = run_cli(*args, cwd=repo, DREAM_HOME=str(home))
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "is a file" in proc.stderr
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert home.read_text() == "not a folder"


def test_a_relative_home_is_refused_before_it_makes_a_home_per_folder(repo):
    """DREAM_HOME=.dream (an env file, a shell profile) was taken relative to the folder
    each command ran in: 'dream init' made a home inside the repository, and the hooks and
    the MCP server, started elsewhere, each used another one."""
    for args in (("init",), ("status",), ("notes", "list"), ("doctor",)):
        proc = run_cli(*args, cwd=repo, DREAM_HOME=".dream")
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        said = proc.stderr + proc.stdout
        assert "DREAM_HOME is a relative path ('.dream')" in said and "absolute path" in said
        assert "internal error" not in said and "Traceback" not in said
    assert not (repo / ".dream").exists()
    home = repo.parent / "abs-home"
    assert run_cli("init", cwd=repo, DREAM_HOME=str(home)).returncode == 0


def test_a_dry_run_names_an_unknown_model(dream, repo):
    dream("init")
    result = dream("run", "--model", "foo:bar", "--dry-run", ok=False)
    assert result.exit_code == 1 and "unknown model provider 'foo'" in result.output
    assert "Nothing was called" in dream("run", "--dry-run").output
    # a hosted provider with no model named: the run refused it, the dry run priced it
    for spec in ("openai:", "anthropic:"):
        for args in (("run", "--model", spec, "--dry-run"), ("run", "--model", spec)):
            result = dream(*args, ok=False)
            assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
            assert f"no model named for the {spec[:-1]} provider" in result.output


def test_a_model_config_toml_names_is_said_as_config_tomls(dream, repo, dream_home):
    """A provider no one runs in [model] default: the error names config.toml and what to
    write there, not only --model, which the user did not pass; --model still overrides."""
    dream("init")
    config = dream_home / "config.toml"
    config.write_text(config.read_text().replace('default = "rules"', 'default = "olama:llama3"'))
    assert "olama" in config.read_text()
    for args in (("run",), ("run", "--dry-run"), ("review", "start")):
        out = dream(*args, ok=False).output
        assert f"model.default in {config} = 'olama:llama3'" in out, out
        assert "unknown model provider 'olama'" in out and 'default = "rules"' in out
    assert "Nothing was called" in dream("run", "--model", "rules", "--dry-run").output


def test_a_home_whose_config_was_moved_aside_says_so(dream, repo, dream_home):
    """'fix the file or move it aside' (a broken config.toml) then 'no Dream home' beside
    the notes and the database was a contradiction: the home is named as missing only its
    config, and 'dream init' writes a new one."""
    dream("init")
    (dream_home / "config.toml").rename(dream_home / "config.toml.bak")
    out = dream("status", ok=False).output
    assert f"the Dream home {dream_home} has no config.toml" in out and "dream init" in out
    dream("init")
    assert "proj" in dream("status").output


def test_uninstall_help_says_what_it_does(dream):
    text = dream("uninstall", "--help").output
    assert "Take Dream out for the current repository" in text and "Wire Dream in" not in text


def test_a_folder_never_initialised_gets_no_dream_and_no_review(dream, repo, dream_home,
                                                                 tmp_path):
    dream("init")
    plain = tmp_path / "plain-folder"
    plain.mkdir()
    env = {"DREAM_HOME": str(dream_home)}
    head_before = subprocess.run(["git", "rev-parse", "HEAD"], cwd=dream_home / "notes",
                                 capture_output=True, text=True).stdout
    for args in (("begin",), ("review", "start")):
        proc = run_cli(*args, cwd=plain, **env)
        assert proc.returncode == 1 and "dream init" in proc.stderr, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1
    assert not list((dream_home / "notes").glob(".dream.lock.*"))       # no lock taken
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=dream_home / "notes",
                          capture_output=True, text=True).stdout == head_before


def test_an_empty_search_is_a_mistake_in_both_searches(dream, repo):
    dream("init")
    for args in (("search", ""), ("search", "  "), ("history", "search", "")):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "no words" in result.output, args


def test_a_rule_keeps_no_lead_in_about_time():
    """'From now on, keep commits small' is kept as 'Keep commits small': the lead-in says
    when the rule started, which a brief read in a later session does not need."""
    from dream.detect.wording import plain_rule

    assert plain_rule("From now on, keep commits small.") == "Keep commits small."
    assert plain_rule("Going forward use pnpm here.") == "Use pnpm here."
    assert plain_rule("In future, run make check first.") == "Run make check first."
    assert plain_rule("Future releases ship on Fridays.") == "Future releases ship on Fridays."


def test_a_note_for_a_project_no_store_knows_is_refused_and_makes_no_folder(
        repo, dream_home):
    assert run_cli("init", cwd=repo).returncode == 0
    notes = dream_home / "notes"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=notes, capture_output=True,
                          text=True).stdout
    for name, says in (("nosuch", f"no project is named 'nosuch' (known projects: "
                                  f"{repo.name}). write to one of them, or make the project "
                                  f"known with 'dream init'"),
                       (repo.name.upper(), f"write to @projects/{repo.name}/deploy"),
                       (None, f"write to @projects/{repo.name}/deploy")):
        if name is None:    # its key: the folder must be its name
            import json
            name = json.loads(run_cli("status", "--json", cwd=repo).stdout)["project_key"]
        proc = run_cli("notes", "write", f"@projects/{name}/deploy", "use make release",
                       cwd=repo)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
        assert says in proc.stderr and "Traceback" not in proc.stderr
        assert not (notes / "projects" / name).exists()
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=notes, capture_output=True,
                          text=True).stdout == head
    assert run_cli("notes", "write", f"@projects/{repo.name}/deploy", "use make release",
                   cwd=repo).returncode == 0


def test_every_search_refuses_a_query_without_words_with_one_shared_line(repo, dream_home):
    """'dream search', 'dream history search' and the API share one check: the same line,
    exit 1, whatever the query's punctuation."""
    assert run_cli("init", cwd=repo).returncode == 0
    said = set()
    for args in (("search", "--", "?!"), ("search", "--", "  "), ("history", "search", "..."),
                 ("history", "search", "--", "-- *")):
        proc = run_cli(*args, cwd=repo)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, (args, proc.stderr)
        said.add(proc.stderr)
    assert said == {"error: the search query has no words. give at least one word to "
                    "search for.\n"}
    from dream import api
    from dream.errors import BadInput

    try:
        api.search("***", path=repo, home=dream_home)
    except BadInput as exc:
        assert exc.one_line() == said.pop().removeprefix("error: ").strip()
    else:
        raise AssertionError("the API searched for no words")
    # a word anywhere is enough, and 'OR' alone is a word to search for
    assert run_cli("history", "search", "OR", cwd=repo).returncode == 0
    assert run_cli("search", "deploy?", cwd=repo).returncode == 0


def test_brief_in_a_folder_dream_does_not_know_says_so_rather_than_wait_for_a_dream(
        dream, repo, make_repo, tmp_path, monkeypatch):
    dream("init")
    assert dream("brief").output.strip().endswith("is written by the next 'dream run')")
    plain = make_repo("elsewhere")
    monkeypatch.chdir(plain)
    out = dream("brief").output                           # exit 0: agents call it
    assert out.strip() == (f"no brief: {plain} is not a project Dream knows yet ('dream init'"
                           " there makes it one; 'dream run' then writes its brief)")
    # a coding project's run writes no personal brief: say what does, not "the next run"
    user = dream("brief", "--user").output
    assert "no brief yet" in user and "first 'dream run' over personal messages" in user
    assert "'dream collect PATH'" in user
    # a run over messages that found nothing of the user's wrote none either: the line
    # still holds, and names what tells the user's own messages apart
    assert "finds a plan, to-do or fact of yours" in user and "[collect] me" in user


def test_user_and_project_together_are_refused_not_the_last_one_taken(repo, tmp_path):
    """'dream install codex --project --user' wrote the home config: both flags set one
    value and the last won. Both at once is now a usage error that writes nothing."""
    home = tmp_path / "user-home"
    home.mkdir()
    assert run_cli("init", cwd=repo, HOME=str(home)).returncode == 0
    for args in (("install", "codex", "--project", "--user"),
                 ("install", "claude-code", "--user", "--project", "--dry-run"),
                 ("uninstall", "pi", "--project", "--user"),
                 ("brief", "--user", "--project")):
        proc = run_cli(*args, cwd=repo, HOME=str(home))
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, (args, proc.stderr)
        assert "--user and --project cannot be used together" in proc.stderr
        assert f"Try 'dream {args[0]} --help'" in proc.stderr
    assert not (home / ".codex").exists() and not (repo / ".codex").exists()
    assert not (repo / ".pi").exists() and not (home / ".claude.json").exists()
    # each alone still works, and --project is the default
    proc = run_cli("install", "codex", "--user", "--dry-run", cwd=repo, HOME=str(home))
    assert proc.returncode == 0 and str(home / ".codex" / "config.toml") in proc.stdout
    proc = run_cli("install", "codex", "--dry-run", cwd=repo, HOME=str(home))
    assert proc.returncode == 0 and str(repo / ".codex" / "config.toml") in proc.stdout


def test_search_in_a_plain_folder_calls_it_a_folder_not_a_repository(dream, repo, tmp_path,
                                                                     monkeypatch):
    dream("init")
    plain = tmp_path / "notes-folder"
    plain.mkdir()
    monkeypatch.chdir(plain)
    out = dream("search", "tests", ok=False).output
    assert f"folder {plain} is not initialised; run 'dream init' in it" in out
    monkeypatch.chdir(repo)
    assert "is not initialised" not in dream("search", "tests").output


def test_an_unknown_agent_is_named_as_the_agent_argument(dream):
    """The agent argument was shown as '{claude-code|pi|codex|claude_code}' in the usage
    line and in the error about an unknown agent; it is AGENT, the choices said once."""
    for command in ("install", "uninstall"):
        out = dream(command, "cursor", ok=False).output
        assert "Invalid value for 'AGENT': 'cursor' is not one of 'claude-code'" in out, out
        assert f"{command} [OPTIONS] AGENT\n" in dream(command, "--help").output
