"""How to work here: the commands that install, configure, build, test, lint, format, run and
release a project, learned from what ran.

A command counts when a tool result shows it succeeded (:mod:`dream.detect.commands` reads
the shell calls of every coding agent as one), or when the user pasted it with their
shell prompt and the output pasted under it shows no failure. What a command is for comes
from known tools first (``uv run pytest``, ``mix credo``, ``cargo clippy``), then from its
own words (``dotnet test``, ``pnpm build``, ``make validate``, ``./manage.py test``,
``bin/rails db:migrate``). Commands that only add one dependency (``pnpm add x``) are a
change made once, not how to work. Each finding names the form the user asked for, else
the form run most often, with its toolchain and how often and in how many sessions it ran.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dream.detect.commands import CommandRun, by_session, chain, clean_command
from dream.detect.finding import Finding
from dream.items import Item

_PM = r"(?:npm|pnpm|yarn|bun)"
PURPOSES = [
    ("install", re.compile(
        _PM + r" (?:install|i|ci|add)\b|\buv (?:sync|add|pip install)\b|\bpip3? install\b|"
        r"\bpoetry (?:install|add)\b|\bmix (?:deps\.get|igniter\.install)\b|\bbundle install\b|"
        r"\bgo (?:mod (?:download|tidy)|get)\b|\bcargo (?:fetch|add)\b|\bmise install\b|"
        r"\bcomposer install\b|\bbrew install\b")),
    ("test", re.compile(
        r"\b(?:pytest|tox|nox|jest|vitest|mocha|rspec|phpunit|pest|ctest)\b|" + _PM +
        r" (?:run )?test\b|\bgo test\b|\bcargo (?:test|nextest)\b|\bmix test\b|"
        r"\bmake (?:test|check)\b|\b(?:mise|just|task) (?:run )?test\b|\bdeno test\b|"
        r"\bpython3? -m (?:pytest|unittest)\b|\bgradlew? test\b|\bmvn test\b")),
    ("lint", re.compile(
        r"\bruff check\b|\b(?:eslint|flake8|pylint|mypy|pyright|golangci-lint|shellcheck|standardrb|"
        r"rubocop|phpstan|staticcheck|tflint|hadolint|actionlint|"
        r"sobelow)\b|\bmix (?:credo|dialyzer|deps\.audit|compile --warnings-as-errors)\b|"
        r"\bcargo clippy\b|\bgo vet\b|\btsc --noEmit\b|\bbiome (?:check|lint)\b|\bpre-commit run\b|"
        + _PM +
        r" run (?:lint|check|typecheck)\b|\b(?:mise|just|task) (?:run )?lint\b|\bmake lint\b")),
    ("format", re.compile(
        r"\bruff format\b|\b(?:prettier|black|gofmt|goimports|rustfmt|pint)\b|\bcargo fmt\b|"
        r"\bmix format\b|" + _PM + r" run (?:format|fmt)\b|\b(?:mise|just|task) (?:run )?fmt\b|"
        r"\b(?:mise|just|task) (?:run )?format\b|\bmake fmt\b|\bbiome format\b")),
    ("build", re.compile(
        _PM + r" run build\b|\bcargo build\b|\bgo build\b|\bmix compile\b|\bmake(?: build)?$|"
        r"\bgradlew? build\b|\bmvn (?:package|install)\b|\bdocker build\b|\b(?:vite|next) build\b|"
        r"\b(?:mise|just|task) (?:run )?build\b|\buv build\b")),
    ("release", re.compile(
        _PM + r" (?:run )?(?:version|publish|release)\b|\bcargo publish\b|\bgoreleaser\b|"
        r"\b(?:mise|just|task) (?:run )?release\b|\bmake release\b")),
    ("tasks", re.compile(r"\bbd (?:create|ready|show|update|close|dep|list)\b|"
                         r"\bgh (?:issue|pr) create\b")),
    ("run", re.compile(
        r"\bmix phx\.server\b|\biex -S mix\b|" + _PM + r" (?:run )?(?:dev|start|serve)\b|"
        r"\bgo run\b|\bcargo run\b|\bnpx tsx\b|\buv run (?!pytest|ruff|mypy)\S+|"
        r"\bflask run\b|\buvicorn\b|\bdocker compose up\b|\brails s(?:erver)?\b")),
]
# read by words when no pattern above knows the tool: the subcommand that says what a
# command is for ("dotnet test", "pnpm build", "make validate", "./manage.py test",
# "cmake --build", "bin/rails db:migrate")
_VERBS = {
    "test": "test", "tests": "test", "spec": "test", "specs": "test", "e2e": "test",
    "lint": "lint", "check": "lint", "vet": "lint", "validate": "lint", "typecheck": "lint",
    "clippy": "lint", "credo": "lint", "rubocop": "lint", "analyze": "lint", "audit": "lint",
    "fmt": "format", "format": "format", "spotlessapply": "format", "prettier": "format",
    "build": "build", "--build": "build", "compile": "build", "assemble": "build",
    "package": "build", "bundle": "build",
    "install": "install", "restore": "install", "sync": "install", "deps.get": "install",
    "setup": "install", "bootstrap": "install",
    "migrate": "database", "db:migrate": "database", "db:setup": "database",
    "db:prepare": "database", "makemigrations": "database", "revision": "database",
    "upgrade": "database",
    "dev": "run", "start": "run", "serve": "run", "server": "run", "up": "run",
    "publish": "release", "release": "release",
    "ktlint": "lint", "detekt": "lint", "spotless": "format", "verify": "test",
    "plan": "lint", "template": "lint", "ecto.migrate": "database", "ecto.setup": "database",
}
# programs that read, search or move things around: never how to work on the project
_NOT_PROJECT = frozenset({
    "git", "cd", "ls", "cat", "echo", "grep", "rg", "find", "sed", "awk", "head", "tail",
    "ssh", "scp", "curl", "wget", "printf", "mkdir", "rm", "cp", "mv", "chmod", "chown",
    "touch", "which", "type", "pwd", "env", "export", "source", "diff", "wc", "sort", "xargs",
    "kill", "pkill", "ps", "sleep", "open", "code", "vim", "nano", "less", "tree", "jq",
    "get-childitem", "get-content", "select-string", "set-location", "test", "[", "true",
    "false", "gh", "opkg", "sudo", "apt", "apt-get", "uname", "whoami", "date", "du", "df"})
_CONFIGURE = re.compile(r"\bcmake\b(?=.*\s-B\s?\S)|^\./configure\b|\bmeson setup\b|"
                        r"\bautoreconf\b")
LABELS = {"install": "Install", "configure": "Configure", "test": "Test",
          "lint": "Lint and check", "format": "Format", "build": "Build",
          "database": "Migrate the database", "run": "Run", "release": "Release",
          "tasks": "Track tasks"}
_TAIL = re.compile(r"(?:\s*(?:2>&1|>\s*/dev/null|\|\s*(?:head|tail|grep|tee|less|cat)\b.*))+$")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
_TOOLCHAINS = ("uv", "pnpm", "npm", "yarn", "bun", "bunx", "npx", "mix", "go", "cargo", "mise",
               "make", "poetry", "pip", "bundle", "just", "task", "deno", "gradle", "gradlew",
               "mvn", "mvnw", "docker", "python", "python3", "pytest", "ruff", "iex", "brew",
               "bd", "gh", "dotnet", "cmake", "ctest", "terraform", "rake", "rails", "composer",
               "sbt", "stack", "cabal", "zig", "meson", "ninja", "nx", "turbo", "swift")


def purposes(command: str) -> list[tuple[str, str]]:
    """(purpose, the part of the command that has it) for each part of a command that
    installs, builds, tests, lints, formats or runs a project (``uv sync && uv run pytest``
    has two); empty for anything else (``git status``, ``ls``)."""
    out = []
    for part in chain(command):
        part = _ENV.sub("", _TAIL.sub("", part.strip()))
        if not part or part.startswith(("cd ", "echo ", "git ", "ls", "cat ")):
            continue
        call = inline_call(part)
        if call:                # what code run inline does is what its last call does
            name = _call_verb(call)
        else:
            name = "configure" if _CONFIGURE.search(part) else \
                next((n for n, rx in PURPOSES if rx.search(part)), None) or _by_words(part)
        if name and not (name == "install" and adds_package(part)):
            out.append((name, part))
    return out


_PROJECT_PMS = frozenset({"npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry", "cargo",
                          "gem", "composer", "dotnet", "deno", "mix", "go"})
_VALUE_FLAGS = frozenset({"-r", "--requirement", "-e", "--editable", "-c", "--constraint",
                          "--filter", "-F", "-w", "--workspace", "-p", "--package"})


def adds_package(part: str) -> bool:
    """A project's package manager adding one dependency (``pnpm add next-themes``, ``pip
    install requests``): a change made once, not how to work here. ``pnpm install``,
    ``pip install -r requirements.txt`` and ``uv pip install -e .`` set the project up;
    ``brew install gitleaks`` installs a tool on the machine; ``go get github.com/x/y`` and
    ``pnpm add @scope/pkg`` add one too (a path starts with ``.``, ``/`` or ``~``)."""
    words = part.split()
    if not words or words[0] not in _PROJECT_PMS:
        return False
    rest = words[1:]
    if rest[:1] == ["pip"]:
        rest = rest[1:]
    if not rest or rest[0] not in ("add", "install", "i", "get"):
        return False
    prev = ""
    for word in rest[1:]:
        if not word.startswith(("-", ".", "/", "~")) and prev not in _VALUE_FLAGS and \
                not word.endswith(("/", ".txt", ".toml", ".lock")):
            return True
        prev = word
    return False


# code a program is handed to run inline ("Rscript -e 'devtools::test()'", "julia -e 'using
# Pkg; Pkg.test()'", "python -c '...'"), and the functions it calls
_INLINE = re.compile(r"(?:^|\s)(?:-e|-c|-E|--eval|--execute)\s+(?P<q>[\"'])(?P<code>.+?)(?P=q)")
_CALL = re.compile(r"\b([A-Za-z_]\w*(?:(?:::|\.)\w+)*)\s*\(")


def inline_call(part: str) -> str | None:
    """The last function called by code run inline (``devtools::test``, ``Pkg.test``), or
    None when the command runs no inline code."""
    m = _INLINE.search(part)
    calls = _CALL.findall(m["code"]) if m else []
    return calls[-1] if calls else None


def _call_verb(call: str) -> str | None:
    """What a called function does, read from its own name, last part first
    (``renv::restore`` installs, ``devtools::check`` checks, ``install.packages`` installs)."""
    for part in reversed(re.split(r"::|\.", call.lower())):
        if part in _VERBS and part not in _FOLDER_NOUNS:
            return _VERBS[part]
    return None


# nouns that name a folder as often as a task: a purpose only right after the program ("rake
# spec"), an argument after another one ("stylua src spec", "isort src tests")
_FOLDER_NOUNS = frozenset({"spec", "specs", "tests", "e2e", "bundle", "package"})
# a program named after its job: "ansible-lint", "luacheck", "yamllint", "gofmt", "clang-format"
_NAMED_JOB = re.compile(r"(?:^|[-_])(lint|check|fmt|format|test)$|^[a-z]{2,}(lint|check|fmt)$")


def _by_words(part: str) -> str | None:
    """The purpose a command's own words give: a configure step, else a program named after
    its job, else the first known subcommand among the three words after the program
    (flags' values, paths and ``KEY=value`` skipped; a noun that also names a folder only
    as the first of them)."""
    words = part.split()
    name = words[0].rsplit("/", 1)[-1].lower() if words else ""
    if not words or name in _NOT_PROJECT:
        return None
    if _CONFIGURE.search(part):
        return "configure"
    script = re.sub(r"\.(?:sh|bash|py|ps1|cmd|bat)$", "", name)
    if "/" in words[0] and script in _VERBS:
        return _VERBS[script]       # ./scripts/test.sh, bin/lint, script/bootstrap
    job = _NAMED_JOB.search(script)
    if job:
        return _VERBS[job[1] or job[2]]
    seen = 0
    for word in words[1:]:
        low = word.lower()
        if low in _VERBS and (seen == 0 or low not in _FOLDER_NOUNS):
            return _VERBS[low]
        alias = re.match(r"^-\w+:([\w:-]+)$", low)     # an alias it runs: "clojure -M:lint"
        if alias and any(a in _VERBS for a in alias[1].split(":")):
            return next(_VERBS[a] for a in alias[1].split(":") if a in _VERBS)
        task = re.match(r"^:?(?:[\w-]+:)*([a-z]+)[A-Z]\w*$", word)
        if task and task[1] in _VERBS:      # Gradle's "testDebugUnitTest", ":app:ktlintCheck"
            return _VERBS[task[1]]
        if ":" in low and low.split(":")[0] in ("spotless", "ktlint", "detekt"):
            return _VERBS[low.split(":")[0]]    # Maven's "spotless:apply"
        if low.startswith("-") or "=" in low or "/" in low:
            continue
        seen += 1
        if seen >= 4:
            break
    return None


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
    seen: dict[tuple[str, str], list[tuple[str, CommandRun]]] = {}
    for runs in [*by_session(items).values(), pasted(items)]:
        for run in runs:
            if run.failed or _FAILED_OUTPUT.search((run.item.text or "")[:2000]):
                continue
            if set(_flags(run.command)) & once:
                continue            # run with a flag the user said is for this once
            for name, part in purposes(run.command) or by_output(run.command, run.item.text):
                # a task tracker's subcommands are one way of working: one line for them all
                key = part.split()[0] if name == "tasks" else command_key(part)
                seen.setdefault((name, key), []).append((_set_up(run.command, part) + part,
                                                         run))
    out = []
    for (name, key), ran in seen.items():
        forms = [p for p, _ in ran]
        agents = [p for p, r in ran if r.item.role != "user"]
        # the fullest form the user asked for, else the one the agent's shell ran most often
        example = max(set(forms), key=lambda f: (f in said, len(f) if f in said else 0,
                                                 agents.count(f), forms.count(f), -len(f), f))
        if len(example) > 100:
            example = key           # "bd create --title=... --description=...": its name
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
    by ``&&`` ('eval "$(luarocks path)" && '), or ''."""
    steps = chain(command)
    at = next((n for n, s in enumerate(steps) if part in s), 0)
    setup = [s for s in steps[:at] if _SETS_SHELL.match(s)]
    return "".join(f"{s} && " for s in setup)


# what a test runner or a checker prints when all went well, whatever the toolchain: "All 9
# tests passed", "24 tests, 0 failures", "7 successes / 0 failures", "Ran 14 tests",
# "[ FAIL 0 | WARN 0 | SKIP 1 | PASS 24 ]"; "errors: 0, warnings: 0", "0 failure(s), 0
# warning(s)", "Total: 0 warnings / 0 errors", "All checks passed"
_TESTS_PASSED = re.compile(
    r"\b\d+ (?:tests?|examples?|specs?|successes|assertions)\b[^\n]{0,40}?\b0 (?:failures?|failed"
    r"|errors?)\b|\b(?:all )?(?:\d+ )?tests? (?:passed|successful)\b|^\s*Ran \d+ tests?\b"
    r"|\bTests run: \d+, Failures: 0\b|\btest result: ok\b|\[ FAIL 0 \||^Test Summary:"
    r"|\b\d+ passed\b(?![^\n]*\bfailed)", re.I | re.M)
_CHECKED_CLEAN = re.compile(
    r"\b0 warnings?\b[^\n]{0,20}\b0 errors?\b|\b0 errors?\b[^\n]{0,20}\b0 warnings?\b"
    r"|\berrors: 0, warnings: 0\b|\b0 failure\(s\), 0 warning\(s\)|\bAll checks passed\b"
    r"|\bno (?:issues|problems|offenses) (?:found|detected)\b", re.I)


def by_output(command: str, output: str | None) -> list[tuple[str, str]]:
    """When a command's words say nothing of what it is for, what its successful output
    says: a test run's summary (``prove -lr t``: "All tests successful") or a checker's
    clean report (``clj-kondo``: "errors: 0, warnings: 0"). The step is the last one of
    the line that is no looking around and no program of the machine."""
    steps = [s for s in chain(command)
             if s.split() and s.split()[0].rsplit("/", 1)[-1].lower() not in _NOT_PROJECT]
    if not steps or "|" in steps[-1]:
        return []
    text = (output or "")[-3000:]
    part = _ENV.sub("", _TAIL.sub("", steps[-1]))
    if _TESTS_PASSED.search(text):
        return [("test", part)]
    if _CHECKED_CLEAN.search(text):
        return [("lint", part)]
    return []


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
            for sent in (i.text or "").splitlines():
                if _TEMPORARY.search(sent):
                    out.update(_flags(sent))
    return out


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
_FAILED_OUTPUT = re.compile(r"\b(?:FAILED|FAIL:|[1-9]\d* failed|error TS\d+|npm ERR!|"
                            r"npm error|command not found|Traceback \(most recent|panic:)")


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
    rejected = {t for r in rules for t in _rejected(str(r.fields.get("text", "")))}
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
