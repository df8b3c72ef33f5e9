"""Stores: git repositories of Markdown documents, the source of truth."""
