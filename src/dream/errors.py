"""Domain exceptions. The core raises these; each front end translates them once.

Every exception carries a message that says what went wrong and, in ``hint``, how to fix
it. Front ends print ``message`` and ``hint`` on one line and exit non-zero.
"""

from __future__ import annotations


class DreamError(Exception):
    """Base of every error a user can cause and fix."""

    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """Message and hint on one line; a hint the message already gives is not repeated."""
        text = self.message.rstrip(".")
        hint = self.hint.rstrip(".")
        if hint and _plain(hint) not in _plain(text) and not _says_how(text, hint):
            text += ". " + hint
        return " ".join(text.split()) + "."


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def _says_how(message: str, hint: str) -> bool:
    """True when the message already names the command the hint names ('dream init')."""
    quoted = [part for n, part in enumerate(hint.split("'")) if n % 2]
    return bool(quoted) and all(f"'{q}'" in message for q in quoted)


class NoHome(DreamError):
    """DREAM_HOME does not exist or was never initialised."""


class NotInitialised(DreamError):
    """The repository is not known to any store."""


class NotManaged(DreamError):
    """No store manages the project."""


class BadAddress(DreamError):
    """A note address or document path is malformed or hostile."""


class NoteNotFound(DreamError):
    pass


class NoteExists(DreamError):
    pass


class NotUtf8(DreamError):
    pass


class LockHeld(DreamError):
    """A dream lock exists; a new dream is refused whatever the lock's age."""


class NoDream(DreamError):
    """An operation needs an open dream and there is none."""


class OutOfScope(DreamError):
    """A write outside what the open dream may edit."""


class NotCrumpled(DreamError):
    """Only crumpled notes can be forgotten."""


class UnknownCommit(DreamError):
    pass


class EmptyRepository(DreamError):
    pass


class GitFailed(DreamError):
    pass


class StoreError(DreamError):
    """A store provider failed; surfaced, never turned into empty results."""


class BadInput(DreamError):
    """Malformed input from a user or a file."""


class ModelError(DreamError):
    """A model provider failed or answered something unusable."""


class VersionConflict(DreamError):
    """A write acted on a row version that is no longer current."""


class ConfigError(DreamError):
    pass
