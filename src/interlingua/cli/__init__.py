"""The ``interlingua`` command.

Each sub-command lives in its own module exposing ``register(app)``. This package only knows their
names and one-line help (:data:`COMMANDS`); the typer app (``._app``) imports a command's module when
that command runs (or its own help is asked for): ``interlingua --help`` and ``interlingua validate``
never import SQLAlchemy, Alembic, httpx or the stream driver. Importing this package imports nothing
else: ``interlingua validate FILE...`` (the plain forms :mod:`._validate_fast` recognises) runs
without typer at all; every other command line goes to the typer app, which behaves the same.

Exit codes: 0 success, 1 invalid input or refused conversion, 2 usage error or
unreadable input. A closed stdout (``interlingua ... | head``) ends the command
quietly with exit 0, like ``cat``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._app import app, load_command

__all__ = ["COMMANDS", "app", "load_command", "main"]

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

def main() -> None:
    """Console-script entry point: ``interlingua ARGS`` (exits with the command's code).

    A plain ``validate`` command line runs through :mod:`._validate_fast` (no typer: start-up is
    most of a small file's validation); anything else, through the typer app.
    """
    import sys

    from . import _validate_fast

    code = _validate_fast.main(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from ._app import run

    run()


def __getattr__(name: str) -> object:
    """``app`` and ``load_command``, from the typer app module on first use (it imports typer)."""
    if name in ("app", "load_command"):
        from . import _app

        value = getattr(_app, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
