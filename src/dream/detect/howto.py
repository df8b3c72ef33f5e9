"""How to work here: the commands that install, configure, build, test, lint, format, run and
release a project, learned from what ran.

A command counts when a tool result shows it succeeded (:mod:`dream.detect.commands` reads
the shell calls of every coding agent as one), or when the user pasted it with their
shell prompt and the output pasted under it shows no failure. What a command is for comes
from known tools first (``uv run pytest``, ``mix credo``, ``cargo clippy``), then from its
own words (``dotnet test``, ``pnpm build``, ``make validate``, ``./manage.py test``,
``bin/rails db:migrate``) or its output (:mod:`dream.detect.purpose`). Commands that only add one dependency (``pnpm add x``) are a
change made once, not how to work. Each finding names the form the user asked for, else
the form run most often, with its toolchain and how often and in how many sessions it ran.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect import failures, objections, rule_lang
from dream.detect.commands import (
    CommandRun,
    by_session,
    chain,
    clean_command,
    local_copy,
    not_found,
)
from dream.detect.finding import Finding
from dream.detect.purpose import (  # noqa: F401  (PURPOSES, purposes: read through howto too)
    _ENV,
    _TAIL,
    _VERBS,
    PURPOSES,
    adds_package,
    by_output,
    inline_call,
    purposes,
    session,
    sets_version,
)
from dream.items import Item

LABELS = {"install": "Install", "configure": "Configure", "test": "Test",
          "lint": "Lint and check", "format": "Format", "build": "Build",
          "database": "Migrate the database", "run": "Run", "release": "Release",
          "tasks": "Track tasks"}
_TOOLCHAINS = ("uv", "pnpm", "npm", "yarn", "bun", "bunx", "npx", "mix", "go", "cargo", "mise",
               "make", "poetry", "pip", "bundle", "just", "task", "deno", "gradle", "gradlew",
               "mvn", "mvnw", "docker", "python", "python3", "pytest", "ruff", "iex", "brew",
               "bd", "gh", "dotnet", "cmake", "ctest", "terraform", "rake", "rails", "composer",
               "sbt", "stack", "cabal", "zig", "meson", "ninja", "nx", "turbo", "swift")


def toolchain(command: str) -> str:
    first = command.split()[0].rsplit("/", 1)[-1] if command.split() else ""
    return {"gradlew": "gradle", "mvnw": "mvn"}.get(first, first) if first in _TOOLCHAINS \
        else ""


_SETTINGS = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+")


def command_key(part: str) -> str:
    """The words of a command that name what it does, without paths, files and flags'
    values: ``go test ./cmd/...`` and ``go test ./...`` are one command."""
    words = []
    # settings in front of the program are not what it does: "NX_DAEMON=false npx nx test"
    part = _SETTINGS.sub("", part.strip()) or part
    call = inline_call(part)
    if call:                    # "julia Pkg.test", "Rscript renv::restore"
        return f"{part.split()[0].removeprefix('./')} {call}"
    named = session(part)
    if named:                   # "nox -s docs" and "nox -s tests-3.12" are two commands;
        # "nox -s tests" and "nox -s tests-3.12" one, on another Python
        return f"{part.split()[0].removeprefix('./')} {re.sub(r'-?[0-9][0-9.]*$', '', named) or named}"
    for n, w in enumerate(part.split()):
        if n == 0:
            words.append(w)         # the program itself: ./gradlew, bin/rails, rebar3
            continue
        if w in ("--build",):
            words.append(w)         # "cmake --build": the flag is what it does
            continue
        if w == "--" and n:
            continue                # "opam exec -- dune fmt": what runs comes after it
        if w[:1] in "'\"" and n and not part.split()[n - 1].startswith("-"):
            inner = w.strip("'\"").split()
            words += inner[:1]      # ssh host "opkg remove x": what runs on the other end
            break
        if "/" in w or "." in w.strip(".") and not re.match(r"^[a-z]+\.[a-z_]+$", w) or \
                w.startswith(("-", "'", '"', "$")) or re.search(r"\d", w) or "=" in w:
            break
        words.append(w)
        if len(words) == 4:
            break
    if len(words) > 1 and words[0] in ("python", "python3"):
        words = words[1:]           # "python manage.py test" and "./manage.py test" are one
    if words:
        words[0] = words[0].removeprefix("./")
    for n, w in enumerate(words[1:], 1):
        if _VERBS.get(w.lower()) not in (None, "install"):
            words = words[:n + 1]   # "manage.py test appointments": what it does ends there
            break
    return " ".join(words) or part.split()[0]


def how_to_work(items: Sequence[Item]) -> list[Finding]:
    """The commands that install, build, test, lint, format and run the project, learned
    from shell commands whose tool results show they succeeded, each with its toolchain and
    how often and in how many sessions it ran."""
    # what the user asked for, not what they pasted from their own shell ("$ ./bin/suite")
    said = " ".join(" ".join(ln.split()) for i in items
                    if i.evidence and i.role == "user" and i.kind == "statement"
                    for ln in (i.text or "").splitlines() if not _PROMPT_LINE.match(ln))
    once = temporary_flags(items)
    told = [sent for i in items if i.evidence and i.role == "user" and i.kind == "statement"
            for sent in _SENTENCE_END.split(i.text or "")]
    # what the user said no to right after it ran is the agent's mistake, not how to work
    refused = objections.objected(items, command_key)
    sessions = by_session(items)
    # programs the shell could not find: a path to one of them is the project's own wrapper
    missing = {p for runs in sessions.values() for r in runs if r.failed
               for p in not_found(r.item.text)}
    # what a flagged failure of a command said: a run of that command printing it again
    # failed too, its exit hidden by a pipe ("brew install x 2>&1 | tail -5")
    failed_with = {(command_key(part), cause) for runs in sessions.values() for r in runs
                   if r.failed and failures.names_error(
                       cause := failures.cause_line(r.item.text or ""))
                   for part in chain(r.command)}
    seen: dict[tuple[str, str], list[tuple[str, CommandRun]]] = {}
    for runs in [*sessions.values(), pasted(items)]:
        for run in runs:
            if run.failed or _FAILED_OUTPUT.search((run.item.text or "")[:2000]):
                continue
            if failed_with and (cause := failures.cause_line(run.item.text or "")) and \
                    any((command_key(part), cause) in failed_with for part in chain(run.command)):
                continue
            if set(_flags(run.command)) & once:
                continue            # run with a flag the user said is for this once
            for name, part in purposes(run.command) or by_output(run.command, run.item.text) \
                    or _said_for(run.command, told):
                # a task tracker's subcommands are one way of working: one line for them all
                key = part.split()[0] if name == "tasks" else command_key(part)
                if refused and objections.covers(refused, command_key(part)) and \
                        not local_copy(part, missing):
                    continue
                seen.setdefault((name, key), []).append((_procedure(run.command, part) or
                                                         _set_up(run.command, part) + part, run))
    out = []
    for (name, key), ran in seen.items():
        forms = [p for p, _ in ran]
        agents = [p for p, r in ran if r.item.role != "user"]
        # the fullest form the user asked for, else the one the agent's shell ran most often
        example = max(set(forms), key=lambda f: (f in said, len(f) if f in said else 0,
                                                 agents.count(f), forms.count(f), -len(f), f))
        if len(example) > 100:      # too long to read: without its settings, else its name
            bare = _ENV.sub("", example)    # ("bd create --title=... --description=...")
            example = bare if len(bare) <= 100 and " && " not in bare else key
        sessions = len({r.item.stream for _, r in ran})
        tool = toolchain(example)
        shown = f"`{example}`"
        if name == "tasks":         # bd create, bd ready, bd dep add: each by its name
            keys = [command_key(f) for f in forms]
            shown = ", ".join(f"`{k}`" for k in sorted(set(keys), key=lambda k: (-keys.count(k),
                                                                               k))[:4])
        fields = {"text": f"{LABELS[name]}: {shown}", "type": "command",
                  "purpose": name, "toolchain": tool,
                  "said": f"{_n(len(ran), 'time')} in {_n(sessions, 'session')}"}
        out.append(Finding("command", fields, [r.item.id for _, r in ran][-5:],
                           name=f"command {name} {key}"))
    return out


# a step that sets up the shell for the steps after it: 'eval "$(luarocks path)"', "source
# .venv/bin/activate", ". ./env.sh", "export X=1"
_SETS_SHELL = re.compile(r"^(?:eval|source|\.|export)\s+\S")


def _set_up(command: str, part: str) -> str:
    """The steps before ``part`` in its chain that set the shell up for it, each followed
    by ``&&`` ('eval "$(luarocks path)" && '), and the settings it ran with in front of it
    ("PYSPARK_PYTHON=.venv/bin/python "): how it worked, as it ran; or ''. A setting whose
    value is a secret is not shown."""
    steps = chain(command)
    at = next((n for n, s in enumerate(steps) if part in s), 0)
    setup = [s for s in steps[:at] if _SETS_SHELL.match(s)]
    settings = _ENV.match(steps[at]) if steps else None
    shown = [w for w in (settings[0].split() if settings else [])
             if not _SECRET_SETTING.search(w)]
    return "".join(f"{s} && " for s in setup) + "".join(f"{w} " for w in shown)


# a setting that carries a secret: a name that says so, or a value the scrubber replaced
_SECRET_SETTING = re.compile(r"^\w*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)=|"
                             r"\[REDACTED", re.I)


def _procedure(command: str, part: str) -> str | None:
    """A chain of one program's subcommands of which only ``part`` has a known purpose, run
    as one procedure (``./sqitch deploy && ./sqitch verify && ./sqitch rebase --onto @HEAD^
    -y``, ``colcon test ... && colcon test-result --verbose``): the steps before and after it
    are how it is done, shown whole with the steps that set the shell up when that is short
    enough to read; None otherwise."""
    steps = chain(command)
    if len(steps) < 2 or command.count("&&") != len(steps) - 1:
        return None             # ";" or "||": steps that need not follow each other
    setup = [s for s in steps if _SETS_SHELL.match(s)]
    own = [_TAIL.sub("", s).strip() for s in steps if not _SETS_SHELL.match(s)]
    if len(own) < 2 or len({s.split()[0] for s in own if s.split()}) != 1 or \
            steps.index(next(s for s in steps if not _SETS_SHELL.match(s))) < len(setup):
        return None
    if len(purposes(" && ".join(own))) != 1 or _TAIL.sub("", part).strip() not in own or \
            any(sets_version(s) for s in own):
        return None             # "npm version 2.4.0 && npm run version:sync": a one-off value
    whole = " && ".join(setup + own)
    return whole if len(whole) <= 100 else None     # too long to read: the step alone


# said of one moment: "for this one", "right now", "drop it once they fix that", "tomorrow"
_TEMPORARY = re.compile(r"\b(?:for now|right now|for this (?:one|time|pr|change|run)|this time"
                        r"|at the moment|today|tomorrow|later|until|drop it|once (?:they|we|it"
                        r"|that|this)\b)", re.I)


def _flags(text: str) -> list[str]:
    return [f.rstrip(".,;:") for f in re.findall(r"(?<![\w/-])--?[A-Za-z][\w.=:-]*", text)]


def temporary_flags(items: Sequence[Item]) -> set[str]:
    """Flags the user named in a sentence about one moment ("skip the javadoc for this one,
    -Dmaven.javadoc.skip=true", "the --keep_going is only because main is broken right
    now"): a command run with one of them is a workaround of that day, not how to work."""
    out: set[str] = set()
    for i in items:
        if i.evidence and i.role == "user" and i.kind == "statement":
            for sent in _SENTENCE_END.split(i.text or ""):
                if _TEMPORARY.search(sent) or rule_lang.one_off(sent):
                    out.update(_flags(sent))
    return out


# where one sentence ends and the next begins, whatever the case of its first letter ("locally
# just `nox -s tests-3.12`, CI runs the whole matrix. there's also a warning, ignore that for
# now"): a moment named in one sentence says nothing of the flags of another
# ("//legacy/... is broken right now": an ellipsis in a path ends no sentence)
_SENTENCE_END = re.compile(r"(?<=[\w`'\")][.!?])\s+(?=\S)|\n+")


# the words with which a user says what a command they name is for ("build only: `pio run -e
# esp32dev`", "format before you finish: `npx lix run formatter -s src`")
_JOB_WORDS = {"build": "build", "builds": "build", "compile": "build", "test": "test",
              "tests": "test", "format": "format", "lint": "lint", "validate": "lint",
              "typecheck": "lint"}


def _said_for(command: str, told: list[str]) -> list[tuple[str, str]]:
    """The purpose the user gave a command whose own words say none: a sentence of theirs
    that names the command (its program and next word, as it ran) and says what it is for
    in a word of its own ("build with latexmk -lualatex main.tex")."""
    steps = [s for s in chain(command) if not _SETS_SHELL.match(s)]
    if len(steps) != 1 or len(steps[0].split()) < 2:
        return []
    part = steps[0]
    words = part.split()
    # through a runner ("bundle exec fastlane match", "uv run pytest -q") the program is the
    # word after it: the head is that program and its next word
    skip = 2 if len(words) > 3 and words[1] in ("exec", "run") else 0
    head = " ".join(words[:skip + 2])
    for sent in told:
        at = sent.find(head)
        if at < 0 or re.search(r"\b(?:not|never|don'?t|no)\b", sent[:at], re.I):
            continue            # "don't build with make": what not to run
        rest = (sent[:at] + " " + sent[at + len(part):]).lower()
        jobs = {_JOB_WORDS[w] for w in re.findall(r"[a-z]+", rest) if w in _JOB_WORDS}
        if len(jobs) == 1:
            return [(jobs.pop(), part)]
    return []


# a shell prompt a user pasted with the command they ran ("➜  repo git:(main) ✗ npx tsx
# src/cli.ts", "$ make test", "ana@box:~/src$ go test ./...")
_PROMPT_LINE = re.compile(r"^\s*(?:(?:➜|❯|λ|›)\s+\S+(?:\s+git:\([^)]*\))?(?:\s+[✗✔])?|\$"
                          r"|[\w.-]+@[\w.-]+:[~/]\S*\s*[$#])\s+(?P<cmd>\S.*)$")


def pasted(items: Sequence[Item]) -> list[CommandRun]:
    """Commands the user ran in their own terminal and pasted with the prompt, each with
    the output pasted under it: it failed when that output says so."""
    out = []
    for item in items:
        if not (item.evidence and item.role == "user" and item.kind == "statement"):
            continue
        lines = (item.text or "").splitlines()
        for n, line in enumerate(lines):
            m = _PROMPT_LINE.match(line)
            if not m:
                continue
            below = []
            for later in lines[n + 1:n + 40]:
                if _PROMPT_LINE.match(later):
                    break
                below.append(later)
            output = "\n".join(below)
            failed = bool(_FAILED_OUTPUT.search(output) or _PASTED_ERROR.search(output))
            out.append(CommandRun(clean_command(m["cmd"]), item, failed))
    return out


_PASTED_ERROR = re.compile(r"^\s*(?:\w*Error\b|error\b|fatal\b|panic:|Exception\b)", re.M)
# (a container the cluster could not start, listed by the ``kubectl get pods`` chained after
# a build and a rollout: the chain exited 0, but what it was for did not work)
_FAILED_OUTPUT = re.compile(r"\b(?:FAILED|FAIL:|[1-9]\d* failed|error TS\d+|npm ERR!|"
                            r"npm error|command not found|Traceback \(most recent|panic:"
                            r"|ErrImagePull|ImagePullBackOff|CrashLoopBackOff"
                            r"|CreateContainerConfigError)")


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


_TERM = r"`?([\w.:/@+-]+(?:\s+[a-z][\w:-]*)?)`?"
_REJECTS = [re.compile(p, re.I) for p in (
    r"\b(?:don'?t|do not|never|stop|no longer)\s+(?:use|using|run|running|call|calling|install"
    r"|installing)\s+(?:the\s+|a\s+)?" + _TERM,
    r"(?:^|[,;—–-]\s*)no\s+" + _TERM + r"\s+(?:please|to|here|in|for)\b",
    r"\b(?:not|never)\s+`?([\w.:/@+-]+)`?\s*(?:[.;,)]|$)",
    r"\binstead of\s+(?:using\s+)?`?([\w.:/@+-]+)`?",
)]
_NOT_A_TERM = frozenset({"here", "there", "directly", "anymore", "again", "ever", "in", "to",
                         "for", "on", "it", "this", "that", "the", "a", "any", "anything",
                         "globally", "locally", "by", "with", "unless", "when", "if"})


def _rejected(rule: str) -> list[str]:
    """What a rule says not to run, as said: "don't run cargo update" -> "cargo update",
    "don't use npx in this repo" -> "npx", "use X, not rubocop" -> "rubocop"."""
    out = []
    for pattern in _REJECTS:
        for m in pattern.finditer(rule):
            words = m[1].lower().rstrip(".:,;").split()
            while words and words[-1] in _NOT_A_TERM:
                words.pop()
            if words and words[0] not in _NOT_A_TERM and len(words[0]) > 1:
                out.append(" ".join(words))
    return out


def without_rejected(found: list[Finding], rules: list[Finding]) -> list[Finding]:
    """Commands without those a rule of the user rejects ("we don't use rubocop directly",
    "don't use npx here"): a command whose program or one of whose words is a rejected term
    is no way to work here."""
    rejected = {t for r in rules for text in [str(r.fields.get("text", ""))]
                for t in _rejected(text) + rule_lang.rejected(text)}
    if not rejected:
        return found
    out = []
    for f in found:
        shown = [" ".join(w.rsplit("/", 1)[-1] for w in c.lower().split())
                 for c in re.findall(r"`([^`]+)`", str(f.fields.get("text", "")))]
        if f.kind == "command" and any(re.search(r"(?<!\S)" + re.escape(t) + r"(?!\S)", c)
                                       for c in shown for t in rejected):
            continue                # "not rubocop": `bundle exec rubocop`; "cargo update"
        out.append(f)
    return out
