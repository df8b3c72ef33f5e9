"""How a shell line and its output are shown in a note: the step of a chain that failed,
the command cut before its one-off values, the cause line without its location or log
prefix, and a warning the output repeats. Used by :mod:`dream.detect.pitfalls`.
"""

from __future__ import annotations

import re

from dream.detect import commands, howto, noise

# read-only steps between a failure and its retry fix nothing
_LOOKING = frozenset({"ls", "cat", "head", "tail", "grep", "rg", "find", "git", "echo", "pwd",
                      "which", "type", "less", "wc", "tree", "sed", "awk", "diff", "env",
                      "printenv", "get-childitem", "get-content", "select-string", "jq",
                      # what the machine is doing: ports, processes, files held open
                      "ss", "netstat", "lsof", "ps", "pgrep", "top", "id", "stat", "file",
                      "df", "du", "uname", "whoami", "cd"})
# a step that edits the code (Codex's patch tool, a file rewritten in place or from a
# heredoc): the failure was fixed in the code, not by a step to remember
_EDITS = re.compile(r"^(?:apply_patch\b|patch\s|sed\s+-i|perl\s+-pi)")
# output written into a file ("printf -- '-Xmx4G' > .jvmopts"): a setting made, not a look
_WRITES = re.compile(r"(?<![2&])>>?\s*(?!/dev/null|&)[\w.~/-]+|\|\s*tee\s+(?:-a\s+)?[\w.~/-]")


_WARN_LINE = re.compile(r"^\W*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\s*(?:AM|PM)?\]?\s*)?(?:WRN|WARN|"
                        r"WARNING|warning)\b[:\s]*(?P<what>.+)$")


def warned(text: str) -> str | None:
    """A warning the failing output repeats at least three times ("Invalid .gitleaksignore
    entry fingerprint=..."), with how often: often the reason behind the failure."""
    seen: dict[str, list[str]] = {}
    for line in noise.strip_ansi(text or "").splitlines():
        m = _WARN_LINE.match(line.strip())
        if m:
            what = " ".join(m["what"].split())
            seen.setdefault(re.sub(r"=\S*", "=", what), []).append(what)
    if not seen:
        return None
    key, lines = max(seen.items(), key=lambda kv: len(kv[1]))
    return f"warned {len(lines)} times: {lines[0][:80]}" if len(lines) >= 3 else None


_LOCATION = re.compile(r"^(?:[\w.@+\\/~-]+?(?:\(\d+(?:,\d+)?\)|(?::\d+)*:\([^)]*\)|(?::\d+)+"
                       r"(?:,\d+(?:-\d+)?)?"                 # HCL: "x.hcl:3,1-25: "
                       r"(?::in [`'][^`'\n]{1,80}')?)):\s+"   # Ruby: "x.rb:304:in `require': "
                       r"|^\S+\.(?:csproj|fsproj|vbproj|sln|vcxproj)\s+:\s+|^[│|║]\s*"
                       r"|^(?:[\w./-]+:)?\d+:\d+\s+(?:-\s+)?(?=error\b)")
_LOG_PREFIX = re.compile(r"^(?:npm (?:ERR!|error|WARN)|yarn (?:error|warn)|pnpm:?|Error:|Caused by:"
                         r"|(?:CRITICAL|FATAL|ERROR)(?=\s)"
                         r"|Error response from daemon:|\[[\d:/.]+:(?:ERROR|FATAL):[^\]]*\]|\[(?:error|"
                         r"ERROR|stderr)\]|E\s{2,}|\*\s+[\w.]+:|[✖✗✘×❌]\s*)\s*")
# the header a logger writes before each line: bracketed tags, a time (with a date before it),
# the level, and the logger's tag or name ("02 12 2026 09:14:37.415:ERROR [launcher]: ",
# "[core.test] 10:27:40.105 [pool-1-thread-1] ERROR org.testcontainers.Factory - ")
_LOG_HEADER = re.compile(r"^(?:\[[^\]]*\]\s*)*(?:\d{1,4}[-/ .]\d{1,2}[-/ .]\d{2,4}[ T])?"
                         r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\s*:?\s*"
                         r"(?:\[[^\]]*\]\s*)*(?:ERROR|FATAL|CRITICAL|SEVERE)\b:?\s*"
                         r"(?:\[[^\]]*\]:?\s*)?(?:[\w.$]+\s+-\s+)?")
# the shell naming itself in front of what it says ("/bin/bash: line 1: sqitch: command not
# found", "sh: 1: kas: not found")
_SHELL_SAID = re.compile(r"^(?:/[\w/]*/)?(?:ba|z|da|k)?sh: (?:line )?\d*:?\s*(?=\S+: )")
_MODULE = re.compile(r"^(?:[a-z_][a-z0-9_]*\.)+(?=[A-Z]\w*(?:Error|Exception)\b)")
_PROJECT_TAG = re.compile(r"\s+\[[^\]\s]+\.(?:sln|csproj|fsproj|vcxproj)\]$")


# (it starts where a run of spaces starts, the leftmost place the search would find anyway)
_QUERY = re.compile(r"(?<!\s)\s*+\((?:[^()]*?,\s*+)?SQL: .*$")
# the figures of this one time, after a dash, behind a cause said in words: what was asked
# for and what there was ("-- req: 32 GB; avail: 15.5 GB")
_FIGURES = re.compile(r"(?<=[a-z])\s+--?\s+(?:[\w.]+\s*[:=]\s*[\d.,]+\s*[A-Za-z%]{0,3}\s*[;,]?\s*)+$")


_LONG_PATH = re.compile(r"(?<![\w`])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[^\s/`'\"]+){3,}/?")
# a user's home folder at the start of a path ("/Users/ana/", "/home/jonas/"): the account
# of one machine, the same place as "~/" on every other
_HOME = re.compile(r"(?<![\w.~-])/(?:Users|home)/[^/\s`'\"]+/")


def _short_path(m: re.Match[str]) -> str:
    """A long path as its last part ("…/gradle.properties"), or the folder it is in when
    that is long too ("a file under …/downloads")."""
    if len(m[0]) <= 40:
        return m[0]
    parts = m[0].rstrip("/.").split("/")
    if len(parts[-1]) <= 30:
        return f"…/{parts[-1]}"
    return f"a file under …/{parts[-2]}" if 0 < len(parts[-2]) <= 30 else "a file"


def shown_cause(line: str, limit: int = 160) -> str:
    """A cause line as a reader wants it: without its file location (``x.ts(3,4): ``,
    ``codec.cpp:(.text+0x1a4): ``), the tool's log prefix (``npm ERR!``) or the project
    tag MSBuild appends, a path in the user's home folder from ``~/``; cut at a sentence
    end, else a word, before ``limit``."""
    text = _LOG_PREFIX.sub("", _LOCATION.sub("", _SHELL_SAID.sub("", _LOG_HEADER.sub(
        "", line.strip()))))
    text = _MODULE.sub("", text)        # "django.db.utils.OperationalError" -> its class
    text = _PROJECT_TAG.sub("", text).replace(" [recovered]", "").strip()
    text = " ".join(text.split())
    text = _QUERY.sub("", text)         # "... Connection refused (Connection: mysql, SQL: ...)"
    text = _FIGURES.sub("", text)       # "... available memory -- req: 32 GB; avail: 15.5 GB"
    text = _HOME.sub("~/", _LONG_PATH.sub(_short_path, text))
    end = text.rfind(". ")
    if end > 20 and len(text[end + 2:].split()) <= 3 and not text.endswith((".", "!", ")")):
        text = text[:end + 1]           # "... operable program. Check" (a wrapped line)
    if len(text) <= limit:
        return text
    # "driver failed programming ... on endpoint x (3f9c): Bind for 0.0.0.0:5433 failed: port is
    # already allocated": the clauses at the end say what went wrong
    tails = [text[m.end():] for m in re.finditer(r":\s+", text)]
    fitting = [t for t in tails if 25 <= len(t) <= limit]
    if fitting and not fitting[0].startswith(("/", "http")):
        # with the clause that opens the line, when it says what failed in words of its own
        # ("There were errors in the external links: … operation timed out")
        first = text[:re.search(r":\s+", text).start()]
        if len(first.split()) >= 4 and not re.search(r"[/\\]|\d", first) and \
                len(first) + len(fitting[0]) + 4 <= limit:
            return f"{first}: … {fitting[0]}"
        return fitting[0]
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    if end >= limit // 3:
        return cut[:end]
    return cut.rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


chain = commands.chain


_QUIET = frozenset({"cd", "echo", "tail", "head", "grep", "true", "sleep", "printf", "wc"})


def failing_step(command: str, cause: str = "", fix: str | None = None) -> str:
    """The step of a chain that failed: the one whose program the cause names, else the last
    step that does something (not ``cd``, ``echo``, ``git status``), else the step the fix
    repeats."""
    steps = chain(command)
    if len(steps) <= 1:
        return command
    for step in steps:
        if commands.program(step) and re.search(r"(?<![\w.])" + re.escape(
                commands.program(step)) + r"\b(?![./-]\w)", cause):     # not "buf.build/..."
            return step
    for step in steps:                  # "git commit" when the cause says "Commit blocked"
        words = step.split()
        if len(words) > 1 and len(words[1]) > 3 and re.search(
                r"\b" + re.escape(words[1]), cause, re.I):
            return step
    doing = [s for s in steps if not looks(s)]
    if doing:
        return doing[-1]
    if fix:
        key = howto.command_key(chain(fix)[-1]).split()[:2]
        for step in steps:
            if howto.command_key(step).split()[:2] == key:
                return step
    return steps[-1]


def changes(step: str) -> bool:
    """A step that can change how a command behaves: neither looking around nor an edit of
    the code, or one that writes its output into a file (a setting)."""
    return bool(_WRITES.search(step)) and not step.lstrip().startswith("apply_patch") or \
        not looks(step) and not edits(step)


def edits(step: str) -> bool:
    """A step that changes files of the code (``apply_patch <<'EOF'``, ``sed -i ...``)."""
    return bool(_EDITS.match(step.strip()))


def looks(step: str) -> bool:
    """A step that only looks (``ls``, ``cat``, ``git status``, also run over ``ssh``) or
    says something."""
    remote = re.match(r"^ssh\s+(?:-\S+\s+(?:\S+\s+)?)*\S+\s+[\"'](.*?)[\"']?$", step)
    if remote:
        step = chain(remote[1])[-1] if remote[1] else step
    prog = commands.program(step).lower()
    words = step.split()
    if len(words) == 2 and re.match(r"^(?:--?version|-v|version)$", words[1]):
        return True             # "java -version", "node --version": asks what is installed
    return prog in _QUIET or prog in _LOOKING and (prog != "git" or len(words) > 1 and
                                                   words[1] in _GIT_LOOKS)


_GIT_LOOKS = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "remote",
                        "ls-files", "blame"})
NOT_THERE = re.compile(r"No such file or directory|cannot find path|does not exist|"
                        r"cannot access", re.I)


# the flags that hand a program code to run: their value is the command, not a one-off
_CODE_FLAGS = frozenset({"-e", "-c", "-E", "--eval", "--execute"})


def _key_of(word: str) -> str:
    """The ``name=`` a word gives a value to (``ubuntu-latest=`` in ``ubuntu-latest=
    catthehacker/ubuntu:act-22.04``), or ''."""
    m = re.match(r"^-{0,2}[\w.-]+=(?=\S*/)", word)
    return m[0] if m and "/" not in m[0] else ""


# one test file of the code ("cypress/e2e/giftcard.cy.ts", "tests/test_invoice.py",
# "internal/db/conn_test.go", "spec/models/user_spec.rb", "src/Cart.test.tsx"): what was being
# worked on that day, not part of how the command is run
_TEST_FILE = re.compile(r"^(?:[\w.@~-]*/)*(?:test_[\w-]+|[\w-]+_(?:test|spec)|[\w-]+(?:\.[\w-]+)*"
                        r"\.(?:test|spec|cy|e2e)|[A-Z]\w*Tests?)\.(?:py|[cm]?[jt]sx?|go|rb|rs|php"
                        r"|java|kt|ex|exs|dart|swift|cs)(?::\d+|::\S+)?$")


# a flag whose value is the file to run on ("--spec", "--test", "-f"): it goes with the file
_FILE_FLAG = re.compile(r"^--?(?:specs?|tests?|files?|paths?)$")


def _without_test_files(words: list[str]) -> list[str]:
    """The words of a command without the one test file it was run on, with the flag that
    names it (``--spec cypress/e2e/giftcard.cy.ts``) and a ``--`` left with nothing after
    it: ``npx cypress run``, ``npm run test:e2e``, ``python -m pytest -q``. The program's own
    script (``python manage.py test``) is no such file."""
    out: list[str] = []
    for n, word in enumerate(words):
        if n >= 2 and _TEST_FILE.match(word):
            if len(out) >= 2 and _FILE_FLAG.match(out[-1]):
                out.pop()
            continue
        out.append(word)
    while len(out) > 1 and out[-1] == "--":
        out.pop()
    return out


def shown_command(command: str, limit: int = 60, values: bool = False) -> str:
    """A command as it ran, cut before its one-off arguments: a quoted value of a flag
    (``git commit -m "..."``) and what comes after it are left out, a quoted argument is
    kept (``ssh host "opkg remove x"``) but cut at a word, and the whole stays within
    ``limit`` characters with no flag left without its value."""
    part = re.split(r"\s+\|\s+|\s+2>&1|\s+>\s", command.strip())[0].strip()
    words = re.findall(r"\"[^\"]*\"?|'[^']*'?|\S+", part)
    if words and words[0].startswith(("/", "~")) and len(words[0]) > 30:
        # a program called by the whole path of one install ("/home/dani/Unity/Hub/Editor/
        # 2022.3.41f1/Editor/Unity"): its name says which, the flags after it what it did
        words[0] = "…/" + words[0].rsplit("/", 1)[-1]
    words = _without_test_files(words)
    out: list[str] = []
    for word in words:
        quoted = word[:1] in "\"'"
        if quoted and out and out[-1].startswith("-") and not values and \
                out[-1] not in _CODE_FLAGS:
            out.pop()                   # -m "message": a one-off value, and its flag
            break
        room = limit - len(" ".join(out)) - 1
        if len(word) > room:
            if quoted and room > 12:
                cut = word[1:room - 1].rsplit(" ", 1)[0]
                cut = re.sub(r"(?:\s*(?:&&|\|\||;|\|))+$", "", cut)
                out.append(word[0] + cut + word[0])
            elif "/" in word and not quoted and len(_key_of(word) + word.rsplit("/", 1)[-1]) \
                    + 2 <= room:
                # a long path: its file, after the name it is given to ("-P ubuntu-latest=…/
                # ubuntu:act-22.04": the setting is what the flag says, the path only its value)
                out.append(_key_of(word) + "…/" + word.rsplit("/", 1)[-1])
            elif out and out[-1].startswith("-") and not word.startswith("-"):
                out.pop()               # "-Include a,b,c": the flag without its value
            break
        out.append(word)
    return " ".join(out) or part[:limit]
