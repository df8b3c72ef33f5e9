"""Pitfalls and commands of coding sessions: how a failure's fix and cause are read from
the shape of the session (what ran after it, what the user said, what the output says)."""

from __future__ import annotations

from test_detect_coding import _evidence, _pitfalls, _run, _session


def _commands(*sessions: list[dict]) -> list[str]:
    return [n["text"] for n in _run(*sessions) if n["type"] == "command"]


def test_the_projects_wrapper_of_a_missing_tool_is_the_fix_and_a_way_to_work():
    """`liquibase: command not found`, the user says there is no liquibase on the machine,
    the repo's `./liquibase` (a container wrapper) works: the "no liquibase" is about the
    bare tool, not the wrapper, which is the fix of every failing command and how to work."""
    missing = "/bin/bash: line 1: liquibase: command not found"
    sessions = [
        _session("pi-1", [("call", "liquibase status"), ("fail", missing),
                          ("user", "./liquibase, it runs the container. there's no liquibase on this box"),
                          ("call", "./liquibase status"), ("ok", "1 changeset has not been applied"),
                          ("call", "./liquibase update && ./liquibase validate"),
                          ("ok", "Liquibase command 'validate' was executed successfully.")]),
        _session("claude-2", [("call", "liquibase update"), ("fail", "Exit code 127\n" + missing),
                              ("call", "./liquibase update"), ("ok", "Update has been successful.")],
                 10),
        _session("codex-3", [("call", "liquibase rollback-count 1"), ("fail", missing),
                             ("call", "./liquibase rollback-count 1"),
                             ("ok", "Rollback has been successful.")], 20)]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.startswith("Different `liquibase` commands fail with: liquibase: command "
                              "not found.")
    assert pitfall.endswith("Fix: run `./liquibase`.")
    assert any("./liquibase validate" in c for c in _commands(*sessions))


def test_the_step_the_failure_names_is_the_fix_not_a_check_chained_before_the_retry():
    plugins = ("Error: Missing plugins\n\nThe following plugins are required, but not "
               "installed:\n\ngithub.com/hashicorp/docker ~> 1\n\nDid you run packer init "
               "for this project ?")
    sessions = [_session(f"codex-{n}", [
        ("call", "packer validate ."), ("fail", "Exit code: 1\nOutput:\n" + plugins),
        ("call", "packer init ."), ("ok", "Installed plugin github.com/hashicorp/docker v1.0.10"),
        ("call", "packer fmt -check . && packer validate ."),
        ("ok", "The configuration is valid.")], 10 * n) for n in (1, 2)]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.endswith("Fix: run `packer init .`.")


def test_a_run_the_user_aborted_in_pi_is_no_failure():
    """Pi ends the output of a command the user stopped with "Command aborted": what it
    printed so far (build progress) names no cause."""
    aborted = ("Starting >>> core_msgs\nStarting >>> vendor_lib\nFinished <<< core_msgs [2.1s]"
               "\n[Processing: vendor_lib]\n\nCommand aborted")
    assert _pitfalls(_session("pi-1", [
        ("call", "colcon build"), ("fail", aborted),
        ("user", "stop, not the whole workspace, --packages-select drive_ctl"),
        ("call", "colcon build --packages-select drive_ctl"),
        ("ok", "Summary: 1 package finished")])) == []


def test_a_general_cause_takes_the_problem_listed_under_it_or_the_line_it_hands_over_to():
    """A checker's general verdict takes the first problem of the list under it; a line that
    ends "due to failure:" takes the line after it; a list of names is no problem."""
    from dream.detect import failures

    sanity = ("WARNING: Host distribution \"fedora-41\" has not been validated.\n"
              "ERROR: The build host's sanity checker found a problem.\n"
              "    Fix the cause or disable the checker (see sanity.conf).\n"
              "    Following is the list of potential problems / advisories:\n\n"
              "    Please install the chrpath utility to build on this host.\n\n"
              "Summary: There was 1 ERROR message, returned a non-zero exit code.")
    assert failures.cause_line(sanity) == ("ERROR: The build host's sanity checker found a "
                                           "problem: Please install the chrpath utility to "
                                           "build on this host.")
    locked = ("Opening project /srv/game\nAborting import due to failure:\n"
              "Fatal Error! The project is locked by another editor process.\n"
              "Exiting with code 1")
    assert failures.cause_line(locked) == ("Aborting import due to failure: Fatal Error! The "
                                           "project is locked by another editor process.")
    plugins = ("Error: Missing plugins\n\nThe following plugins are required, but not "
               "installed:\n\ngithub.com/hashicorp/docker ~> 1")
    assert failures.cause_line(plugins) == "Error: Missing plugins"


def test_the_failing_command_handed_to_another_program_as_a_quoted_command_is_the_fix():
    """``bitbake`` fails on the host; the same bitbake call handed quoted to the build
    container works: the container is the fix, for every cause the host failed with."""
    locale = ("ERROR: OE-core's config sanity checker detected a potential misconfiguration.\n"
              "    Following is the list of potential problems / advisories:\n\n"
              "    Please use a locale setting which supports UTF-8 (such as "
              "LANG=en_US.UTF-8).\n\nSummary: There was 1 ERROR message.")
    sessions = [_session(f"claude-{n}", [
        ("call", "source poky/oe-init-build-env build && bitbake -c compile fw-app"),
        ("fail", "Exit code 1\n" + locale),
        ("call", "kas-container shell kas/board.yml -c 'bitbake -c compile fw-app'"),
        ("ok", "NOTE: Tasks Summary: Attempted 612 tasks of which 598 didn't need to be rerun "
               "and all succeeded.")], 10 * n) for n in (1, 2)]
    [pitfall] = _pitfalls(*sessions)
    assert "locale setting which supports UTF-8" in pitfall
    assert pitfall.endswith("Fix: run `kas-container shell kas/board.yml -c 'bitbake -c "
                            "compile fw-app'`.")


def test_a_test_script_and_a_run_tests_flag_are_tests_and_an_install_path_is_cut():
    """``scripts/run_tests.sh`` is named after its job, ``-runTests`` tells the program to
    run its tests, "41 passed, 0 failed" is a clean run; the editor called by the whole path
    of its install is shown by its name."""
    from dream.detect import howto, purpose, shell

    assert howto.purposes("scripts/run_tests.sh PlayMode") == [
        ("test", "scripts/run_tests.sh PlayMode")]
    assert howto.purposes("/opt/Editor/Unity -batchmode -runTests")[0][0] == "test"
    assert howto.purposes("./autogen.sh")[0][0] == "configure"
    assert purpose.by_output("ci/check.sh", "Run finished: 41 passed, 0 failed, 2 skipped") == \
        [("test", "ci/check.sh")]
    assert shell.shown_command("/home/kim/Unity/Hub/Editor/2022.3.41f1/Editor/Unity -batchmode "
                               "-runTests -testPlatform EditMode") == \
        "…/Unity -batchmode -runTests -testPlatform EditMode"
    busy = ("It looks like another Unity instance is running with this project open.\n"
            "Aborting batchmode due to failure:\nFatal Error! It looks like another Unity "
            "instance is running with this project open.\nExit code 1")
    unity = "/home/kim/Unity/Hub/Editor/2022.3.41f1/Editor/Unity -batchmode -runTests"
    [pitfall] = _pitfalls(*[_session(f"claude-{n}", [
        ("call", unity), ("fail", busy), ("user", "editor's open. use the script"),
        ("call", "scripts/run_tests.sh EditMode"),
        ("ok", "Test run finished: 12 passed, 0 failed, 0 skipped")], 10 * n) for n in (1, 2)])
    assert pitfall.startswith("`…/Unity -batchmode -runTests` fails with: ")
    assert "another Unity instance is running" in pitfall
    assert pitfall.endswith("Fix: run `scripts/run_tests.sh EditMode`.")


def test_a_chain_of_one_programs_subcommands_is_shown_whole_when_one_step_says_its_job():
    """``./tern migrate && ./tern status`` is one procedure (apply, then look at what
    applied): shown whole under the job of its one known step; a chain whose steps have
    jobs of their own (``cargo fmt && cargo test``) stays one line per job."""
    sessions = [_session(f"codex-{n}", [
        ("call", "./tern migrate && ./tern status"), ("ok", "Migrated 1 migration\nstatus: ok"),
        ("call", "cargo fmt && cargo test"), ("ok", "test result: ok. 9 passed; 0 failed")],
        10 * n) for n in (1, 2)]
    found = _commands(*sessions)
    assert "Migrate the database: `./tern migrate && ./tern status`" in found
    assert "Format: `cargo fmt`" in found and "Test: `cargo test`" in found


def test_a_bare_error_label_takes_its_message_and_a_clean_step_that_alone_fixed_it_is_kept():
    """OCaml and Coq write "Error:" and the message on the lines under it: that message is
    the cause, not make's summary below. ``dune build`` failed on stale build products and
    worked at once with ``dune clean`` chained before it, no edit between: the clean is what
    the checkout needed, a pitfall the first time."""
    from dream.detect import failures

    stale = ('File "lib/parse.ml", line 1, characters 0-12:\nError:\nThe files lib/ast.cmi '
             "and lib/parse.cmi make inconsistent assumptions over interface Ast\n\n"
             "make: *** [Makefile:3: all] Error 1")
    assert failures.cause_line(stale) == ("Error: The files lib/ast.cmi and lib/parse.cmi make "
                                          "inconsistent assumptions over interface Ast")
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "make"), ("fail", "Exit code 2\n" + stale),
        ("call", "dune clean && make"), ("ok", "Done: 48/48")]))
    assert "inconsistent assumptions over interface Ast" in pitfall
    assert pitfall.endswith("Fix: run `dune clean`.")
    # an edit of the code between the failure and the chained retry: the edit fixed it
    edited = _session("claude-1", [
        ("call", "make"), ("fail", "Exit code 2\n" + stale),
        ("call", "lib/parse.ml"), ("ok", "The file lib/parse.ml has been updated."),
        ("call", "dune clean && make"), ("ok", "Done: 48/48")])
    for item in edited[2:4]:
        item.update(tool_name="Edit", text=item["text"].replace("Bash: ", "Edit: "))
    assert _pitfalls(edited) == []


def test_an_electron_log_error_is_the_cause_not_the_test_runs_exit_summary():
    """Electron and Chromium tag each log line with its level in a bracket; the "ERROR" one
    says why the app died, the test runner's "Test run failed with code 1" only that it
    did."""
    from dream.detect import failures, shell

    out = ("> ext@1.2.0 test\n> vscode-test\n"
           "[9120:0612/101504.21:ERROR:ozone_platform_x11.cc(245)] Missing X server or $DISPLAY\n"
           "[9120:0612/101504.22:ERROR:env.cc(257)] The platform failed to initialize.  "
           "Exiting.\nFailed to run tests\nError: Test run failed with code 1\n"
           "    at ChildProcess.onProcessClosed (node_modules/@vscode/test-electron/out/"
           "runTest.js:110:24)")
    line = failures.cause_line(out)
    assert line.endswith("Missing X server or $DISPLAY")
    assert shell.shown_cause(line) == "Missing X server or $DISPLAY"


def test_a_step_between_is_the_fix_when_the_retry_also_calls_the_program_another_way():
    """``python manage.py test`` fails on a refused connection, the database is started,
    ``./manage.py test`` works: the start is the fix, not the other spelling of the same
    program; and a command only echoed in quotes runs nothing."""
    from dream.detect import fixes

    refused = ("django.db.utils.OperationalError: connection to server at \"localhost\" "
               "(127.0.0.1), port 5432 failed: Connection refused")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "python manage.py test"), ("fail", "Exit code: 1\nOutput:\n" + refused),
        ("call", "docker compose up -d db"), ("ok", "Container shop-db-1  Started"),
        ("call", "./manage.py test"), ("ok", "Ran 31 tests in 2.4s\n\nOK")]))
    assert pitfall.endswith("Fix: run `docker compose up -d db`.")
    assert not fixes._wraps('echo "pytest -q"', "pytest -q")
    assert fixes._wraps('sh -c "pytest -q"', "pytest -q")


def test_a_flag_that_alone_made_the_same_command_work_is_a_pitfall_the_first_time():
    """``cargo test`` fails to link the Python symbols of a PyO3 crate, and at once
    ``cargo test --no-default-features`` passes, nothing edited: the flag is what testing
    here needs. An install refused by the machine and retried with ``--local`` is a choice
    of where to install, and a failing test that a narrower selection skips stays out."""
    link = ("error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: "
            "target/debug/deps/libpyo3-5e1c.rlib(pyo3.cgu.09.rcgu.o): in function "
            "`pyo3::err::PyErr::restore':\n          /home/kai/.cargo/registry/src/index."
            "crates.io-6f17d22bba15001f/pyo3-0.22.5/src/err/mod.rs:339:(.text+0x1f2): "
            "undefined reference to `PyErr_Restore'\n"
            "error: could not compile `tilecodec` (lib test) due to 1 previous error")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "cargo test"), ("fail", "Exit code: 101\nOutput:\n" + link),
        ("call", "cargo test --no-default-features"), ("ok", "test result: ok. 21 passed")]))
    assert pitfall == ("`cargo test` fails with: undefined reference to `PyErr_Restore'. "
                       "Fix: run `cargo test --no-default-features`.")
    denied = "Error: Your user does not have write permissions in /usr/local/lib/luarocks"
    assert _pitfalls(_session("pi-1", [
        ("call", "luarocks install lpeg"), ("fail", denied),
        ("call", "luarocks install --local lpeg"), ("ok", "lpeg 1.1.0-1 is now installed")])) == []
    failing = "FAILED tests/test_export.py::test_png - AssertionError: sizes differ"
    assert _pitfalls(_session("codex-1", [
        ("call", "pytest -q"), ("fail", "Exit code: 1\nOutput:\n" + failing),
        ("call", "pytest -q --deselect tests/test_export.py::test_png"),
        ("ok", "40 passed")])) == []


def test_a_package_tried_once_and_done_without_is_no_pitfall():
    """``pip install jinja2-time`` refused by an externally managed Python, and the work
    goes on without it (the user says plain templates do): a one-off, no lesson; the same
    refusal followed by the package installed another way still shows its fix."""
    managed = ("error: externally-managed-environment\n\n× This environment is externally "
               "managed\n╰─> To install Python packages system-wide, try apt install\n"
               "    python3-xyz.")
    assert _pitfalls(_session("pi-1", [
        ("call", "pip install jinja2-time"), ("fail", managed),
        ("user", "forget it, plain jinja templates are fine here"),
        ("call", "python3 render.py"), ("ok", "wrote 12 pages")])) == []
    [pitfall] = _pitfalls(_session("pi-1", [
        ("call", "pip install jinja2-time"), ("fail", managed),
        ("call", "uv add jinja2-time"), ("ok", "Resolved 9 packages")]))
    assert pitfall.endswith("Fix: run `uv add jinja2-time`.")


def test_a_moment_named_in_one_sentence_leaves_the_flags_of_another_sentence_alone():
    """"we build with `just build --locked`. the lint job is red, skip it for now": the
    moment ("for now") is said of the lint job, not of the build's flag, even on one line."""
    said = "we build with `just build --locked`. the lint job is red, skip it for now"
    commands = _commands(_session("pi-1", [
        ("user", said), ("call", "just build --locked"), ("ok", "built 3 targets")]))
    assert any("just build --locked" in c for c in commands)
    one_off = "just for now build with `just build --locked`, the registry is down"
    assert not any("--locked" in c for c in _commands(_session("pi-1", [
        ("user", one_off), ("call", "just build --locked"), ("ok", "built 3 targets")])))
    path = "the --locked is there because //vendor/... is half broken right now"
    assert not any("--locked" in c for c in _commands(_session("pi-1", [
        ("user", path), ("call", "just build --locked"), ("ok", "built 3 targets")])))


def test_the_sessions_of_nox_and_tox_are_commands_of_their_own():
    """``nox -s lint`` and ``nox -s tests-3.11`` run different sessions: two commands, the
    lint session a check; ``tox -e py311`` and ``tox -e py312`` are one, on two Pythons."""
    commands = _commands(
        _session("codex-1", [("call", "nox -s lint"), ("ok", "nox > Session lint was successful"),
                             ("call", "nox -s tests-3.11"), ("ok", "58 passed in 3.02s")]),
        _session("codex-2", [("call", "nox -s tests-3.11"), ("ok", "58 passed in 2.87s")], 10))
    assert "Lint and check: `nox -s lint`" in commands
    assert any(c.startswith("Test: `nox -s tests-3.11`") for c in commands)
    from dream.detect.howto import command_key
    assert command_key("tox -e py311") == command_key("tox -e py312") != command_key("tox -e lint")


def test_a_step_that_only_looks_for_the_program_is_no_fix():
    """``which -a ansible-lint`` between the failure and the venv's copy that worked only
    looked where the program is: the fix is the venv's program."""
    missing = ("Traceback (most recent call last):\n  File \"/usr/bin/ansible-lint\", line 5\n"
               "ModuleNotFoundError: No module named 'ansible_compat'")
    [pitfall] = _pitfalls(
        _session("pi-1", [("call", "ansible-lint playbooks/"), ("fail", missing),
                          ("call", "which -a ansible-lint"), ("ok", "/usr/bin/ansible-lint"),
                          ("call", ".venv/bin/ansible-lint playbooks/"), ("ok", "Passed: 0 failures")]),
        _session("pi-2", [("call", "ansible-lint playbooks/"), ("fail", missing),
                          ("call", ".venv/bin/ansible-lint playbooks/"), ("ok", "Passed: 0 failures")],
                 10))
    assert pitfall.endswith("Fix: run `.venv/bin/ansible-lint playbooks/`.")


def test_an_interpreter_given_another_script_wraps_nothing():
    """``symfony php bin/phpunit`` runs PHPUnit, not the console that failed in ``php
    bin/console cache:clear``; ``ddev php bin/console cache:clear`` does run it."""
    from dream.detect.fixes import _wraps
    assert not _wraps("symfony php bin/phpunit", "php bin/console cache:clear")
    assert _wraps("ddev php bin/console cache:clear", "php bin/console cache:clear")


def test_a_long_value_given_to_a_name_keeps_the_name_when_cut():
    from dream.detect.shell import shown_command
    cmd = "act pull_request -j test -P ubuntu-22.04=ghcr.io/catthehacker/ubuntu:full-22.04"
    shown = shown_command(cmd, 70, values=True)
    assert shown == "act pull_request -j test -P ubuntu-22.04=…/ubuntu:full-22.04"


def test_an_error_message_wrapped_over_lines_is_read_whole():
    """Node wraps a long message under its ``Error:`` line; the lines that go on in lower
    case are part of the cause, the stack frames under them are not."""
    from dream.detect.failures import cause_line
    out = ("> api@1.4.0 dev\n> node server.js\n\n"
           "Error: The module '/srv/api/node_modules/sharp/build/Release/sharp.node'\n"
           "was compiled against a different Node.js version using\n"
           "NODE_MODULE_VERSION 115. This version of Node.js requires\n"
           "NODE_MODULE_VERSION 127.\n"
           "    at Module._extensions..node (node:internal/modules/cjs/loader:1460:18)\n")
    line = cause_line(out)
    assert "was compiled against a different Node.js version" in line
    assert "at Module" not in line


def test_a_run_stopped_by_its_time_limit_with_no_error_is_no_failure():
    """``timeout 15 cargo run`` exits 124 when the server is still up after 15 seconds: the
    agent's way to stop it, so no pitfall, and the command is how to run the project."""
    up = ("Exit code: 124\nWall time: 15.0 seconds\nOutput:\n   Compiling relay v0.3.1\n"
          "    Finished `dev` profile\n     Running `target/debug/relay`\nlistening on :7070")
    session = _session("codex-1", [("call", "timeout 15 cargo run"), ("fail", up)])
    assert _pitfalls(session) == []
    assert any("timeout 15 cargo run" in c for c in _commands(session))
    hung = up.replace("listening on :7070", "error: failed to bind :7070: address in use")
    assert not any("cargo run" in c for c in _commands(
        _session("codex-1", [("call", "timeout 15 cargo run"), ("fail", hung)])))


def test_a_flag_the_failure_names_is_a_fix_worth_keeping_after_one_time():
    """The output says which option to add (``--pdf-engine``), and the same command with it
    worked: a pitfall after one time, with the flag as its fix."""
    engine = ("Error producing PDF.\n! LaTeX Error: Unicode character ł (U+0142)\n"
              "not set up for use with LaTeX.\nTry running pandoc with --pdf-engine=xelatex.")
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "pandoc report.md -o report.pdf"), ("fail", "Exit code 43\n" + engine),
        ("call", "pandoc report.md -o report.pdf --pdf-engine=xelatex"), ("ok", "")]))
    assert pitfall.endswith("Fix: run `pandoc report.md -o report.pdf --pdf-engine=xelatex`.")


def test_a_compile_error_whose_fix_the_compiler_names_is_a_pitfall_after_one_time():
    """``error[E0463]`` reads like an error in the code, but the compiler's help names the
    step that fixed it, another program (``rustup target add``): the machine lacked it."""
    core = ("error[E0463]: can't find crate for `core`\n  |\n  = note: the "
            "`thumbv7em-none-eabihf` target may not be installed\n  = help: consider "
            "downloading the target with `rustup target add thumbv7em-none-eabihf`")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "cargo build --release"), ("fail", "Exit code: 1\nOutput:\n" + core),
        ("call", "rustup target add thumbv7em-none-eabihf"), ("ok", "installing component"),
        ("call", "cargo build --release"), ("ok", "Finished `release` profile")]))
    assert "can't find crate for `core`" in pitfall
    assert pitfall.endswith("Fix: run `rustup target add thumbv7em-none-eabihf`.")


def test_the_command_the_user_names_right_after_a_failure_and_that_then_works_is_its_fix():
    """``alembic upgrade head`` cannot reach the database; the user names `just db-up`
    (it starts the container), the agent runs it and it works: that is the fix. A command
    the user said no to ("don't pip install") gets no fix from what they said instead."""
    refused = ("Traceback (most recent call last):\n  File \"/usr/bin/alembic\", line 8\n"
               "sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: "
               "connection to server at \"127.0.0.1\", port 5433 failed: Connection refused")
    [pitfall] = _pitfalls(_session("codex-1", [
        ("call", "alembic upgrade head"), ("fail", "Exit code: 1\nOutput:\n" + refused),
        ("user", "the db only runs in docker here. `just db-up` starts it, then retry"),
        ("call", "just db-up"), ("ok", "Container tracks-db  Started")]))
    assert pitfall.endswith("Fix: run `just db-up`.")
    managed = "error: externally-managed-environment\n\n× This environment is externally managed"
    assert _pitfalls(_session("pi-1", [
        ("call", "pip install --user dist/tool-1.0.whl"), ("fail", managed),
        ("user", "no, don't pip install anything here. `make venv` sets it all up"),
        ("call", "make venv"), ("ok", "created .venv")])) == []
    root = "sudo: a terminal is required to read the password\nsudo: a password is required"
    assert _pitfalls(_session("codex-1", [
        ("call", "sudo dnf install -y gtk4-devel"), ("fail", "Exit code: 1\nOutput:\n" + root),
        ("user", "nothing gets installed on my host. `toolbox run make check` has it all"),
        ("call", "toolbox run make check"), ("ok", "all 31 checks passed")])) == []


def test_a_command_the_user_says_what_it_is_for_is_a_way_to_work_though_its_words_say_nothing():
    """`quarto render` names no job a tool list knows; the user said "the slides build with
    `quarto render slides.qmd --to revealjs`": a build. A command named after "don't" in
    the user's sentence is what not to run."""
    commands = _commands(_session("claude-1", [
        ("user", "the slides build with `quarto render slides.qmd --to revealjs`, output goes "
                 "to _site"),
        ("call", "quarto render slides.qmd --to revealjs"), ("ok", "Output created: _site")]))
    assert "Build: `quarto render slides.qmd --to revealjs`" in commands
    assert not _commands(_session("claude-1", [
        ("user", "don't build with `quarto render slides.qmd --to pdf`, no LaTeX here"),
        ("call", "quarto render slides.qmd --to pdf"), ("ok", "Output created: slides.pdf")]))


def test_an_install_whose_retries_print_the_same_error_behind_a_pipe_is_no_command():
    """`brew install ffmpeg` fails on a held lock; the agent waits and retries it through
    `| tail -5`, which hides the exit status but prints the same error: every run failed,
    so it is not how this project installs. An install that worked still counts."""
    locked = ("==> Fetching downloads for: ffmpeg\n✘ Bottle x265 (4.1)\nError: A `brew install "
              "ffmpeg` process has already locked /Users/me/Library/Caches/Homebrew/downloads/"
              "9f1c--x265--4.1.bottle.tar.gz.incomplete.\nPlease wait for it to finish or "
              "terminate it to continue.")
    tail = "\n".join(locked.splitlines()[-3:])
    cmds = _commands(_session("claude-1", [
        ("call", "brew install ffmpeg"), ("fail", locked),
        ("call", "sleep 10 && brew install ffmpeg 2>&1 | tail -5"), ("ok", tail),
        ("call", "sleep 30 && brew install ffmpeg 2>&1 | tail -5"), ("ok", tail),
        ("call", "brew install jq"), ("ok", "🍺  /opt/homebrew/Cellar/jq/1.7.1: 19 files")]))
    assert not any("ffmpeg" in c for c in cmds)
    assert any("brew install jq" in c for c in cmds)




def test_the_test_file_a_runner_was_pointed_at_is_left_out_of_the_shown_command():
    """The spec file of that day (`--spec cypress/e2e/refund.cy.ts`, `tests/test_vat.py`) is
    a one-off; the program's own script (`manage.py`) and a folder of tests are not."""
    from dream.detect import shell

    assert shell.shown_command("npx cypress run --spec cypress/e2e/refund.cy.ts") == \
        "npx cypress run"
    assert shell.shown_command("uv run pytest -x tests/test_vat.py::test_rounding") == \
        "uv run pytest -x"
    assert shell.shown_command("npm run test:e2e -- --spec cypress/e2e/refund.cy.ts") == \
        "npm run test:e2e"
    assert shell.shown_command("python manage.py test billing") == "python manage.py test billing"
    assert shell.shown_command("pytest -q tests/") == "pytest -q tests/"
    assert shell.shown_command("bundle exec rspec spec/models/refund_spec.rb:40") == \
        "bundle exec rspec"

def test_the_projects_package_script_that_echoes_the_failing_program_is_the_fix():
    """`npx jest` cannot reach the database; `pnpm test:int` works, and pnpm's echo shows the
    script runs jest after starting it: the project's own way to run what failed. A script
    whose echo runs another program (`eslint`) fixes nothing."""
    refused = ("FAIL  test/orders.int.test.ts\n  ● orders › lists open orders\n\n"
               "    Error: connect ECONNREFUSED 127.0.0.1:5433\n\nTests: 1 failed, 1 total")
    script = ("\n> shipyard-api@2.3.1 test:int /home/noor/src/shipyard-api\n"
              "> docker compose up -d --wait pg && jest --runInBand\n\n"
              "PASS  test/orders.int.test.ts\nTests: 4 passed, 4 total")
    sessions = [_session(f"pi-{n}", [
        ("call", "npx jest test/orders.int.test.ts"), ("fail", refused),
        ("call", "pnpm test:int"), ("ok", script)], 10 * n) for n in (1, 2)]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.startswith("`npx jest` fails with: ")
    assert pitfall.endswith("Fix: run `pnpm test:int`.")
    lint = "\n> shipyard-api@2.3.1 lint\n> eslint src test\n\n✔ no problems"
    other = [_session(f"pi-{n}", [
        ("call", "npx jest test/orders.int.test.ts"), ("fail", refused),
        ("call", "pnpm lint"), ("ok", lint)], 10 * n) for n in (1, 2)]
    assert all("Fix:" not in p for p in _pitfalls(*other))


def test_a_chained_traceback_is_named_by_the_exception_the_others_were_raised_from():
    """`raise LoaderError(...) from exc`: the wrapping exception only says which step failed;
    the one above "The above exception was the direct cause" says why. Another exception
    raised while handling the first is a new failure: the last one names it."""
    from dream.detect import failures

    chained = ("Traceback (most recent call last):\n  File \"etl/load.py\", line 40, in read\n"
               "    return pd.read_csv(path)\nPermissionError: [Errno 13] Permission denied: "
               "'/srv/exports/2026-03/orders.csv'\n\nThe above exception was the direct cause "
               "of the following exception:\n\nTraceback (most recent call last):\n  File "
               "\"etl/run.py\", line 9, in <module>\netl.errors.LoaderError: could not read "
               "source 'orders'")
    assert failures.cause_line(chained).startswith("PermissionError: [Errno 13] Permission denied")
    during = chained.replace("The above exception was the direct cause of the following "
                             "exception:", "During handling of the above exception, another "
                             "exception occurred:")
    assert failures.cause_line(during).startswith("etl.errors.LoaderError: could not read")


def test_a_line_that_says_what_would_fix_the_error_is_not_its_cause():
    """"Reinstalling with --force will fix this error" tells what to do; the cause is the
    line that says what is wrong."""
    from dream.detect import failures

    out = ("Exit code 1\nThe playwright package is installed, but its browsers are not.\n\n"
           "Running the install step again will fix this error for every project on this "
           "machine.\n\nhttps://playwright.dev/docs/browsers")
    assert failures.cause_line(out) == ("The playwright package is installed, but its "
                                        "browsers are not.")


def test_a_line_that_only_says_an_unexpected_error_occurred_is_not_the_cause():
    """"Error: An unexpected error has occurred." names nothing: the line above it that says
    what happened is the cause, so two different failures that end the same way stay two."""
    from dream.detect import failures

    jvm = ("i  emulators: Starting emulators: auth, firestore\n⚠  firestore: Fatal error "
           "occurred:\n   Firestore Emulator has exited because java is not installed\n\n"
           "Error: An unexpected error has occurred.\n")
    port = ("i  emulators: Starting emulators: auth, firestore\n⚠  auth: Port 9099 is not open "
            "on localhost, could not start Authentication Emulator.\n\nError: An unexpected "
            "error has occurred.\n")
    assert "java is not installed" in failures.cause_line(jvm)
    assert "could not start Authentication Emulator" in failures.cause_line(port)
    assert failures.signature(jvm) != failures.signature(port)


def test_a_long_cause_keeps_its_opening_clause_with_the_clause_that_ends_it():
    """A checker's verdict followed by the first broken item: too long to show whole, it
    keeps what failed ("There were errors in the external links") and how the first item
    failed, not only the end."""
    from dream.detect import shell

    line = ("Error: There were errors in the external links: Broken link in content/blog/"
            "2025-autumn-retreat.md to https://www.example-lodge.org/booking/rooms: error "
            "sending request for url (https://www.example-lodge.org/booking/rooms): connection "
            "reset by peer")
    shown = shell.shown_cause(line, 150)
    assert shown.startswith("There were errors in the external links: … ")
    assert shown.endswith("connection reset by peer")
    docker = ("Error response from daemon: driver failed programming external connectivity on "
              "endpoint api-db-1 (9c2e41): Bind for 0.0.0.0:5432 failed: port is already allocated")
    assert shell.shown_cause(docker, 80) == "Bind for 0.0.0.0:5432 failed: port is already allocated"


def test_a_cause_line_is_shown_without_the_header_its_logger_wrote():
    """A runner logs its error with a time, tags, the level and the logger's name before the
    message: the message is what the line says. A level with no time before it is read as
    before."""
    from dream.detect import shell

    assert shell.shown_cause("2026-03-14 08:02:11,904 ERROR [main] com.acme.db.Pool - Cannot "
                             "acquire connection: pool exhausted after 30s") == \
        "Cannot acquire connection: pool exhausted after 30s"
    assert shell.shown_cause("[api.it] 11:40:02.517 [worker-3] FATAL Migrator - schema "
                             "version 41 is newer than this build (40)") == \
        "schema version 41 is newer than this build (40)"
    assert shell.shown_cause("14 03 2026 08:02:11.904:ERROR [launcher]: Cannot start "
                             "FirefoxHeadless") == "Cannot start FirefoxHeadless"
    assert shell.shown_cause("ERROR: relation \"orders\" does not exist") == \
        "ERROR: relation \"orders\" does not exist"


def test_the_compose_service_named_after_the_failing_program_is_its_fix():
    """``liquibase --defaults-file=local.properties update`` cannot reach the database host
    from the laptop; ``docker compose run --rm liquibase update`` runs the same program in its
    service, as ``docker-compose run`` would: the compose spelling with a space is the same
    runner, and a flag whose value is a file is no script the program only reads."""
    down = ("Unexpected error running Liquibase: Connection could not be created to "
            "jdbc:postgresql://pg:5432/stock: java.net.UnknownHostException: pg")
    sessions = [_session(name, [
        ("call", "liquibase --defaults-file=local.properties update"), ("fail", down),
        ("call", "docker compose run --rm liquibase update"),
        ("ok", "Liquibase command 'update' was executed successfully.")], start)
        for name, start in (("codex-1", 0), ("claude-2", 10))]
    [pitfall] = _pitfalls(*sessions)
    assert "UnknownHostException: pg" in pitfall
    assert pitfall.endswith("Fix: run `docker compose run --rm liquibase update`.")


def test_a_cause_a_caused_by_chain_hangs_from_is_named_by_the_root_of_the_chain():
    """Nextflow and the JVM print the wrapper first and what it was caused by below it: the
    last "Caused by:" is why, the wrapper only says which step failed. A chain that ends in
    a step that exited says nothing more than the line it hangs from. Figures of this one
    time after a dash are not shown."""
    from dream.detect import failures, shell

    nextflow = ("ERROR ~ Error executing process > 'ASSEMBLE (plate_07)'\n\nCaused by:\n"
                "  Process requirement exceeds available cpus -- req: 48; avail: 16\n\n"
                "Command executed:\n  spades.py -t 48 -o out\n\n-- Check '.nextflow.log' file "
                "for details")
    assert failures.cause_line(nextflow) == ("Process requirement exceeds available cpus -- "
                                             "req: 48; avail: 16")
    assert shell.shown_cause(failures.cause_line(nextflow)) == \
        "Process requirement exceeds available cpus"
    jvm = ("ERROR: Migration of schema failed\nCaused by: org.h2.jdbc.JdbcSQLSyntaxErrorException:"
           " Table \"LEDGER_ROWS\" not found\n\tat org.h2.message.DbException.get(DbException"
           ".java:502)\nCaused by: org.h2.message.DbException: Table \"LEDGER_ROWS\" not found "
           "(schema PUBLIC)\n\t... 14 more")
    assert shell.shown_cause(failures.cause_line(jvm)) == ("DbException: Table \"LEDGER_ROWS\" "
                                                           "not found (schema PUBLIC)")
    exited = ("error: linking with `cc` failed: exit status: 1\n\nCaused by:\n  process didn't "
              "exit successfully: `rustc --crate-name bench` (exit status: 1)")
    assert failures.cause_line(exited) == "error: linking with `cc` failed: exit status: 1"


def test_a_ruby_exception_is_shown_without_the_file_and_method_it_was_raised_in():
    """Ruby prints an uncaught exception as "file:line:in `method': message (Class)": the
    file, line and method are where, the message and class are what."""
    from dream.detect import shell

    assert shell.shown_cause("/usr/lib/ruby/3.3.0/bundler/spec_set.rb:211:in `materialize': "
                             "Could not find nokogiri-1.16.2 in locally installed gems "
                             "(Bundler::GemNotFound)") == \
        "Could not find nokogiri-1.16.2 in locally installed gems (Bundler::GemNotFound)"
    assert shell.shown_cause("lib/tasks/seed.rake:14:in 'block (2 levels) in <main>': "
                             "undefined method 'slug' for nil (NoMethodError)") == \
        "undefined method 'slug' for nil (NoMethodError)"


def test_setting_the_version_once_is_no_way_to_work_but_the_projects_release_script_is():
    """``pnpm version 3.1.0 --no-git-tag-version`` sets one value once, like adding one
    dependency; the script that carries the version into the app stores is how releases are
    done, shown without the one-off bump chained before it."""
    sessions = [_session("claude-1", [
        ("call", "pnpm version 3.1.0 --no-git-tag-version && pnpm run version:stores"),
        ("ok", "v3.1.0\n\n> ferry@3.1.0 version:stores\n> node scripts/stores.mjs\nupdated "
               "ios and android"),
        ("call", "yarn version --new-version 3.1.1"), ("ok", "info New version: 3.1.1")])]
    found = _commands(*sessions)
    assert "Release: `pnpm run version:stores`" in found
    assert not any("3.1." in c for c in found)


def test_a_command_through_a_runner_takes_its_purpose_from_a_sentence_naming_its_program():
    """"tests go through the task runner: `poetry run invoke test`" names ``invoke test``;
    ``poetry run invoke release-notes`` shares only the runner with it, so the sentence says
    nothing of what it is for."""
    sessions = [_session("pi-1", [
        ("user", "tests go through the task runner: `poetry run invoke test`."),
        ("call", "poetry run invoke test"), ("ok", "collected 88 items\n88 passed in 3.10s"),
        ("call", "poetry run invoke release-notes --since v2.0"),
        ("ok", "wrote CHANGES.md (14 entries)")])]
    found = _commands(*sessions)
    assert any(c.startswith("Test: `poetry run invoke test`") for c in found)
    assert not any("release-notes" in c for c in found)


def test_a_command_is_shown_with_the_settings_it_ran_with_but_never_a_secret():
    """``SPARK_LOCAL_IP=127.0.0.1 make check`` worked where ``make check`` could not bind:
    the setting is part of how to run it. A token in front of a command is not shown, and a
    form too long with its settings is shown without them."""
    bind = "java.net.BindException: Can't assign requested address: Service 'sparkDriver' failed"
    sessions = [_session("codex-1", [
        ("call", "make check"), ("fail", "Exit code: 2\n" + bind),
        ("call", "SPARK_LOCAL_IP=127.0.0.1 make check"), ("ok", "Ran 57 tests in 41.2s\n\nOK"),
        ("call", "GITLAB_TOKEN=[REDACTED:token:1a2b] ./scripts/lint.sh"),
        ("ok", "lint: 0 problems"),
        ("call", "SNOWPARK_CONFIG_FILE=$HOME/.config/snowpark/dev-readonly.toml uv run dbt build "
                 "--select staging.orders+ --target dev"),
        ("ok", "Completed successfully\n\nDone. PASS=14 WARN=0 ERROR=0 SKIP=0 TOTAL=14")])]
    found = _commands(*sessions)
    assert "Test: `SPARK_LOCAL_IP=127.0.0.1 make check`" in " ".join(found)
    assert not any("TOKEN" in c or "REDACTED" in c for c in found)
    assert any(": `uv run dbt build --select staging.orders+ --target dev`" in c for c in found)


def test_a_failure_that_ends_with_a_colon_is_named_by_the_line_under_it():
    """"There was an error loading config/site.json:" only says which step failed; the line
    under it says why. A line that ends by handing over to what would fix it ("please run:")
    keeps its own words. A build step that makes the missing file, then the same command
    working, is what the checkout needed the first time."""
    from dream.detect import failures

    loading = ("i  hosting: preparing public directory\n⬢  hosting: Failed to prepare deploy "
               "preview: There was an error reading public/manifest.json:\n\n public/app.js does "
               "not exist, run the bundler before serving\n\nError: An unexpected error has "
               "occurred.")
    assert failures.cause_line(loading) == ("public/app.js does not exist, run the bundler "
                                            "before serving")
    fix_it = ("ERROR: the lock file is out of date and must be regenerated, please run:\n\n"
              "    poetry lock --no-update\n")
    assert failures.cause_line(fix_it).endswith("please run:")
    sessions = [_session("pi-1", [
        ("call", "firebase emulators:start --only hosting"), ("fail", loading),
        ("call", "npm run bundle"), ("ok", "built public/app.js (212 kB)"),
        ("call", "firebase emulators:start --only hosting"),
        ("ok", "✔  hosting: Local server: http://127.0.0.1:5000")])]
    [pitfall] = _pitfalls(*sessions)
    assert "public/app.js does not exist" in pitfall
    assert pitfall.endswith("Fix: run `npm run bundle`.")


def test_a_cause_said_of_a_different_name_each_time_is_shown_without_the_name():
    """The system pytest missed 'structlog' in one session and 'orjson' in the next: one
    pitfall, and its line names neither module (it happened to each only once); a cause
    that differs in a web address keeps the last one as it was."""
    def missing(name: str) -> str:
        return ("Exit code 4\nImportError while loading conftest '/srv/app/tests/conftest.py'.\n"
                f"E   ModuleNotFoundError: No module named '{name}'")
    sessions = [_session(f"claude-{n}", [
        ("call", "pytest tests/"), ("fail", missing(name)),
        ("call", "poetry run pytest tests/"), ("ok", "212 passed in 9.81s")], 10 * n)
        for n, name in ((1, "structlog"), (2, "orjson"))]
    [pitfall] = _pitfalls(*sessions)
    assert "No module named '…'" in pitfall
    assert "structlog" not in pitfall and "orjson" not in pitfall
    assert pitfall.endswith("Fix: run `poetry run pytest tests/`.")
    down = "Error: connect ECONNREFUSED {}:9222 — is the browser running?"
    hosts = [_session(f"pi-{n}", [
        ("call", "npm run e2e"), ("fail", down.format(host)),
        ("call", "npm run browser:start && npm run e2e"), ("ok", "14 passing")], 10 * n)
        for n, host in ((1, "127.0.0.1"), (2, "localhost"))]
    [pitfall] = _pitfalls(*hosts)
    assert "localhost:9222" in pitfall
    gone = "ssh: Could not resolve hostname {}: Name or service not known"
    hidden = [_session(f"claude-{n}", [
        ("call", "ssh root@nas 'df -h'" if n == 1 else "ssh root@[REDACTED_IP]:2222 'df -h'"),
        ("fail", gone.format(host))], 10 * n)
        for n, host in ((1, "nas"), (2, "[REDACTED_IP]:2222"))]
    [pitfall] = _pitfalls(*hidden)
    assert "hostname [REDACTED_IP]:2222: Name or service not known" in pitfall


def test_a_fix_the_session_took_back_is_not_the_fix():
    """The agent installed a gem system-wide and the tests ran; the user said not globally,
    the gem was uninstalled and the project's bundle path set up instead: the install is
    no fix, what the session kept is. A folder made and later removed is taken back too."""
    missing = "Could not find rake-13.2.1 in locally installed gems\nRun `bundle install` to install missing gems."
    [pitfall] = _pitfalls(_session("claude-1", [
        ("call", "bundle exec rake test"), ("fail", "Exit code 7\n" + missing),
        ("call", "gem install rake -v 13.2.1"), ("ok", "Successfully installed rake-13.2.1\n1 gem installed"),
        ("call", "bundle exec rake test"), ("ok", "48 runs, 112 assertions, 0 failures, 0 errors"),
        ("user", "not into the system ruby please, the gems live in vendor/bundle"),
        ("call", "gem uninstall rake -v 13.2.1"), ("ok", "Successfully uninstalled rake-13.2.1"),
        ("call", "bundle config set --local path vendor/bundle && bundle install"),
        ("ok", "Bundle complete! 9 Gemfile dependencies, 31 gems now installed.")]),
        _session("claude-2", [
            ("call", "bundle exec rake test"), ("fail", "Exit code 7\n" + missing),
            ("call", "bundle config set --local path vendor/bundle && bundle install"),
            ("ok", "Bundle complete! 9 Gemfile dependencies, 31 gems now installed."),
            ("call", "bundle exec rake test"), ("ok", "48 runs, 112 assertions, 0 failures")], 20))
    assert "gem install" not in pitfall
    assert "bundle config set --local path vendor/bundle" in pitfall
    from dream.detect import commands, fixes
    runs = commands.by_session([i for i in _evidence(_session("pi-1", [
        ("call", "make docs"), ("fail", "mkdocs: error: cache dir /home/lu/.cache/site not found"),
        ("call", "mkdir -p ~/.cache/site && make docs"), ("ok", "INFO - Documentation built"),
        ("user", "not in ~/.cache, the Makefile takes SITE_CACHE=.site-cache"),
        ("call", "rm -rf ~/.cache/site && SITE_CACHE=.site-cache make docs"),
        ("ok", "INFO - Documentation built")])).items])
    [failing, *later] = runs["pi-1"]
    assert fixes.undone("mkdir -p ~/.cache/site", failing, later)
    assert not fixes.undone("SITE_CACHE=.site-cache make docs", failing, later)


def test_a_fix_that_removes_before_it_makes_does_not_take_itself_back():
    """A clean rebuild ('rm -rf build && mkdir -p build') or a reinstall ('npm uninstall x &&
    npm install x') holds the turned-round step itself: only what ran after the fix's own
    run can take it back."""
    from dream.detect import commands, fixes
    runs = commands.by_session([i for i in _evidence(_session("pi-1", [
        ("call", "cmake --build build"), ("fail", "CMake Error: The current CMakeCache.txt directory is different"),
        ("call", "rm -rf build && mkdir -p build && cmake -S . -B build"), ("ok", "-- Build files have been written to: build"),
        ("call", "npm uninstall esbuild && npm install esbuild"), ("ok", "added 1 package"),
        ("call", "cmake --build build"), ("ok", "[100%] Built target app")])).items])
    [failing, *later] = runs["pi-1"]
    assert not fixes.undone("rm -rf build && mkdir -p build", failing, later)
    assert not fixes.undone("npm uninstall esbuild && npm install esbuild", failing, later)


def test_a_module_run_by_python_is_the_program_the_user_objects_to():
    """`python -m pytest` is pytest: "not pytest directly" right after it failed makes its
    failure the agent's mistake in both sessions, no pitfall of the project."""
    from dream.detect import howto, objections

    missing = "Exit code 2\nE   ModuleNotFoundError: No module named 'ledger'"
    sessions = [_session(f"claude-{n}", [
        ("call", "python -m pytest tests/test_io.py -x"), ("fail", missing),
        ("user", "not pytest directly, the BUILD files set up the import paths: "
                 "`bazel test //ledger:all`"),
        ("call", "bazel test //ledger:all"), ("ok", "//ledger:io_test PASSED in 1.4s")], 10 * n)
        for n in (1, 2)]
    assert _pitfalls(*sessions) == []
    assert objections.step_key("python3 -m pip install -e .", howto.command_key) == \
        howto.command_key("pip install -e .")


def test_a_command_the_harness_stopped_is_named_by_what_it_waited_for():
    """Claude Code's "Command timed out after 2m 0.0s" and Codex's "(command timed out after
    120000ms)" only say time ran out; the program's last line saying what it was waiting
    for is the cause, with the time-out after it. Without such a line the note stays."""
    from dream.detect import failures

    locked = ("Exit code 124\n    Updating crates.io index\n"
              "    Blocking waiting for file lock on package cache\nCommand timed out after 2m 0.0s")
    assert failures.cause_line(locked) == ("Blocking waiting for file lock on package cache "
                                           "(Command timed out after 2m 0.0s)")
    assert failures.cause_line("Compiling 412 files\n(command timed out after 120000ms)") == \
        "(command timed out after 120000ms)"
    sessions = [_session(f"codex-{n}", [
        ("call", "cargo build -p ingest"), ("fail", locked),
        ("call", "pkill -x rust-analyzer && cargo build -p ingest"),
        ("ok", "   Compiling ingest v0.4.1\n    Finished `dev` profile in 38.20s")], 10 * n)
        for n in (1, 2)]
    [pitfall] = _pitfalls(*sessions)
    assert "waiting for file lock on package cache" in pitfall
    assert pitfall.endswith("Fix: run `pkill -x rust-analyzer`.")


def test_the_step_that_got_a_retry_past_the_cause_is_its_fix_though_the_retry_stopped_later():
    """`go mod tidy`, then the same `go test ./...` got past the missing go.sum entry and
    stopped at the database not running: `go mod tidy` fixed the first failure, not the
    `docker compose up -d db` that came after for the second."""
    from dream.detect import commands, fixes

    runs = commands.by_session([i for i in _evidence(_session("codex-1", [
        ("call", "go test ./..."),
        ("fail", "Exit code: 1\nOutput:\ninternal/store/pg.go:9:2: missing go.sum entry for module "
                 "providing package github.com/jackc/pgx/v5; to add:\n\tgo get internal/store"),
        ("call", "go mod tidy"), ("ok", "go: downloading github.com/jackc/pgx/v5 v5.7.1"),
        ("call", "go test ./..."),
        ("fail", "Exit code: 1\nOutput:\n--- FAIL: TestStore (0.00s)\n    store_test.go:21: dial tcp "
                 "127.0.0.1:5432: connect: connection refused\nFAIL\tledger/internal/store\t0.012s"),
        ("call", "docker compose up -d db && go test ./..."),
        ("ok", "ok  \tledger/internal/store\t0.311s")])).items])["codex-1"]
    assert fixes.fix_of(runs[0], runs) == "go mod tidy"


def test_a_path_in_the_users_home_is_shown_from_the_tilde():
    """"/home/mirela/.lima/docker.sock" names one account on one machine: the line shows
    "~/.lima/docker.sock"; a long path is still cut to its last part first."""
    from dream.detect import shell

    assert shell.shown_cause("Cannot connect to the Docker daemon at unix:///home/mirela/"
                             ".lima/docker.sock. Is the docker daemon running?") == (
        "Cannot connect to the Docker daemon at unix://~/.lima/docker.sock. Is the docker "
        "daemon running?")
    assert shell.shown_cause("open /Users/tomasz/src/shop/web/node_modules/.vite/deps/"
                             "chunk.js: no such file") == "open …/chunk.js: no such file"
    assert shell.shown_cause("cannot open /srv/home/ci/cache.db") == \
        "cannot open /srv/home/ci/cache.db"


def test_a_line_that_only_says_a_step_ran_into_errors_is_named_by_the_error_under_it():
    """"Error while executing the lando command." and "Startup failed due to errors" name
    no error; the line under each does (read from the exception it names). A line that
    says its error itself after a colon keeps it."""
    from dream.detect import failures

    lando = ("Exit code 1\n> shop@2.3.0 test:unit\n> lando phpunit\n\n"
             "✖ Error while executing the lando command.\nservice \"appserver\" is not running\n")
    assert failures.cause_line(lando) == 'service "appserver" is not running'
    startup = ("[ERROR] Tests run: 4, Failures: 0, Errors: 1, Skipped: 0\n"
               "java.lang.RuntimeException: io.example.boot.StartupException: Startup failed "
               "due to errors\n\t[error]: Step io.example.kafka.BrokerCheck#verify threw an "
               "exception: java.lang.IllegalStateException: No Kafka broker reachable at "
               "localhost:9092\n\tat io.example.boot.Runner.run(Runner.java:88)\n"
               "[INFO] BUILD FAILURE")
    assert failures.cause_line(startup) == ("java.lang.IllegalStateException: No Kafka broker "
                                            "reachable at localhost:9092")
    own = "Error while running migrations: relation \"users\" already exists\nmake: *** [db] Error 1"
    assert failures.cause_line(own) == 'Error while running migrations: relation "users" already exists'


def test_a_chained_root_that_names_nothing_gives_way_to_the_exception_raised_from_it():
    """The root of a Python chain is the cause, unless it names nothing of its own ("[Errno
    -3] Temporary failure in name resolution") and the exception raised from it names what
    was being reached; a root that names its file stays the cause."""
    from dream.detect import failures

    chain = ("Traceback (most recent call last):\n  File \"/srv/ingest/.venv/lib/python3.11/"
             "site-packages/urllib3/connection.py\", line 203, in _new_conn\n"
             "socket.gaierror: [Errno -3] Temporary failure in name resolution\n\n"
             "The above exception was the direct cause of the following exception:\n\n"
             "Traceback (most recent call last):\n  File \"/srv/ingest/jobs/reindex.py\", "
             "line 41, in <module>\n"
             "ingest.search.SearchUnavailable: cannot reach OpenSearch at "
             "https://search.internal:9200\n")
    assert failures.cause_line(chain) == ("ingest.search.SearchUnavailable: cannot reach "
                                          "OpenSearch at https://search.internal:9200")
    missing = chain.replace("socket.gaierror: [Errno -3] Temporary failure in name resolution",
                            "FileNotFoundError: [Errno 2] No such file or directory: "
                            "'certs/search-ca.pem'")
    assert failures.cause_line(missing).startswith("FileNotFoundError: [Errno 2]")


def test_a_retry_with_a_flag_before_its_subcommand_after_a_step_chained_before_it():
    """`stack --install-ghc setup && stack --install-ghc test` runs `stack test` again with a
    flag before its subcommand: the step chained before it is the fix. A flag that takes a
    value (`npm --prefix web test`) runs it on something else."""
    from dream.detect import fixes

    nogh = ("Exit code 1\nNo compiler found, expected minor version match with ghc-9.6.6 "
            "(x86_64) (based on resolver setting in /home/ola/tally/stack.yaml).\nTo install "
            "the correct GHC into ~/.stack/programs/x86_64-linux/, try running 'stack setup' "
            "or use the '--install-ghc' flag.")
    session = _session("claude-1", [
        ("call", "stack test"), ("fail", nogh),
        ("call", "stack --install-ghc setup && stack --install-ghc test"),
        ("ok", "tally> Test suite tally-test passed")])
    [pitfall] = _pitfalls(session)
    assert pitfall.endswith("Fix: run `stack --install-ghc setup`.")
    assert not fixes._flagged_retry("npm --prefix web test", "npm test")


def test_a_long_exception_line_is_the_cause_not_the_build_tools_summary():
    """A test that failed on an exception whose message runs on past 400 characters (advice
    appended to it): the exception names the cause, not Gradle's "FAILURE: Build failed
    with an exception." under it."""
    advice = " Check your configuration and the beans it declares;" * 8
    out = ("Exit code 1\n> Task :test\n\nOrderControllerTest > creates an order() FAILED\n"
           "    org.springframework.beans.factory.NoSuchBeanDefinitionException: No qualifying "
           "bean of type 'shop.orders.{name}' available." + advice + "\n"
           "        at app//org.springframework.beans.factory.support.DefaultListableBeanFactory"
           ".getBean(DefaultListableBeanFactory.java:343)\n\n"
           "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
           "Execution failed for task ':test'.\n> There were failing tests.\n\nBUILD FAILED in 9s")
    sessions = [_session(f"claude-{n}", [
        ("call", "./gradlew test"), ("fail", out.replace("{name}", name)),
        ("user", "the incremental build missed the new bean again, `./gradlew clean test`"),
        ("call", "./gradlew clean test"), ("ok", "BUILD SUCCESSFUL in 40s")], 10 * n)
        for n, name in ((1, "OrderRepository"), (2, "InvoiceMailer"))]
    [pitfall] = _pitfalls(*sessions)
    assert "NoSuchBeanDefinitionException: No qualifying bean of type '…' available" in pitfall
    assert "FAILURE" not in pitfall and pitfall.endswith("Fix: run `./gradlew clean test`.")


def test_a_line_that_lists_where_it_looked_keeps_its_own_words():
    """"... was not found in any of the following repositories:" says what failed; the
    list under it is only where the tool looked, so it is no cause of its own."""
    from dream.detect.failures import cause_line
    out = ("* What went wrong:\nPlugin [id: 'com.acme.lint', version: '2.1.0'] was not found in "
           "any of the following repositories:\n- Gradle Central Plugin Repository (could not "
           "resolve plugin artifact 'com.acme.lint:com.acme.lint.gradle.plugin:2.1.0')\n"
           "- Maven Local\n\nBUILD FAILED in 2s")
    assert cause_line(out).startswith("Plugin [id: 'com.acme.lint', version: '2.1.0'] was not "
                                      "found in any of the following repositories")
    handed = ("There was an error reading functions/package.json:\n functions/lib/index.js "
              "does not exist, can't deploy Cloud Functions")
    assert cause_line(handed).startswith("functions/lib/index.js does not exist")


def test_a_test_runners_tally_is_no_cause():
    """vitest's "Test Files  1 failed | 3 passed (4)" and jest's "Tests:  2 failed, 9 passed,
    11 total" only count what failed; "See above" points past them to the error."""
    from dream.detect.failures import cause_line
    out = (" FAIL  src/cart/total.test.ts [ src/cart/total.test.ts ]\n"
           "Error: Cannot find module '@shop/money' imported from /home/ida/shop/src/cart/total.ts"
           "\n\n Test Files  1 failed | 3 passed (4)\n      Tests  12 passed (12)\n"
           "   Duration  1.90s\n\n ELIFECYCLE  Test failed. See above for more details.")
    assert cause_line(out) == ("Error: Cannot find module '@shop/money' imported from "
                               "/home/ida/shop/src/cart/total.ts")
    jest = ("  ● Test suite failed to run\n\n    TypeError: fetch is not a function\n\n"
            "Test Suites: 1 failed, 4 passed, 5 total\nTests:       2 failed, 9 passed, 11 total")
    assert cause_line(jest) == "TypeError: fetch is not a function"


def test_a_go_log_reads_its_error_level_lines_first():
    """terragrunt, k6 and docker log through logrus: "ERRO[0002] ..." is the line the program
    itself marked as its error, the untagged lines of detail under it come after it."""
    from dream.detect.failures import cause_line
    out = ("INFO[0000] Downloading Terraform configurations into ./.terragrunt-cache/x\n"
           "ERRO[0002] Error: error configuring S3 Backend: no valid credential sources for S3 "
           "Backend found.\n\nPlease see https://www.terraform.io/docs for more information.\n\n"
           "Error: failed to refresh cached credentials, operation error ec2imds: GetMetadata, "
           "context deadline exceeded\n"
           "ERRO[0002] Unable to determine underlying exit code, so Terragrunt will exit with "
           "error code 1")
    assert cause_line(out) == ("Error: error configuring S3 Backend: no valid credential "
                               "sources for S3 Backend found.")
    k6 = ("  execution: local\n\nERRO[0000] GoError: The moduleSpecifier \"lodash\" couldn't be "
          "found on local disk.\n\tat go.k6.io/k6/js.(*requireImpl).require-fm (native)")
    assert cause_line(k6).startswith("GoError: The moduleSpecifier \"lodash\" couldn't be found")


def test_a_setting_tried_out_before_the_retry_is_not_the_fix_the_setting_is():
    """`AWS_PROFILE=ops aws sts get-caller-identity && AWS_PROFILE=ops terraform plan`: the
    first step only shows who the setting makes you; the retry with the setting is the fix."""
    nocreds = ("Exit code: 1\nOutput:\nError: No valid credential sources found\n\n"
               "Please see https://registry.terraform.io/providers/hashicorp/aws for more "
               "information about providing credentials.")
    sessions = [_session(f"codex-{n}", [
        ("call", "terraform plan"), ("fail", nocreds),
        ("call", "AWS_PROFILE=ops aws sts get-caller-identity && AWS_PROFILE=ops terraform plan"),
        ("ok", "Plan: 2 to add, 0 to change, 0 to destroy.")], 10 * n) for n in (1, 2)]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.endswith("Fix: run `AWS_PROFILE=ops terraform plan`.")


def test_an_indented_error_label_takes_its_message_from_the_next_line():
    """testify indents its report under the test's name ("\\tError:      \\tReceived
    unexpected error:" over the error itself): the message below is the cause, read the
    same with the indentation kept (the review reads the raw output) as without it."""
    from dream.detect.failures import cause_line
    out = ("--- FAIL: TestInvoiceStore_Save (0.01s)\n    store_test.go:52: \n"
           "        \tError Trace:\t/home/kai/billing/internal/invoices/store_test.go:52\n"
           "        \tError:      \tReceived unexpected error:\n"
           "        \t            \tsave invoice: pq: relation \"invoices\" does not exist\n"
           "        \tTest:       \tTestInvoiceStore_Save\nFAIL\n"
           "FAIL\tgithub.com/kai/billing/internal/invoices\t0.091s")
    flat = "\n".join(" ".join(ln.split()) for ln in out.splitlines())
    for text in (out, flat):
        line = " ".join(cause_line(text).split())
        assert line == ("Error: Received unexpected error: save invoice: pq: relation "
                        "\"invoices\" does not exist")


def test_a_step_that_exited_with_its_argument_list_is_no_cause():
    """'Error: Command ['sh', '-c', 'pytest tests'] failed with code 4.' (cibuildwheel) and
    'error: Command ["gprbuild", "-P", "x.gpr"] exited with code 4' (alire) only say which
    step ended badly; the error above them is the cause."""
    from dream.detect.failures import cause_line
    out = ("Testing wheel...\n  ImportError while loading conftest '/project/tests/conftest.py'."
           "\n  E   ImportError: libpng16.so.16: cannot open shared object file: No such file or "
           "directory\n\nError: Command ['sh', '-c', 'python -m pytest /project/tests -q'] failed"
           " with code 4.\n")
    assert cause_line(out) == ("ImportError: libpng16.so.16: cannot open shared object file: No "
                               "such file or directory")
    gpr = ("src/geo.adb:12:4: error: \"Sqrt\" is undefined\n\n   compilation of geo.adb failed\n"
           "error: Command [\"gprbuild\", \"-s\", \"-P\", \"/home/ana/geo/geo.gpr\"] exited with "
           "code 4\nerror: Compilation failed.")
    assert cause_line(gpr).startswith("src/geo.adb:12:4: error: \"Sqrt\" is undefined")


def test_a_failure_whose_command_fell_in_an_earlier_bundle_does_not_stop_the_run():
    """A tool result that failed while its call is not in the bundle (the call was read by
    an earlier run, or the transcript starts mid-turn) has no command run behind it; the
    run goes on, and the failure seen in two sessions is still named by its cause."""
    missing = "Error: Cannot find module 'left-pad'\nRequire stack:\n- /srv/app/index.js"
    sessions = [_session("codex-1", [("user", "start the app again"), ("fail", missing),
                                     ("call", "npm test"), ("ok", "4 passing (31ms)")]),
                _session("codex-2", [("fail", missing), ("call", "npm test"),
                                     ("ok", "4 passing (29ms)")], 10)]
    assert _pitfalls(*sessions) == ["Fails with: Cannot find module 'left-pad'."]


def _regenerated(second_step: str, edit_first: bool = False) -> list[list[dict]]:
    """A build that cannot find a newly added source file, in two sessions; the step run
    right after the failure each time, then the tests (the build is not run again alone)."""
    def missing(name: str) -> str:
        return (f"Exit code: 1\nOutput:\nninja: error: 'src/codec/{name}.c', needed by "
                f"'libcodec.a.p/{name}.c.o', missing and no known rule to make it")
    first = _session("codex-1", [
        ("user", "add an opus frame parser to the codec lib"),
        ("call", "ninja -C build"), ("fail", missing("opus_frame")),
        ("call", "meson setup --reconfigure build"),
        ("ok", "Build targets in project: 4\nFound ninja-1.11.1"),
        ("call", "meson test -C build"), ("ok", "Ok: 12\nFail: 0")])
    turns = [("user", "now vorbis pages"), ("call", "ninja -C build"),
             ("fail", missing("vorbis_page"))]
    if edit_first:
        turns += [("call", "apply_patch *** Update File: meson.build"),
                  ("ok", "Success. Updated the following files:\nM meson.build")]
    turns += [("call", second_step), ("ok", "Build targets in project: 4"),
              ("call", "meson test -C build --print-errorlogs"), ("ok", "Ok: 14\nFail: 0")]
    return [first, _session("pi-2", turns, 20)]


def test_the_same_step_right_after_the_same_failure_in_two_sessions_is_its_fix():
    """No retry of the failing command shows the fix, but each session ran the same step
    right after it, and that worked: the step is what the failure needs."""
    [pitfall] = _pitfalls(*_regenerated("meson setup --reconfigure build"))
    assert pitfall.startswith("`ninja -C build` fails with: ninja: error:")
    assert pitfall.endswith("Fix: run `meson setup --reconfigure build`.")


def test_a_step_after_a_failure_is_no_fix_when_the_sessions_differ_or_the_code_changed_first():
    """Another step in the second session, or an edit of the code before the step: nothing
    shows the step fixed the failure."""
    for sessions in (_regenerated("meson configure build -Dopus=enabled"),
                     _regenerated("meson setup --reconfigure build", edit_first=True)):
        [pitfall] = _pitfalls(*sessions)
        assert "Fix:" not in pitfall


def test_a_build_and_rollout_whose_pods_cannot_start_is_no_way_to_work():
    """A chain that builds an image, restarts the deployment and lists the pods exits 0,
    but the listing shows the new pod could not pull its image: the chain did not do what
    it was for, so it is not how this project builds. The next chain, whose pods run, is."""
    listing = ("[+] Building 31.2s (12/12) FINISHED\ndeployment.apps/billing-web restarted\n"
               "NAME                           READY   STATUS             RESTARTS   AGE\n"
               "billing-web-7f9c6d5b8-2kq7x    0/1     {}   0          9s")
    cmds = _commands(_session("claude-1", [
        ("call", "docker build -t billing-web:local . && kubectl --context kind-billing "
                 "rollout restart deploy/billing-web && kubectl --context kind-billing get pods"),
        ("ok", listing.format("ImagePullBackOff")),
        ("call", "docker build -t billing-web:local . && kind load docker-image "
                 "billing-web:local --name billing"),
        ("ok", "[+] Building 2.1s (12/12) FINISHED\nImage: \"billing-web:local\" with ID "
               "\"sha256:4be1\" not yet present on node \"billing-control-plane\", loading...")]))
    assert not any("rollout restart" in c for c in cmds)
    assert any("docker build -t billing-web:local ." in c for c in cmds)


def test_a_failed_test_line_ending_in_what_it_raised_takes_the_raised_message_as_its_cause():
    """Pest names the failed test, ending the line with what it raised, and prints the
    message under it: the message is the cause (a class the autoloader does not know yet),
    the same in two sessions whatever class it names. A failed assertion keeps the test's
    line: nothing was raised."""
    from dream.detect import failures

    def failed(cls: str, test: str) -> str:
        return (f"Exit code 1\n   FAIL  Tests\\Feature\\{test}Test\n  ⨯ it prorates a plan "
                f"change  0.04s\n  ────────────\n   FAILED  Tests\\Feature\\{test}Test > it "
                f"prorates a plan change   Error\n  Class \"App\\Billing\\{cls}\" not found\n\n"
                f"  at tests/Feature/{test}Test.php:12\n\n  Tests:    1 failed, 88 passed")
    sessions = [_session(f"claude-{n}", [
        ("call", "php artisan test"), ("fail", failed(cls, test)),
        ("call", "composer dump-autoload -o"), ("ok", "Generated optimized autoload files"),
        ("call", "php artisan test"), ("ok", "Tests:    89 passed (240 assertions)")], 10 * n)
        for n, cls, test in ((1, "Proration", "Proration"), (2, "Dunning", "DunningMail"))]
    [pitfall] = _pitfalls(*sessions)
    assert pitfall.startswith('`php artisan test` fails with: Class "…" not found.')
    assert pitfall.endswith("Fix: run `composer dump-autoload -o`.")
    asserted = ("   FAILED  Tests\\Unit\\RoundingTest > it rounds half up\n  Failed asserting "
                "that 12701 is identical to 12700.\n\n  Tests:    1 failed")
    assert failures.cause_line(asserted).startswith("FAILED  Tests\\Unit\\RoundingTest")


def test_a_bare_step_failed_error_under_a_named_exception_is_named_by_the_exception():
    """A command line tool prints the exception that stopped it, then its own "Error:
    Failed to ..." for the step: the exception says why (a file lock another process holds),
    the bare error only which step stopped. A bare error alone is still the cause."""
    from dream.detect import failures

    locked = ("Exit code: 1\nOutput:\nsqlite3.OperationalError: database is locked (another "
              "writer holds /srv/etl/state.db)\n\nError: Failed to open the state store for "
              "pipeline 'nightly'.")
    assert failures.cause_line(locked).startswith("sqlite3.OperationalError: database is locked")
    alone = "Exit code: 1\nOutput:\nError: Failed to fetch the package index from the mirror."
    assert failures.cause_line(alone) == "Error: Failed to fetch the package index from the mirror."


def test_an_error_heading_that_only_points_elsewhere_takes_the_last_error_of_its_list():
    """"Fatal Error: (more in DEBUG output)" names nothing; the numbered list under it goes
    from the step that failed to what made it fail: the last item is the cause. A heading
    with its own message keeps it."""
    from dream.detect import failures

    out = ("[site] Static build v1.4.0\n[site] Build Fatal Error: (see the DEBUG log)\n"
           "[site] 1. Could not render template 'layouts/post.njk'. (via TemplateError)\n"
           "[site] 2. Filter 'readingTime' is not defined in nunjucks.config.js.\n\n"
           "Command exited with code 1")
    assert failures.cause_line(out) == ("Filter 'readingTime' is not defined in "
                                        "nunjucks.config.js.")
    own = ("[site] Build Fatal Error: template folder missing\n[site] 1. layouts/\n"
           "[site] 2. partials/")
    assert "template folder missing" in failures.cause_line(own)
