"""Notes: addressed Markdown documents in the notes home."""
