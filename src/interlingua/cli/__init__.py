"""The ``interlingua`` command.

Each sub-command lives in its own module exposing ``register(app)``; this module
only assembles them. Exit codes: 0 success, 1 invalid input or refused
conversion, 2 usage error or unreadable input.
"""

from __future__ import annotations

import importlib

import typer

__all__ = ["app", "main"]

def _new_app() -> typer.Typer:
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

    return app


# One module per command group; each defines register(app).
_COMMAND_MODULES: list[str] = [
    "validate",
    "convert",
    "store",
    "replay",
    "migrate",
]

_COMMANDS: dict[str, str] = {"validate": "validate", "schema": "validate", "convert": "convert", "store": "store", "replay": "replay", "migrate": "migrate"}
"""Command name -> the module that registers it (for :func:`main`'s start-up shortcut)."""


def _build(modules: list[str]) -> typer.Typer:
    app = _new_app()
    for name in modules:
        importlib.import_module(f"{__name__}.{name}").register(app)
    return app


_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    # `app` (every command) is built on first use: `interlingua validate` need not import the store,
    # the transports and the mappers, which take most of a run's start-up time.
    global _app
    if name == "app":
        if _app is None:
            _app = _build(_COMMAND_MODULES)
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point.

    When the first argument names a command, only the module defining it is imported; any other
    command line (``--help``, no arguments, an unknown command) gets the full application, so help
    and errors read exactly as before.
    """
    import sys

    first = sys.argv[1] if len(sys.argv) > 1 else ""
    module = _COMMANDS.get(first)
    if module is not None and _app is None:
        _build([module])()
        return
    __getattr__("app")()
