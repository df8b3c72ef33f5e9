"""The gate: what counts as evidence.

Genuine user statements and other people's original messages are evidence; tool results
are evidence for what tools did; the assistant's own prose (and tool calls it made) is kept
for context but is never evidence; injected or generated text (system prompts, reminders,
compaction summaries, join notices) is meta and never evidence.
"""

from __future__ import annotations

from dream.sources.base import Message

KINDS = ("statement", "message", "tool_result", "assistant", "meta")
_BY_ROLE = {
    "user": ("statement", 1),
    "other": ("message", 1),
    "tool": ("tool_result", 1),
    "assistant": ("assistant", 0),
    "system": ("meta", 0),
}


def gate(message: Message) -> tuple[str, int]:
    """The item ``kind`` and ``evidence`` flag for a message."""
    if message.meta:
        return "meta", 0
    return _BY_ROLE.get(message.role, ("meta", 0))
