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

from ._commands import COMMANDS

if TYPE_CHECKING:
    from ._app import app, load_command

__all__ = ["COMMANDS", "app", "load_command", "main"]


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
