"""The ``interlingua`` commands by name: the module defining each, and the one-line help ``--help`` lists."""

from __future__ import annotations

__all__ = ["COMMANDS"]

COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "Check transcripts against the JSON Schemas and the semantic rules."),
    "schema": ("validate", "Print or write the bundled JSON Schemas (Draft 2020-12)."),
    "convert": ("convert", "Convert a request, response or recorded stream between formats."),
    "replay": ("replay", "Send TRANSCRIPT to a model and print the output items as a transcript document."),
    "migrate": ("migrate", "Migrate stored conversations of legacy formats to canonical envelopes or stored sessions."),
    "store": ("store", "Work with a session store (SQLite file or PostgreSQL)."),
    "view": ("view", "Render a conversation as one self-contained HTML page (no script, no network access)."),
    "models": ("models", "Show what interlingua knows about models and where each fact came from."),
    "repair": ("history", "Rewrite histories so that they keep the integrity rules, reporting every change."),
    "trim": ("history", "Drop the oldest turns of a history until it fits a token budget."),
}
"""Command name -> (module under ``interlingua.cli`` whose ``register(app)`` defines it, one-line help).

The help is what ``interlingua --help`` lists without importing the module; a test checks
it matches the command's own first docstring line.
"""
