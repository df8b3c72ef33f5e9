"""How a session fixed a failing shell command: the step between the failure and a retry
that worked, a wrapper that made the same command work (``pytest`` -> ``uv run pytest``), the
same command with a flag added, another tool doing the same job (``npm install`` -> ``pnpm
install``), or the install of what the failure says is missing (:func:`fix_of`); and whether
a fix is no guess (:func:`shows`). Used by :mod:`dream.detect.pitfalls`.
"""

from __future__ import annotations

import re

from dream.detect import commands, failures, howto, noise, objections, shell
from dream.detect.commands import CommandRun

REJECTED_CALL = re.compile(r"Sibling tool call errored|doesn'?t want to proceed with this tool"
                           r"|tool use was rejected|Request interrupted|interrupted by the user"
                           r"|^\s*(?:exec command|patch) rejected by user\s*$",
                           re.I)
# the last line Pi writes under the output of a command the user stopped (Esc)
_ABORTED = re.compile(r"\n\s*Command aborted\s*$|^\s*Command aborted\s*$")


def interrupted(text: str | None) -> bool:
    """A call that never ran or that the user stopped: refused, interrupted (Claude Code's
    "Request interrupted"), or aborted while it ran (Pi's last line "Command aborted"); its
    output says nothing of the project."""
    return bool(REJECTED_CALL.search((text or "")[:400]) or _ABORTED.search(text or ""))
_INSTALL = re.compile(r"\b(?:install|add|sync|get|ci|fetch|restore|upgrade)\b")
FIX_WINDOW = 8
# a tool that is not there: the next install that works is what was done about it
_MISSING = re.compile(r"command not found|not recognized as|not installed|[\w-]+ not found$",
                      re.I)
# an error in the code being changed: a pitfall only when it recurs across sessions
CODE_ERROR = re.compile(
    r"error TS\d+|error\[E\d+\]|\b(?:Syntax|Type|Reference|Name|Attribute|Assertion|Key|"
    r"Index|Value)Error\b|is not assignable|does not exist on type|has no exported member|"
    r"Cannot find module '\.|cannot find symbol|undefined: \w+|expected .* found|"
    r"undefined function|no method named|cannot find value")
# a failure that says how the machine or the project is set up: a pitfall the first time
ENVIRONMENT = re.compile(
    r"command not found|not recognized as|is not recognized|not installed|bfg not found"
    r"|[\w-]+ not found$|could not resolve|no such host|name or service not known"
    r"|permission denied|password is required|terminal is required|operation not permitted"
    r"|timed out|could not lock|already locked|unable to lock|connection (?:to \S+ )?refused"
    r"|depend(?:s|ed|ency|encies) (?:on|upon)|no space left|is being used by another"
    r"|ignored by one of your \.gitignore|address already in use|EADDRINUSE|port is already allocated"
    r"|cannot connect to the docker daemon|is the docker daemon running|docker daemon"
    r"|could not read username|authentication failed|permission to \S+ denied"
    r"|externally[- ]managed|unsupported engine|requires node|python_requires"
    r"|no matching version|version .* is required|wrong architecture|exec format error"
    r"|requires a different python|index\.lock|state lock|frozen-lockfile|lockfile .*not up to date"
    r"|not up to date with|executable doesn't exist|UNSUPPORTED_ENGINE", re.I)
# installing a system package: what the machine lacked ("apt-get install libssl-dev")
SYSTEM_INSTALL = re.compile(r"\b(?:apt(?:-get)?|brew|dnf|yum|apk|pacman|zypper|choco|winget|port)"
                            r"\s+(?:-\S+\s+)*(?:install|add|-S)\b")


# a step that asks for root or changes the machine's own packages
PRIVILEGED = re.compile(r"^\s*(?:sudo|doas|su)\b|" + SYSTEM_INSTALL.pattern)
# a failure that says something the command needs is not there ("Package DataFrames not found
# in current path", "there is no package called 'devtools'", "Program ocamlformat not found")
_LACKS = re.compile(r"\bnot found\b|\bno (?:package|module|such \w+) (?:called|named)\b"
                    r"|\bnot installed\b|\bis missing\b|\bmissing (?:module|package|dependenc)"
                    r"|\bcan(?:no|')t (?:locate|find)\b|\bunable to (?:locate|find)\b"
                    r"|\bcould not (?:locate|find)\b|\bout[- ]of[- ]sync\b|\bdoes not exist\b", re.I)


def provided(runs: list[CommandRun], cause: str, by_session: dict[str, list[CommandRun]]
             ) -> bool:
    """A failure that said something was missing, then a step that set it up, then the same
    command working: how a fresh checkout of this project must be set up, worth knowing
    after one time (``Pkg.test()`` fails, ``Pkg.instantiate()``, ``Pkg.test()`` passes)."""
    if not runs or not _LACKS.search(cause) or CODE_ERROR.search(cause):
        return False
    run = runs[0]
    key = howto.command_key(_last_part(run.command))
    after = [r for r in by_session.get(run.item.stream, []) if r.item.seq > run.item.seq]
    between = []
    for later in after[:FIX_WINDOW]:
        if REJECTED_CALL.search((later.item.text or "")[:400]):
            continue            # refused by the user: it never ran
        if howto.command_key(_last_part(later.command)) == key:
            chained = [p for p in shell.chain(later.command)[:-1] if shell.changes(p)]
            return not later.failed and (any(not r.failed for r in between) or bool(chained))
        if shell.changes(later.command):
            between.append(later)
    return False


def fix(runs: list[CommandRun], by_session: dict[str, list[CommandRun]],
        refused: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The step that fixed the failures of ``runs``: the shortest one found after any of
    them, or, when different commands failed (three or more), the one found after two of
    them alike (``docker compose up -d`` after ``artisan test``, ``artisan migrate`` and
    ``pest``). ``refused`` are the command prefixes the user objected to
    (:func:`dream.detect.objections.objected`): none of them is a fix."""
    tried = {r.command for r in runs}
    pairs = [(r, f) for r in runs
             if (f := fix_of(r, by_session.get(r.item.stream, []), tried, refused))
             and not undone(f, r, by_session.get(r.item.stream, []))]
    fixes = [f for _, f in pairs]
    if not fixes:
        return None
    scattered = len({howto.command_key(shell.failing_step(r.command)) for r in runs}) >= 3
    if not scattered:
        return min(fixes, key=len)
    keys = [howto.command_key(shell.chain(f)[-1]) for f in fixes]
    common = [f for f, k in zip(fixes, keys) if keys.count(k) >= 2]
    if common:
        return min(common, key=len)
    # each failing command run again as it was by one other program ("./sqitch status" for
    # "sqitch status", "./sqitch add x" for "sqitch add x"): that program is the fix
    swaps = [_last_part(f).split()[0] for r, f in pairs if _swapped(f, r.command)]
    return max(swaps, key=swaps.count) if swaps and max(map(swaps.count, swaps)) >= 2 \
        else None


# a step and the one that takes it back: the same command with its verb turned round
_TAKEN_BACK = {"install": "uninstall", "add": "remove", "enable": "disable", "link": "unlink"}


def undone(fix: str, failing: CommandRun, runs: list[CommandRun]) -> bool:
    """A fix the session took back later: a step of it run again with its verb turned round
    (``arduino-cli core install arduino:avr`` ... ``arduino-cli core uninstall arduino:avr``,
    ``npm link`` ... ``npm unlink``), or the folder it made removed (``mkdir -p ~/cache`` ...
    ``rm -rf ~/cache``). The step worked, but the session did not keep it (the user said it
    was the wrong way, and it went on another way): it is not what fixes the failure."""
    # only what ran after the fix's own run: 'rm -rf build && mkdir -p build' does not take
    # itself back, nor does an 'rm' run before the 'mkdir'
    own = [r.item.seq for r in runs if r.item.seq > failing.item.seq and not r.failed
           and fix in r.command]
    since = max(own, default=failing.item.seq)
    later = [p for r in runs if r.item.seq > since and not r.failed
             for p in shell.chain(r.command)]
    for step in shell.chain(fix):
        words = step.split()
        for n, verb in enumerate(words[:3]):
            back = _TAKEN_BACK.get(verb)
            if back and n and " ".join([*words[:n], back, *words[n + 1:]]) in later:
                return True
        if words[:1] == ["mkdir"]:
            made = {w for w in words[1:] if not w.startswith("-")}
            if any(p.split()[:1] == ["rm"] and made & set(p.split()[1:]) for p in later):
                return True
    return False


def _swapped(fix: str, failing: str) -> bool:
    """The failing command again, word for word, by another program (``./sqitch status``
    for ``sqitch status``)."""
    a, b = _last_part(fix).split(), _last_part(failing).split()
    return len(a) == len(b) >= 1 and a[0] != b[0] and a[1:] == b[1:]


def named_by(fix: str, run: CommandRun) -> bool:
    """The failure's output names the step (two of its words in a row: "To update
    maven_install.json, please run: REPIN=1 bazel run @unpinned_maven//:pin")."""
    text = " ".join(noise.strip_ansi(run.item.text or "")[:2000].lower().split())
    for step in shell.chain(fix):
        words = [w for w in step.lower().split() if not w.startswith("-") and "=" not in w]
        if any(f"{a} {b}" in text for a, b in zip(words, words[1:])):
            return True
    return False


def shows(fix: str, run: CommandRun) -> bool:
    """A fix that is no guess: the failure names it ("Please run \"prisma generate\"", "to
    update it: go mod tidy"), or it is the same program through a runner or another tool
    for the same job (``pytest`` -> ``uv run pytest``, ``pip install`` -> ``uv add``)."""
    return named_by(fix, run) or _wraps(fix, run.command) or _replaces(fix, run.command) or \
        _flag_named(fix, run)


def _flag_named(fix: str, run: CommandRun) -> bool:
    """The fix is the failing command with a flag added that the failure's output names as
    a flag ("you can adjust the project root with the --root argument"): the output said
    what to add. A word that is also a flag's name ("lualatex" for ``-lualatex``) is not
    enough: it may name a program, not the flag."""
    step = re.split(r"\s+\|\s+|\s+2>&1|\s+>\s", _last_part(fix))[0]    # its output piped on
    if not _retries(step, run.command):
        return False
    text = noise.strip_ansi(run.item.text or "")[:3000].lower()
    for flag in flags(fix) - flags(run.command):
        name = flag.split("=", 1)[0].lower()
        if len(name.lstrip("-")) >= 4 and re.search(r"(?<![\w-])" + re.escape(name) +
                                                    r"(?![\w-])", text):
            return True
    return False


def fix_of(failing: CommandRun, runs: list[CommandRun],
           tried: set[str] | frozenset[str] = frozenset(),
           refused: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The step of the session that made a failing command work (see the module text);
    ``tried`` are commands that failed the same way, so none of them is the fix, nor is a
    step the user objected to (``refused``). The search ends at the first retry of the
    failing command that worked, or that got past this cause to fail otherwise: then what
    changed before it (a flag added, a step between) is the fix, and when nothing but the
    code changed, there is none."""
    after = [r for r in runs if r.item.seq > failing.item.seq][:FIX_WINDOW]
    key = howto.command_key(_last_part(failing.command))
    cause = failures.cause_line(failing.item.text)
    past = failures.signature(failing.item.text)
    missing = commands.not_found(failing.item.text)
    for n, run in enumerate(after):
        if REJECTED_CALL.search((run.item.text or "")[:400]):
            continue            # the user refused it: it never ran
        if refused and any(objections.covers(refused, howto.command_key(p)) and
                           not commands.local_copy(p, missing) for p in shell.chain(run.command)):
            continue            # the user said no to it: the agent's mistake, not the fix
        parts = shell.chain(run.command)
        if run.failed and parts and len(run.command) <= 160 and \
                failures.signature(run.item.text) != past:
            if any(ENVIRONMENT.search(line)
                   for line in (run.item.text or "")[:1500].splitlines()):
                # the same command again got past this cause to stop at a set-up step (a
                # busy daemon, a host not found): a step that worked in between is what got
                # it past ("reindeer buckify", then "buck2 test" timed out on its daemon);
                # without one, the search goes on
                if parts[-1].strip() == _last_part(failing.command).strip() and \
                        _steps_between(after[:n], refused):
                    fix = _before_retry(n, run, parts, len(parts) - 1, after, failing, key,
                                        refused)
                    return fix if fix not in tried else None
            else:
                # got past this cause and failed in the code (a test, a compile error), not
                # at another step of the set-up ("drush: command not found", then
                # "getaddrinfo failed")
                if _retries(parts[-1], failing.command):    # the retry got past this cause
                    fix = _before_retry(n, run, parts, len(parts) - 1, after, failing, key,
                                        refused)
                    return fix if fix not in tried else None
                fix = _does_the_job(parts, failing)
                if fix and fix not in tried:
                    return fix  # "./scripts/test.sh" did what "odin test" could not
        if run.failed or len(run.command) > 160 or shell.edits(run.command):
            continue
        # (a retry with a flag put before its subcommand counts after a step chained
        # before it: "jpm -l deps && jpm -l test")
        retried = [i for i, p in enumerate(parts) if _retries(p, failing.command) or
                   i and _flagged_retry(p, failing.command)]
        if retried:
            fix = _before_retry(n, run, parts, retried[0], after, failing, key, refused)
            return fix if fix not in tried else None
        fix = _instead(run, failing, cause)
        if fix and fix not in tried:
            return fix
    return None


def chained_before_retry(fix: str, runs: list[CommandRun],
                         by_session: dict[str, list[CommandRun]],
                         flag: bool = False) -> list[CommandRun]:
    """The failing runs whose very next command ran the fix chained right before the
    failing command again, or (with ``flag``) was the failing command with a flag added,
    and worked
    (``make`` failed, ``make clean && make`` built; ``cargo test`` failed to link,
    ``cargo test --no-default-features`` passed)."""
    out = []
    for run in runs:
        later = [r for r in by_session.get(run.item.stream, []) if r.item.seq > run.item.seq]
        if not later or later[0].failed or interrupted(later[0].item.text):
            continue
        parts = shell.chain(later[0].command)
        if len(parts) >= 2 and (_retries(parts[-1], run.command) or
                                _flagged_retry(parts[-1], run.command)) and \
                " && ".join(parts[:-1]) == fix:
            out.append(later[0])
        elif flag and later[0].command == fix and flags(fix) - flags(run.command) and \
                _options_only(fix, run.command) and len(shell.chain(run.command)) == 1:
            out.append(later[0])    # only a flag added: "cargo test --no-default-features"
    return out


def _before_retry(n: int, run: CommandRun, parts: list[str], at: int, after: list[CommandRun],
                  failing: CommandRun, key: str,
                  refused: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The fix shown by a retry that worked: the steps chained before it (``uv sync &&
    uv run pytest``), the retry itself when it only added a flag or changed a message, else
    the first step between the failure and the retry that can change something."""
    # (a step the failing command already ran first is no fix: "source env.sh && twister"
    # failed, the code was edited, the same chain worked)
    ran = set(shell.chain(failing.command))
    # a setting the retry adds, and a step chained before it run with the same setting
    # ("AWS_PROFILE=dev aws sts get-caller-identity && AWS_PROFILE=dev terragrunt plan"):
    # that step tries the setting out, the setting is the fix
    setting = _settings(parts[at]) - _settings(failing.command)
    ran |= {p for p in parts[:at] if setting and setting <= _settings(p)}
    steps = _steps_between(after[:n], refused)
    named = [r.command for r in steps if named_by(r.command, failing)]
    if named:
        # the step the failure itself said to run ("Did you run packer init for this
        # project ?"), then the retry, whatever the retry chained before itself (a check:
        # "packer fmt -check -diff . && packer validate .")
        return named[0]
    before = [p for p in parts[:at] if shell.changes(p) and p not in ran]
    if before:      # and the retry itself when it ran on something else ("branch=origin/main")
        return " && ".join(before + ([parts[at]] if _other_values(parts[at], failing.command)
                                     else []))
    if parts[at].split()[:1] != _last_part(failing.command).split()[:1] and not steps:
        return parts[at]        # the program called another way: "./sqitch add" for "sqitch add"
    if _settings(run.command) - _settings(failing.command) and \
            _options_only(run.command, failing.command):
        # "PULUMI_CONFIG_PASSPHRASE_FILE=~/.config/pulumi/dev.pass pulumi preview": the
        # setting the retry added is what made it work, whatever ran in between
        return run.command
    added = flags(run.command) - flags(failing.command)
    if added and " " in key or n == 0 and _options_only(run.command, failing.command):
        return run.command
    return steps[0].command if steps else None


def _steps_between(runs: list[CommandRun], refused: set[str] | frozenset[str]
                   ) -> list[CommandRun]:
    """The steps that worked and can change something, among ``runs``, the user neither
    refused nor objected to."""
    return [r for r in runs if not r.failed and shell.changes(r.command)
            and not REJECTED_CALL.search((r.item.text or "")[:400])
            and not objections.covers(refused, howto.command_key(r.command))]


def _instead(run: CommandRun, failing: CommandRun, cause: str) -> str | None:
    """A command that did what the failing one could not: the same program through a runner,
    another tool or the project's own script for the same job (the step of a chain that
    does it), or the install of what the failure names."""
    done = _does_the_job(shell.chain(run.command), failing)
    if done:
        return done
    if _script_runs(run, failing.command):
        return run.command      # "npm run test:ci" echoed "> CHROME_BIN=... ng test ..."
    if ENVIRONMENT.search(cause) and "install" in _jobs(run.command) & _jobs(failing.command):
        return run.command      # "pip install x" refused by the machine; "uv add y" worked
    words = set(re.findall(r"[a-z][\w-]{2,}", run.command.lower()))   # "ocamlformat.0.26.2"
    if shell.looks(run.command) or commands.program(run.command) in ("git", "gh"):
        return None             # "git add": no install
    if _INSTALL.search(run.command) and (_MISSING.search(cause) or words & set(
            re.findall(r"[a-z][\w-]{2,}", cause.lower()))):
        return run.command
    return None


def _retries(part: str, failing: str) -> bool:
    """A step that runs the failing command again: the same command key, and when the key
    is the program alone (``godot --headless -s tests.gd`` / ``godot --headless --import``),
    the same words that are no flags: what it runs on."""
    key = howto.command_key(_last_part(failing))
    if howto.command_key(part) != key:
        return False
    return " " in key or _positional(part) == _positional(_last_part(failing))


def _flagged_retry(part: str, failing: str) -> bool:
    """The failing command again with a flag put before its subcommand ("jpm -l test" for
    "jpm test", "npm --prefix web test" is not: the flag takes a value): the same program
    and the same words that are no flags, in the same order."""
    words = _last_part(failing).split()
    return " " in howto.command_key(_last_part(failing)) and \
        part.split()[:1] == words[:1] and _positional(part) == _positional(_last_part(failing))


def _other_values(retry: str, failing: str) -> bool:
    """The retry gives a flag or an argument another value than the failing command did
    (``--against .git#branch=origin/main`` for ``...=main``), not only more flags."""
    def values(cmd: str) -> set[str]:
        return {w for w in re.findall(r"\"[^\"]*\"|'[^']*'|\S+", cmd) if not w.startswith("-")}
    return bool(values(retry) - values(_last_part(failing))) and \
        bool(values(_last_part(failing)) - values(retry))


def _positional(command: str) -> list[str]:
    return [w for w in command.split()[1:] if not w.startswith("-") and "=" not in w]


def _does_the_job(parts: list[str], failing: CommandRun) -> str | None:
    """The step of a chain that runs the failing command's program through a runner, or
    another tool or the project's own script for the same job."""
    for part in parts:
        if shell.looks(part):
            continue            # "which -a mkdocs" runs nothing: it looks where mkdocs is
        if _wraps(part, failing.command) or _replaces(part, failing.command) or \
                _project_script(part, failing.command):
            return part
    return None


def _project_script(part: str, failing: str) -> bool:
    """A script of the project (``./scripts/test.sh``, ``bin/lint``) for the job a tool
    called directly failed at (``odin test tests``): the project's way to run it."""
    program = part.split()[0] if part.split() else ""
    step = _last_part(failing)
    if not re.match(r"^(?:\./|(?:scripts?|bin|tools?|ci)/)[\w./-]+$", program) or \
            step.split()[:1] == [program]:
        return False
    return bool({p for p, _ in howto.purposes(part)} & {p for p, _ in howto.purposes(step)})


# a package manager running a script of the project ("npm run test:e2e", "pnpm test",
# "yarn lint", "bun run check"), and the lines it echoes before the script's output: npm's
# and pnpm's "> name@1.0.0 test:e2e" / "> start-server-and-test dev ... 'cypress run'",
# yarn's and bun's "$ ng test --watch=false"
_SCRIPT_CALL = re.compile(r"^(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?[\w:.-]+(?:\s|$)")
_ECHOED = re.compile(r"^(?:>|\$) (?!\S+@\d[\w.-]* )(?P<cmd>\S.*)$", re.M)
_NAMED_BY_PM = re.compile(r"^>\s+\S+@\d[\w.-]*\s+\S+|^(?:yarn|bun) run v?\d", re.M)
_PM_RUNNERS = frozenset({"npx", "pnpx", "bunx", "exec", "dlx", "pnpm", "yarn", "npm", "bun", "--"})


def _script_runs(run: CommandRun, failing: str) -> bool:
    """A script of the project run through its package manager (``npm run test:ci``) whose
    echoed command line runs the failing program with the same subcommand (``ng test``,
    ``cypress run``): the project's own way to run what failed called directly (``npx ng
    test``), with what it sets up around it (``CHROME_BIN=...``, a dev server started
    first). Only what the package manager printed says so, never the script's name."""
    step = _last_part(failing)
    words = [w for w in step.split() if "=" not in w.split("/")[0]]
    while words and (words[0] in _PM_RUNNERS or words[0].startswith("-")) and len(words) > 1:
        words = words[1:]
    if not words or not _SCRIPT_CALL.match(_last_part(run.command)) or \
            _SCRIPT_CALL.match(step):
        return False
    name = words[0].rsplit("/", 1)[-1]
    sub = words[1] if len(words) > 1 and re.match(r"^[a-z][\w:-]*$", words[1]) else ""
    text = noise.strip_ansi(run.item.text or "")[:1500]
    if not _NAMED_BY_PM.search(text):
        return False
    said = r"(?<![\w.-])" + re.escape(name) + r"(?![\w.-])" + (
        r"\s+(?:-\S+\s+)*" + re.escape(sub) + r"\b" if sub else "")
    return any(re.search(said, m["cmd"]) for m in _ECHOED.finditer(text[:600]))


def _options_only(run: str, failing: str) -> bool:
    """Two forms of one command that differ only in flags, the values given to flags
    (``-m "feat: ..."``) and ``KEY=value`` settings: not in what they run on."""
    def options(cmd: str) -> tuple[set[str], list[str]]:
        words = re.findall(r"\"[^\"]*\"|'[^']*'|\S+", _last_part(cmd))
        flags, rest = set(), []
        for n, w in enumerate(words):
            if w.startswith("-") or "=" in w or n and words[n - 1].startswith("-") and \
                    w[:1] in "\"'":
                flags.add(w)
            else:
                rest.append(w)
        return flags, rest
    fa, ra = options(run)
    fb, rb = options(failing)
    return ra == rb and fa != fb


def _last_part(command: str) -> str:
    parts = shell.chain(command)
    return parts[-1] if parts else command


def _settings(command: str) -> set[str]:
    """The ``KEY=value`` settings a command runs with (``FOO=1 make``, ``env FOO=1 make``)."""
    return set(re.findall(r"(?:^|(?<=\s))([A-Z_][A-Z0-9_]*=\S*)", _last_part(command)))


def flags(command: str) -> set[str]:
    """The flags of a command (``-u``, ``--profile``, ``--frozen-lockfile``)."""
    return set(re.findall(r"(?<!\S)--?[a-zA-Z][\w=-]*", command))


# the words with which a program runs another in its environment ("mise exec --", "nix run")
_HANDS_ON = frozenset({"exec", "run", "x", "dlx", "--"})
_RUNNERS = frozenset({"uv", "poetry", "bundle", "npx", "bunx", "pnpm", "yarn", "pipenv", "hatch",
                      "nix", "docker", "python", "python3", "mise", "rye", "pdm"})


def _wraps(run: str, failing: str) -> bool:
    """``uv run pytest -q`` wraps ``pytest -q``: the same program through a runner, or the
    whole failing command run by another program (``direnv exec . make -C tb``), a program
    being the same whatever folder it is called from (``vendor/bin/drush`` is ``drush``)."""
    inner, outer = _last_part(failing).split(), _unquoted(_last_part(run))
    if not inner or inner[0] in _RUNNERS or outer[:1] == inner[:1] or len(outer) < 2:
        return False
    prefix = outer[:-len(inner)]
    if len(outer) > len(inner) and outer[-len(inner):] == inner and \
            not PRIVILEGED.match(" ".join(outer)) and not _INSTALL.search(" ".join(prefix)) and \
            (len(inner) >= 2 or _HANDS_ON & set(prefix)):
        return True             # "direnv exec . make -C tb" ran "make -C tb" as it was
    inner = [inner[0].rsplit("/", 1)[-1], *inner[1:]]
    if outer[:1] == inner[:1]:
        return False
    if len(inner) >= 2 and not inner[1].startswith("-") and \
            re.search(r"/|\.\w{1,4}$", inner[1]) and \
            not any(a == inner[0] and b == inner[1] for a, b in zip(outer, outer[1:])):
        # "php bin/console x": the script is what runs, the interpreter only reads it; a
        # command that hands "php" another script ("symfony php bin/phpunit") wraps nothing
        return False
    # a known runner, any program the failing one is handed to ("fvm flutter test"), or one
    # that runs it in its environment ("carton exec prove", "opam exec -- dune test")
    at = outer.index(inner[0]) if inner[0] in outer[1:6] else 0
    return outer[0] in _RUNNERS and 0 < at < 4 or outer[1] == inner[0] or at > 0 and all(
        w in _HANDS_ON or w.startswith("-") or outer[n].startswith("-")
        for n, w in enumerate(outer[1:at]))     # "conda run -n app pytest": a flag's value


def _unquoted(command: str) -> list[str]:
    """The words of a command, a quoted last argument read as the command it hands on
    (``kas-container shell kas.yml -c 'bitbake -c install app'``, ``sh -c "make test"``)."""
    words = command.split()
    m = re.search(r"""\s(?P<q>['"])(?P<inner>[^'"]+)(?P=q)\s*$""", command)
    if m and len(m["inner"].split()) >= 2 and not shell.looks(command):   # echo "make test"
        words = command[:m.start()].split() + m["inner"].split()
    if words[:1] in (["docker"], ["podman"]) and words[1:2] == ["compose"]:
        # "docker compose run --rm flyway migrate" is "docker-compose run ...": one program
        words = [f"{words[0]}-compose", *words[2:]]
    return words


def _replaces(run: str, failing: str) -> bool:
    """``pnpm install`` does what ``npm install`` failed to: another program, the same
    purpose, and the same subcommand or the same argument."""
    a, b = _last_part(run).split(), _last_part(failing).split()
    if len(a) < 2 or len(b) < 2 or a[0] == b[0]:
        return False
    if a[1:] == b[1:]:
        return True             # the same arguments to another program: ./mvnw for mvn
    same_purpose = _jobs(run) & _jobs(failing)
    args = {w for w in a[1:] if not w.startswith("-")} & {w for w in b[1:]
                                                         if not w.startswith("-")}
    return bool(same_purpose and (a[1] == b[1] or args - {"install", "add", "run", "test"}))


def _jobs(command: str) -> set[str]:
    """What a command is for, adding one package counted as installing."""
    return {name for name, rx in howto.PURPOSES if rx.search(_last_part(command))}
