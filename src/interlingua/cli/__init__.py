"""The ``interlingua`` command.

Each sub-command lives in its own module exposing ``register(app)``; this module
only assembles them. Exit codes: 0 success, 1 invalid input or refused
conversion, 2 usage error or unreadable input.
"""

from __future__ import annotations

import importlib

import typer

__all__ = ["app", "main"]

app = typer.Typer(
    name="interlingua",
    help="Validate, convert, store and replay LLM conversations in one provider-neutral form.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Keep ``interlingua`` a command group even while only one sub-command is registered.

    Without a callback, typer runs a lone command as the whole program, so
    ``interlingua convert ...`` would read ``convert`` as its first argument.
    """


# One module per command group; each defines register(app).
_COMMAND_MODULES: list[str] = [
    "validate",
    "convert",
    "store",
    "replay",
    "migrate",
]

for _name in _COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}").register(app)


def main() -> None:
    """Console-script entry point."""
    app()
