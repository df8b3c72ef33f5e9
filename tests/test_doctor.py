"""dream doctor, and the cheap checks of search and status: corruption is named, with its
fix, never answered with an empty result."""

from __future__ import annotations

import json
import sqlite3

from conftest import git


def checks(dream, ok: bool = True) -> list[dict]:
    result = dream("doctor", "--json", ok=ok)
    return json.loads(result.output)["checks"]


def failing(found: list[dict]) -> list[dict]:
    return [c for c in found if c["status"] == "fail"]


def test_a_healthy_home_is_all_good(dream, repo):
    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    dream("search", "tea")
    found = checks(dream)
    assert not failing(found)
    names = {c["name"] for c in found}
    assert {"config", "integrity", "migrations", "head", "fsck", "index"} <= names
    text = dream("doctor").output
    assert "all good" in text
    # each line names its target once: the config line said 'config.toml' twice
    config_line = next(line for line in text.splitlines() if line.startswith("ok    config"))
    assert config_line.count("config.toml") == 1 and config_line.endswith(": valid")


def test_a_broken_head_is_named_by_search_status_and_doctor(dream, repo, dream_home):
    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    notes = dream_home / "notes"
    (notes / ".git" / "HEAD").write_text("ref: refs/heads/gone\n")
    search = dream("search", "tea", ok=False)
    assert search.exit_code != 0 and "dream doctor" in search.output
    assert "no documents found" not in search.output
    status = dream("status", ok=False)
    assert status.exit_code == 1 and "dream doctor" in status.output
    broken = failing(checks(dream, ok=False))
    head = [c for c in broken if c["name"] == "head"]
    assert head and "refs/heads/gone" in head[0]["message"]
    assert "symbolic-ref HEAD refs/heads/main" in head[0]["fix"]
    git(notes, "symbolic-ref", "HEAD", "refs/heads/main")          # the fix it gave
    assert not failing(checks(dream))


def test_a_stale_index_lock_is_reported_as_what_it_is(dream, repo, dream_home):
    dream("init")
    lock = dream_home / "notes" / ".git" / "index.lock"
    lock.write_text("")
    write = dream("notes", "write", "@user/a", "text", ok=False)
    assert write.exit_code == 1 and "index.lock" in write.output
    assert f'rm "{lock}"' in write.output and "moved" not in write.output
    chat = repo.parent / "chat.jsonl"
    chat.write_text(json.dumps({"text": "I prefer option 3 for the layout.", "id": "r1",
                                "stream": "s", "role": "user",
                                "time": "2026-03-01T10:00:00Z"}) + "\n")
    dream("collect", "--source", "jsonl", str(chat))
    run = dream("run", ok=False)
    assert "index.lock" in run.output and "moved during the run" not in run.output
    found = failing(checks(dream, ok=False))
    assert [c["name"] for c in found] == ["index.lock"] and f'rm "{lock}"' in found[0]["fix"]
    lock.unlink()
    dream("notes", "write", "@user/a", "text")


def test_index_drift_and_orphaned_runs_have_fixes(dream, repo, dream_home):
    dream("init")
    dream("notes", "write", "@user/a", "alpha")
    dream("search", "alpha")
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute("UPDATE documents SET blob='0000' WHERE path='user/a.md'")
    conn.execute("INSERT INTO runs (id, kind, mode, status, started_at, details) VALUES"
                 " ('20261201T000000-dead00', 'dream', 'ondemand', 'running',"
                 " '2026-12-01T00:00:00Z', '{}')")
    conn.commit()
    conn.close()
    found = checks(dream, ok=False)
    index = [c for c in found if c["name"] == "index" and c["status"] == "fail"]
    assert index and index[0]["fix"] == "dream reindex"
    run = [c for c in found if c["name"] == "run"]
    assert run and run[0]["fix"] == "dream run --retry 20261201T000000-dead00"
    dream("reindex")
    assert not [c for c in checks(dream) if c["name"] == "index" and c["status"] != "ok"]


def test_config_type_errors_are_one_true_line(dream, repo, dream_home):
    dream("init")
    config = dream_home / "config.toml"
    for bad, words in (('[run]\nbrief_tokens = "lots"\n', "[run] brief_tokens must be"),
                       ('model = "rules"\n', "'model' must be a table"),
                       ('[[stores]]\nname = "x"\n', "store entry 1 needs a text 'path'")):
        config.write_text(bad)
        result = dream("status", ok=False)
        assert result.exit_code == 1 and words in result.output, result.output
        assert "internal error" not in result.output and result.output.count("\n") == 1
        doctor = failing(checks(dream, ok=False))
        assert doctor[0]["name"] == "config" and words in doctor[0]["message"]


def test_every_finding_comes_with_its_fix(dream, repo, dream_home, tmp_path):
    """Several things broken at once: doctor names each, and each non-ok line says how to
    fix it; status and search point to doctor instead of answering."""
    import socket

    name = json.loads(dream("init", "--json").output)["project_name"]
    dream("notes", "write", "@user/tea", "I drink green tea")
    team = tmp_path / "team"
    dream("stores", "attach", str(team), "--create")
    (team / "a.md").write_text("# A\n")
    git(team, "add", "a.md")
    git(team, "commit", "-qm", "a")
    git(team, "checkout", "-q", "--detach")                        # a detached HEAD
    blob = git(team, "rev-parse", "HEAD:a.md")
    obj = team / ".git" / "objects" / blob[:2] / blob[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"not a zlib stream")                          # a corrupt object
    (dream_home / "notes" / f".dream.lock.{name}").write_text(json.dumps(
        {"pid": 999_999_999, "host": socket.gethostname(), "proc_start": "1",
         "command": "dream run", "owner": "run", "project": name,
         "time": "2026-12-01T00:00:00Z"}))                          # a stale dream lock
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute("INSERT INTO runs (id, kind, mode, status, started_at, details) VALUES"
                 " ('20261201T000000-dead00', 'dream', 'ondemand', 'running',"
                 " '2026-12-01T00:00:00Z', '{}')")                  # a run whose process died
    conn.commit()
    conn.close()
    found = checks(dream, ok=False)
    bad = [c for c in found if c["status"] != "ok"]
    assert {c["name"] for c in bad} >= {"fsck", "branch", "lock", "run"}, bad
    assert all(c["fix"].strip() for c in bad), [c for c in bad if not c["fix"].strip()]
    lock = next(c for c in bad if c["name"] == "lock")
    assert "rm " in lock["fix"] and "stale" in lock["message"]
    # the cheap checks: a store that is no repository any more is named, never empty
    import shutil

    shutil.rmtree(dream_home / "notes" / ".git")
    status = dream("status", ok=False)
    assert status.exit_code == 1 and "dream doctor" in status.output
    search = dream("search", "tea", ok=False)
    assert search.exit_code != 0 and "dream doctor" in search.output
    assert "no documents found" not in search.output

def _forget_last_migration(dream_home) -> str:
    """Delete the record of the newest migration that adds a column, leaving its schema
    change in place: the state a copied or hand-restored database can be in (a migration
    that only updates rows applies again harmlessly)."""
    from dream import db

    name = next(n for n, sql in reversed(db.MIGRATIONS) if "ADD COLUMN" in sql)
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute("DELETE FROM _migrations WHERE name=?", (name,))
    conn.commit()
    conn.close()
    return name


def test_a_migration_that_cannot_apply_is_named_with_its_fix(dream, repo, dream_home):
    dream("init")
    dream("notes", "write", "@user/tea", "I drink green tea")
    name = _forget_last_migration(dream_home)
    search = dream("search", "tea", ok=False)
    assert search.exit_code == 1 and name in search.output and "dream doctor" in search.output
    assert "Traceback" not in search.output and "internal error" not in search.output
    found = checks(dream, ok=False)
    migration = [c for c in found if c["name"] == "migrations"]
    assert migration and migration[0]["status"] == "fail" and name in migration[0]["message"]
    fix = migration[0]["fix"]
    assert "INSERT INTO _migrations" in fix
    # the fix it gives, run as given, makes every command work again
    sql = fix.split('"')[3]
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute(sql)
    conn.commit()
    conn.close()
    assert not failing(checks(dream))
    assert "tea" in dream("search", "tea").output


def test_doctor_reports_pending_migrations_without_applying_them(dream, repo, dream_home):
    from dream import db

    dream("init")
    conn = sqlite3.connect(dream_home / "dream.db")
    tables_before = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    conn.close()
    # an older Dream's database: no migrations recorded, no tables but _migrations
    (dream_home / "dream.db").unlink()
    for suffix in ("-wal", "-shm"):
        (dream_home / f"dream.db{suffix}").unlink(missing_ok=True)
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    conn.commit()
    conn.close()
    found = checks(dream)
    migration = [c for c in found if c["name"] == "migrations"][0]
    assert migration["status"] == "warn" and str(len(db.MIGRATIONS)) in migration["message"]
    assert "dream search" in migration["fix"]
    conn = sqlite3.connect(dream_home / "dream.db")
    assert conn.execute("SELECT count(*) FROM _migrations").fetchone()[0] == 0   # unchanged
    conn.close()
    dream("search", "anything", ok=False)                     # the fix it names
    conn = sqlite3.connect(dream_home / "dream.db")
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == tables_before
    conn.close()
    assert [c for c in checks(dream) if c["name"] == "migrations"][0]["status"] == "ok"


def test_doctor_points_at_settings_dream_never_reads(dream, repo, dream_home):
    dream("init")
    config = dream_home / "config.toml"
    config.write_text(config.read_text().replace("[run]\n", "[run]\nbrief_tokenz = 10\n")
                      + "\n[serch]\nscore_budget = 5\n")
    found = checks(dream)                              # a warning: nothing fails
    settings = [c for c in found if c["name"] == "settings"]
    assert settings and settings[0]["status"] == "warn"
    assert "[run] brief_tokenz" in settings[0]["message"] and "[serch]" in settings[0]["message"]


def test_config_values_are_named_where_they_were_set(dream, repo, dream_home):
    dream("init")
    config = dream_home / "config.toml"
    text = config.read_text()
    config.write_text(text.replace("pack_tokens = 12000", "pack_tokens = -5"))
    result = dream("run", ok=False)
    assert result.exit_code == 1 and f"{config}: [run] pack_tokens must be" in result.output
    assert "DREAM_PACK_TOKENS" not in result.output
    config.write_text(text.replace('apply = "auto"', 'apply = "sometimes"'))
    result = dream("run", ok=False)
    assert result.exit_code == 1 and f"{config}: [run] apply must be" in result.output
    assert "--apply" not in result.output
    config.write_text(text.replace('default = "rules"', 'default = "rules"\ntimeout = "soon"'))
    result = dream("run", ok=False)
    assert result.exit_code == 1 and "timeout must be a number of seconds" in result.output


def test_config_values_dream_cannot_use_are_one_line_before_any_command(dream, repo,
                                                                        dream_home):
    """A value of the right shape but out of bounds, or a list of the wrong entries, was
    taken: brief_tokens = 0 rendered every brief empty ('left out to stay within 0 tokens'),
    a timeout of -1 failed every model call with 'ValueError', and [automations],
    [hooks] and [collect] values of another type were internal errors in 'dream
    automations list' and 'dream collect' and a silent 'hook failed' in every hook."""
    dream("init")
    config = dream_home / "config.toml"
    good = config.read_text()
    for bad, words in (
            ("[run]\nbrief_tokens = 0\n", "[run] brief_tokens must be a number of tokens "
                                          "from 50 to 200000"),
            ('[model]\ndefault = "rules"\ntimeout = -1\n', "[model] timeout must be a number "
                                                           "of seconds above 0"),
            ("[model]\nmax_retries = -3\n", "[model] max_retries must be a whole number of "
                                            "at least 0"),
            ("[model]\nopenai_base_url = 5\n", "[model] openai_base_url must be a URL"),
            ('[automations]\nbefore_compaction = "x"\n', "[automations] before_compaction "
                                                         "must be a fraction"),
            ("[automations]\nbefore_compaction = 70\n", "a fraction from 0 to 1"),
            ("[automations]\ncontext_window = 0\n", "context_window must be a number of "
                                                    "tokens above 0"),
            ('[automations.context_windows]\nacme = "big"\n', "'acme' must be a whole number"),
            ("[hooks]\ncollect_on = 5\n", "[hooks] collect_on must be a list of events"),
            ("[hooks]\ncollect_on = [5]\n", "its entry 5 is a number, not text"),
            ("[collect]\nme = 5\n", "[collect] me must be a list"),
            # a run refused these, and 'dream doctor' said all good
            ("[run]\npack_tokens = -5\n", "[run] pack_tokens must be a number of tokens "
                                          "from 500 to 200000"),
            ('[run]\napply = "sometimes"\n', "[run] apply must be 'auto' or 'review', not "
                                             "'sometimes'"),
            ('[model]\nopenai_max_tokens_param = "max_tokenz"\n',
             "openai_max_tokens_param must be 'max_completion_tokens' or 'max_tokens'"),
            ("[model]\ntemperature = 99\n", "[model] temperature must be a number from 0 "
                                             "to 2"),
            ("[model]\nmax_wait = nan\n", "[model] max_wait must be a number of seconds of "
                                           "at least 0, such as 120, not nan")):
        config.write_text(bad)
        for command in (("status",), ("automations", "list"), ("collect", str(repo))):
            result = dream(*command, ok=False)
            assert result.exit_code == 1 and words in result.output, (bad, result.output)
            assert "internal error" not in result.output
            assert result.output.count("\n") == 1
        assert failing(checks(dream, ok=False))[0]["name"] == "config"
    # the keys docs/models.md documents are read, so doctor calls none of them a typo
    config.write_text(good.replace('default = "rules"', "\n".join((
        'default = "rules"', "temperature = 0.2", "backoff_base = 2.0", "backoff_max = 10",
        "max_wait = 60", 'openai_strict = "auto"', 'openai_model = "gpt-4o-mini"',
        'anthropic_model = "claude-haiku-4-5"', 'openai_max_tokens_param = "max_tokens"')))
        + '\n[collect]\nme = ["ana@example.com"]\n[hooks]\ncollect_on = ["SessionEnd"]\n')
    found = checks(dream)
    assert not [c for c in found if c["status"] != "ok"], found


def test_a_config_saved_with_a_byte_order_mark_is_read(dream, repo, dream_home):
    """Notepad saves UTF-8 with a byte-order mark; every command refused such a config.toml
    as 'not valid TOML (Invalid statement (at line 1, column 1))'."""
    dream("init")
    config = dream_home / "config.toml"
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes().replace(
        b"brief_tokens = 2000", b"brief_tokens = 900"))
    assert dream("status").exit_code == 0
    assert not failing(checks(dream))
    from dream.config import Config

    assert Config.load(config).get("run", "brief_tokens") == 900


def test_a_config_or_store_file_nested_too_deeply_is_named_not_an_internal_error(
        dream, repo, dream_home):
    """'x = [[[[...' 100,000 deep in config.toml or a store's store.toml made every
    command an internal error (RecursionError in the TOML reader); each is named."""
    dream("init")
    deep = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
    config = dream_home / "config.toml"
    good = config.read_text()
    config.write_text(deep)
    result = dream("status", ok=False)
    assert result.exit_code == 1 and result.output.strip() == (
        f"error: {config} is not valid TOML (nested too deeply). fix the file or move it "
        "aside.")
    found = failing(checks(dream, ok=False))
    assert found[0]["name"] == "config" and found[0]["message"] == \
        "is not valid TOML (nested too deeply)"
    config.write_text(good)
    store = dream_home / "notes" / ".dream" / "store.toml"
    store.write_text(store.read_text() + deep)
    broken = dream("search", "tea", ok=False)
    assert broken.exit_code == 1 and "store.toml is not valid TOML (nested too deeply)" \
        in broken.output and "internal error" not in broken.output


def test_the_brief_token_flag_and_setting_take_the_same_bounds():
    """'dream run --brief-tokens' and [run] brief_tokens stated 50 and 200000 each on its
    own; both now read dream.config's BRIEF_LOW and BRIEF_HIGH, so they cannot drift."""
    from dream.cli import cli
    from dream.config import BRIEF_HIGH, BRIEF_LOW, RANGES

    flag = next(p for p in cli.get_command(None, "run").params if p.name == "brief_tokens")
    assert (flag.type.min, flag.type.max) == (BRIEF_LOW, BRIEF_HIGH) == (50, 200_000)
    assert RANGES["run", "brief_tokens"][:2] == (BRIEF_LOW, BRIEF_HIGH)
