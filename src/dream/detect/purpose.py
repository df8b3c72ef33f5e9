"""What a command is for (install, configure, build, test, lint, format, run, release), read
from what it says: a known tool first (``uv run pytest``, ``mix credo``), then the code it runs
inline (``Rscript -e 'devtools::test()'``), a program named after its job (``ansible-lint``),
its subcommand or an alias in a flag (``dotnet test``, ``clojure -M:lint``); when its words say
nothing, its successful output (a test run's or a checker's clean summary). Used by
:mod:`dream.detect.howto`.
"""

from __future__ import annotations

import re

from dream.detect.commands import chain

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
                        r"\bautoreconf\b|^(?:\./|\S*/)?autogen\.sh\b")
# (it does not start just after a space or after an output redirection: a match from there
# would have been found from one of them already, and trying again rescanned the rest of the
# command from each character)
_TAIL = re.compile(r"(?<!\s)(?<!2>&1)(?<!>/dev/null)(?<!> /dev/null)"
                   r"(?:\s*+(?:2>&1|>\s*+/dev/null|\|\s*+(?:head|tail|grep|tee|less|cat)\b.*))+$")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")

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
        named = session(part)
        if call:                # what code run inline does is what its last call does
            name = _call_verb(call)
        elif named:             # "tox -e lint": what the session's name says, else tests
            name = _VERBS.get(re.split(r"[-_:.]", named.lower())[0]) or "test"
        else:
            name = "configure" if _CONFIGURE.search(part) else \
                next((n for n, rx in PURPOSES if rx.search(part)), None) or _by_words(part)
        if name and not (name == "install" and adds_package(part)) and \
                not sets_version(part):
            out.append((name, part))
    return out


# a package manager setting the project's version ("npm version 2.4.0 --no-git-tag-version",
# "yarn version --new-version 1.3.0", "poetry version minor"): a change made once, like
# adding one dependency, not how to work (the project's script for it, "npm run
# version:sync", is)
_SETS_VERSION = re.compile(r"^(?:npm|pnpm|yarn|bun|poetry|hatch|uv)\s+version\s+"
                           r"(?:--?[\w-]+(?:[ =](?=\d))?\s*)*"
                           r"(?:v?\d+\.\d+\S*|(?:pre)?(?:major|minor|patch)|prerelease|"
                           r"--bump\s+\w+)(?:\s|$)")


def sets_version(part: str) -> bool:
    """A package manager setting the project's version to one value (``npm version patch``)."""
    return bool(_SETS_VERSION.match(part.strip()))


# a runner of named sessions (``tox -e lint``, ``nox -s tests-3.12``): the session is what runs
_SESSION = re.compile(r"^(?:\S*/)?(?:tox|nox)(?:\s+-\S+)*?\s+(?:-e|-s|--session|--sessions|-k)"
                      r"[\s=](?P<name>[\w.:-]+)")


def session(part: str) -> str | None:
    """The session a runner of named sessions is told to run (``nox -s docs`` -> ``docs``,
    ``tox -e py312`` -> ``py312``), or None."""
    m = _SESSION.match(part.strip())
    return m["name"] if m else None


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
_NAMED_JOB = re.compile(r"(?:^|[-_])(lint|check|fmt|format|tests?)$|^[a-z]{2,}(lint|check|fmt)$")
# a flag that tells a program to run a job ("Unity -batchmode -runTests", "--run-tests")
_RUN_FLAG = re.compile(r"^--?run[-_]?([a-z]+)$")


# a target named by what it does to something: the verb written after its object
_JOINED_VERB = re.compile(r"^[a-z]{3,}[-_.]?(check|lint|test|tests|build|fmt|format)$")


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
        joined = _JOINED_VERB.match(low)
        if joined and seen == 0:    # "make linkcheck", "make htmltest", "task docs-build"
            return _VERBS[joined[1]]
        alias = re.match(r"^-\w+:([\w:-]+)$", low)     # an alias it runs: "clojure -M:lint"
        if alias and any(a in _VERBS for a in alias[1].split(":")):
            return next(_VERBS[a] for a in alias[1].split(":") if a in _VERBS)
        task = re.match(r"^:?(?:[\w-]+:)*([a-z]+)[A-Z]\w*$", word)
        if task and task[1] in _VERBS:      # Gradle's "testDebugUnitTest", ":app:ktlintCheck"
            return _VERBS[task[1]]
        if ":" in low and low.split(":")[0] in ("spotless", "ktlint", "detekt"):
            return _VERBS[low.split(":")[0]]    # Maven's "spotless:apply"
        run_flag = _RUN_FLAG.match(low)
        if run_flag and run_flag[1] in _VERBS:
            return _VERBS[run_flag[1]]
        if low.startswith("-") or "=" in low or "/" in low:
            continue
        seen += 1
        if seen >= 4:
            break
    return None


# what a test runner or a checker prints when all went well, whatever the toolchain: "All 9
# tests passed", "24 tests, 0 failures", "7 successes / 0 failures", "Ran 14 tests",
# "[ FAIL 0 | WARN 0 | SKIP 1 | PASS 24 ]"; "errors: 0, warnings: 0", "0 failure(s), 0
# warning(s)", "Total: 0 warnings / 0 errors", "All checks passed"
_TESTS_PASSED = re.compile(
    r"\b\d+ (?:tests?|examples?|specs?|successes|assertions)\b[^\n]{0,40}?\b0 (?:failures?|failed"
    r"|errors?)\b|\b(?:all )?(?:\d+ )?tests? (?:passed|successful)\b|^\s*Ran \d+ tests?\b"
    r"|\bTests run: \d+, Failures: 0\b|\btest result: ok\b|\[ FAIL 0 \||^Test Summary:"
    r"|\b\d+ passed\b(?![^\n]*\bfailed)|\b\d+ passed, 0 failed\b", re.I | re.M)
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
