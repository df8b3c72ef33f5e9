"""Text safe to print on a terminal: no escape sequences, no control characters.

Kept light (no imports beyond ``re``): the agent hook uses it for its log line."""

from __future__ import annotations

import re

# control characters; tabs and line ends (\t \n \r) are text
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# what follows a terminal's ESC byte in an escape sequence, whole (CSI colours and cursor
# moves, OSC titles and clipboard writes ended by BEL or ST, two-byte escapes), so none
# leaves its arguments behind; the redactor reads past the same sequences
ESCAPE_TAIL = r"(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])"
_ESCAPE_RE = re.compile(r"\x1b" + ESCAPE_TAIL + r"?|\x9b[0-?]*[ -/]*[@-~]")


def strip_control(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tabs and line
    ends stay): for text a model wrote, which the brief, 'dream notes show' and an agent's
    context print as they are."""
    if not CONTROL_RE.search(text):
        return text
    return CONTROL_RE.sub("", _ESCAPE_RE.sub("", text))


def echo_query(text: str, limit: int = 80) -> str:
    """A user's query as a message repeats it: printable, on one line and at most ``limit``
    characters (a pasted 100 KB log is named by its start, not printed back whole)."""
    text = " ".join(strip_control(text).split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def next_page(command: str, query: str, page: int, *options: str, limit: int = 80) -> str:
    """The 'more:' line under a page of results: the command for page ``page`` as it can be
    pasted into a shell, with the ``options`` that chose the results (a hint without
    ``--per-page 5`` or ``--project`` showed another list on its next page). A query too long
    to paste, or holding line ends or control characters, is not repeated: the line says to
    add ``--page`` to the same command (a pasted 100 KB log was printed back whole)."""
    import shlex  # here, not at the top: the agent hook imports this module for one line

    if len(query) > limit or strip_control(query) != query or "\n" in query \
            or "\r" in query or "\t" in query:
        return f"more: the same command with --page {page}"
    return "more: " + " ".join([command, shlex.quote(query), *options, "--page", str(page)])
