"""Plumbing shared by every ``interlingua`` command: help rendering, stdin and table output.

Kept light on purpose: importing it must not pull in a command's dependencies
(SQLAlchemy, httpx, rich), so ``interlingua --help`` and ``interlingua validate`` start fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ._stdio import os_error_text, quiet_broken_pipe

__all__ = [
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_USAGE",
    "Command",
    "Group",
    "adopt",
    "format_names",
    "os_error_text",
    "plain_table",
    "quiet_broken_pipe",
    "require_regular_input",
    "require_stdin",
    "write_atomic",
]

EXIT_OK = 0
EXIT_INVALID = 1
"""Invalid input, refused conversion, malformed input, conflict."""
EXIT_USAGE = 2
"""Usage error or unreadable input."""


def format_names(*, canonical: bool = True) -> str:
    """The format names ``--from``/``--to`` take, from the mapper registry (plugins included)."""
    from ..mapping import available

    names = list(available())
    return ", ".join(["canonical", *names] if canonical else names)


def _expand_help(text: str | None) -> str | None:
    """Fill ``{formats}`` / ``{mappers}`` in a help text only when help is shown (the registry scan costs)."""
    if not text or "{" not in text:
        return text
    if "{formats}" in text:
        text = text.replace("{formats}", format_names())
    if "{mappers}" in text:
        text = text.replace("{mappers}", format_names(canonical=False))
    return text


def _usage_name(param: Any) -> str:
    name = param.metavar or (param.name or "").upper()
    if param.nargs != 1 and not name.endswith("..."):
        name += "..."
    return name if param.required else f"[{name}]"


class Command(TyperCommand):
    """A typer command whose help reads like a Unix tool's.

    Usage lines show ``PATH...`` and ``[INPUT]`` (not typer's ``{paths}...`` and ``[[INPUT]]``),
    arguments are listed without their Python type, and ``{formats}`` in an option's help is
    replaced by the registered format names when the help is printed.
    """

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(_usage_name(param))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            saved = getattr(param, "help", None)
            param.help = _expand_help(saved)  # type: ignore[attr-defined]
            try:
                record = param.get_help_record(ctx)
            finally:
                param.help = saved  # type: ignore[attr-defined]
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = _usage_name(param).strip("[]")
                args.append((name, record[1]))
            else:
                names, text = record
                for generic in (" <str>", " <path>", " <int>", " <float>"):
                    if names.endswith(generic):  # typer's Python type name: show what the value is instead
                        names = names[: -len(generic)] + " " + ("PATH" if generic == " <path>" else (param.name or "value").upper())
                opts.append((names, text))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


class Group(TyperGroup):
    """A typer group with the same plain help as :class:`Command`."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        Command.format_options(self, ctx, formatter)  # type: ignore[arg-type]
        self.format_commands(ctx, formatter)


def adopt(cmd: Any) -> Any:
    """Give a built click command (and its sub-commands) the plain help of this module.

    typer builds commands from its own classes; re-classing them here keeps every
    command module a plain ``register(app)`` without per-command ``cls=`` arguments.
    """
    cmd.rich_markup_mode = None
    if isinstance(cmd, TyperGroup):
        if type(cmd) is TyperGroup:
            cmd.__class__ = Group
        for sub in cmd.commands.values():
            adopt(sub)
    elif type(cmd) is TyperCommand:
        cmd.__class__ = Command
    return cmd


def require_stdin(command: str, what: str = "INPUT") -> None:
    """Refuse to wait on a terminal: with no input given and stdin a terminal, exit 2 with usage.

    ``-`` (or no argument) means stdin; a user who typed the command without input and
    without a pipe would otherwise see nothing happen.
    """
    stdin = sys.stdin
    try:
        tty = stdin is not None and stdin.isatty()
    except (ValueError, OSError):
        tty = False
    if tty:
        typer.echo(
            f"error: no input: give {what} or pipe it into stdin (`interlingua {command} --help` for usage)",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)


def require_regular_input(source: str | os.PathLike[str] | None, command: str) -> None:
    """Refuse at once an input path that is not a regular file: exit 2 with a clear message.

    One rule for every command's input: a named pipe, a device (``/dev/zero``, ``/dev/urandom``, a
    terminal) or a symbolic link to one is never opened, since commands read a file more than once
    (a head to detect the format, then the whole) and a device never ends (memory would grow without
    limit). Such an input is given on standard input (``-``) instead, read once as a stream.
    ``None`` and ``-`` (stdin) and paths that do not exist pass: the command's own reading reports
    those.

    Raises:
        typer.Exit: (code 2) the path exists and is not a regular file or directory.
    """
    import stat

    if source is None or os.fspath(source) == "-":
        return
    try:
        mode = os.stat(source).st_mode
    except (OSError, ValueError):
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = "a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
    typer.echo(
        f"error: cannot read {os.fspath(source)}: {kind}, not a regular file; give it on standard input instead "
        f"(`interlingua {command} - < {os.fspath(source)}`)",
        err=True,
    )
    raise typer.Exit(EXIT_USAGE)


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (tables and colours only then)."""
    try:
        return sys.stdout.isatty()
    except (ValueError, OSError):
        return False


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows as tab-separated lines, header first: untruncated, for pipes, files and ``cut``/``awk``."""
    lines = ["\t".join(header)]
    lines.extend("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in rows)
    return "\n".join(lines) + "\n"


def write_atomic(out: os.PathLike[str] | str, data: bytes) -> None:
    """Write ``data`` to ``out`` through a temporary file beside it, renamed into place.

    A reader never sees a half-written file, and a failed write (disk full, a signal) leaves the
    old file, if any, as it was and no temporary file behind. The file gets the mode a plain
    ``open`` would give it (``0o666`` less the umask).

    Raises:
        OSError: the directory cannot be written (nothing is left behind).
    """
    import tempfile

    from .._paths import output_target

    path, in_place = output_target(out)
    if in_place:  # /dev/null, a pipe: written as it is, never renamed over
        with open(path, "wb") as fh:
            fh.write(data)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_output(out: os.PathLike[str] | str | None) -> Iterator[IO[bytes]]:
    """A binary file to write a command's output to, in pieces: it reaches ``out`` only when the
    ``with`` block ends without an exception, never half-written.

    ``out`` is written through a temporary file beside it, renamed into place (as
    :func:`write_atomic`); ``None`` means stdout, spooled to a temporary file and copied to stdout at
    the end (a closed pipe is quiet). On an exception nothing is written and no temporary file is
    left behind. Memory stays bounded whatever the output's size.

    Raises:
        OSError: the output cannot be written (nothing is left behind).
    """
    import shutil
    import tempfile

    from .._paths import output_target

    if out is None:
        with tempfile.TemporaryFile() as spool:
            yield spool
            spool.seek(0)
            try:
                shutil.copyfileobj(spool, sys.stdout.buffer, 1 << 20)
                sys.stdout.buffer.flush()
            except BrokenPipeError:
                quiet_broken_pipe()
        return
    path, in_place = output_target(out)
    if in_place:  # /dev/null, a pipe: written as it is, never renamed over
        with open(path, "wb") as fh:
            yield fh
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
