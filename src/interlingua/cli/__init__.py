"""The ``interlingua`` command.

Each sub-command lives in its own module exposing ``register(app)``. This module
only knows their names and one-line help, and imports a command's module when that
command runs (or its own help is asked for): ``interlingua --help`` and
``interlingua validate`` never import SQLAlchemy, Alembic, httpx or the stream driver.

Exit codes: 0 success, 1 invalid input or refused conversion, 2 usage error or
unreadable input. A closed stdout (``interlingua ... | head``) ends the command
quietly with exit 0, like ``cat``.
"""

# No `from __future__ import annotations`: typer reads the annotations of the root callback at every start, and
# real objects spare it an `eval` of each string (start-up of `interlingua validate`).

import gc

# Start-up builds ~100k long-lived objects (modules, classes, typer's and msgspec's type information)
# and no garbage, so the cyclic collector's ~45 passes over them during start-up find nothing (~5% of
# `interlingua validate small.json`). It is off while this module's imports run and, in `main`, until
# the command's module is loaded (:func:`_resume_gc`); never while a command works.
_gc_was_enabled = gc.isenabled()
gc.disable()
try:
    import importlib
    from typing import Any

    import typer
    from typer.core import TyperGroup

    from ._common import Group, adopt, quiet_broken_pipe
finally:
    if _gc_was_enabled:
        gc.enable()

_gc_paused: list[bool] = []
"""Set by :func:`main` while it holds the collector off during start-up."""


def _resume_gc() -> None:
    """Turn the collector back on if :func:`main` turned it off (start-up is over).

    What start-up built moves to the collector's permanent generation first (``gc.freeze``), so the
    first collection does not walk all of it (and the later full ones skip it while the command works).
    """
    if _gc_paused:
        _gc_paused.clear()
        gc.freeze()
        gc.enable()

__all__ = ["COMMANDS", "app", "main"]

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

_loaded: dict[str, Any] = {}


def load_command(name: str) -> Any:
    """The click command ``name``, importing its module on first use (``None`` if unknown)."""
    if name not in COMMANDS:
        return None
    if name not in _loaded:
        module = importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
        sub = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
        sub.callback()(lambda: None)  # always a group, so every registered command is found by name
        module.register(sub)
        # build only the command asked for (typer inspects each command's signature as it builds it):
        # `interlingua validate` does not pay for `schema`, registered by the same module
        commands = [c for c in sub.registered_commands if c.name == name]
        groups = [g for g in sub.registered_groups if g.name == name]
        if commands or groups:
            sub.registered_commands, sub.registered_groups = commands, groups
        group = typer.main.get_command(sub)
        assert isinstance(group, TyperGroup)
        for cmd_name, cmd in group.commands.items():
            _loaded.setdefault(cmd_name, adopt(cmd))
    return _loaded.get(name)


class _LazyGroup(Group):
    """The root group: commands are listed from :data:`COMMANDS` and imported when used."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        return load_command(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, COMMANDS[name][1] if name in COMMANDS else self.commands[name].get_short_help_str(80)) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            found = super().resolve_command(ctx, args)
            _resume_gc()  # the command's module is loaded: what follows is its work
            return found
        except typer.BadParameter:
            raise
        except Exception as exc:  # click's UsageError for an unknown command: suggest from every command
            message = getattr(exc, "message", None)
            if isinstance(message, str) and args and "Did you mean" not in message:
                from difflib import get_close_matches

                matches = get_close_matches(args[0], list(COMMANDS))
                if matches:
                    exc.message = f"{message.rstrip('.')}. Did you mean {', '.join(repr(m) for m in matches)}?"  # type: ignore[attr-defined]
            raise

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            quiet_broken_pipe()
            raise typer.Exit(0) from None
        except OSError as exc:  # writing stdout failed (a full disk, a closed descriptor): a message, never a traceback
            from ._common import os_error_text

            quiet_broken_pipe()  # the interpreter's final flush must not fail again
            typer.echo(f"error: {os_error_text(exc)}", err=True)
            raise typer.Exit(2) from None
        except MemoryError:
            # the last resort where a command still holds its whole input (a conversation convert
            # cannot cut into windows, ADR 0036/0047, is converted whole): a message, never a traceback
            import gc

            gc.collect()
            typer.echo(
                f"error: out of memory: the input is too large for `interlingua {ctx.invoked_subcommand or ''}` on this machine "
                "(validate, migrate, store import/export and view read item by item; convert writes a long conversation window by window, "
                "but one with no place to cut it, or read from stdin, is converted whole)",
                err=True,
            )
            raise typer.Exit(1) from None


app = typer.Typer(
    name="interlingua",
    cls=_LazyGroup,
    help="Validate, convert, store and replay LLM conversations in one provider-neutral form.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"interlingua {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True, callback=_version),
) -> None:
    """Validate, convert, store and replay LLM conversations in one provider-neutral form.

    Exit codes: 0 ok, 1 invalid input or refused, 2 usage error or unreadable input.
    """


def main() -> None:
    """Console-script entry point.

    Shell completion is click's: the shell runs the command with ``_INTERLINGUA_COMPLETE`` set
    (``eval "$(_INTERLINGUA_COMPLETE=source_bash interlingua)"`` in ``~/.bashrc``; ``source_zsh``,
    ``source_fish``: typer's spelling); typer's completion classes are loaded only then.
    """
    import os

    if os.environ.get("_INTERLINGUA_COMPLETE"):
        from typer.completion import completion_init

        completion_init()
    if gc.isenabled():
        gc.disable()
        _gc_paused.append(True)
    try:
        app(prog_name="interlingua")
    except BrokenPipeError:  # a pipe closed while typer itself was writing (help, usage errors)
        quiet_broken_pipe()
        raise SystemExit(0) from None
    finally:
        _resume_gc()
