"""``interlingua validate PATH...`` without typer: the plain command lines, parsed here.

Start-up is most of what validating a small file costs, and typer (with the click it carries) is a
fifth of that start-up. So :func:`interlingua.cli.main` first offers the command line to :func:`main`
here, which takes it only when it is ``validate`` followed by paths and the command's own options,
spelled as click would accept them (``--strict``/``--no-strict``, ``--format text|json|github`` or
``--format=...``, ``--only-transcripts``, ``--quiet``/``-q``, anywhere among the paths), and runs the
command's body (:func:`._validate_run.run_validate`) with click's ``echo`` rules. Everything else
(``--help``, an unknown option, a bad ``--format`` value, no path, ``--``, combined short flags, stdin
that is a terminal, an ASCII stdout, shell completion) returns ``None`` and goes to the typer app,
which prints what it always printed. Both paths print the same bytes and exit with the same code
(a test runs both on the same command lines).
"""

from __future__ import annotations

import codecs
import gc
import os
import re
import sys
from dataclasses import dataclass, field
from typing import IO

__all__ = ["ValidateArgs", "main", "parse"]

_FORMATS = ("text", "json", "github")
_FLAGS = {"--strict": ("strict", True), "--no-strict": ("strict", False), "--only-transcripts": ("only_transcripts", True), "--quiet": ("quiet", True), "-q": ("quiet", True)}
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
"""ANSI style sequences, which click's ``echo`` removes from output that is not a terminal."""


@dataclass
class ValidateArgs:
    """A ``validate`` command line, parsed as click parses it."""

    paths: list[str] = field(default_factory=list)
    strict: bool = False
    fmt: str = "text"
    only_transcripts: bool = False
    quiet: bool = False


def parse(args: list[str]) -> ValidateArgs | None:
    """``args`` (after the program name) as a plain ``validate`` command line, or ``None`` when the typer
    app must take it (see the module docstring)."""
    if not args or args[0] != "validate" or os.environ.get("_INTERLINGUA_COMPLETE"):
        return None
    parsed = ValidateArgs()
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            parsed.paths.append(arg)
        elif arg in _FLAGS:
            name, flag = _FLAGS[arg]
            setattr(parsed, name, flag)
        elif arg == "--format" or arg.startswith("--format="):
            value = arg.partition("=")[2] if "=" in arg else next(rest, None)
            if value not in _FORMATS:
                return None  # missing or not a choice: click's usage error
            parsed.fmt = value
        else:
            return None  # --help, --, an unknown or combined option: click's business
    if not parsed.paths:
        return None  # click's "Missing argument"
    if "-" in parsed.paths and _isatty(sys.stdin):
        return None  # the typer command refuses to wait on a terminal (require_stdin)
    if sys.stdout is None or _is_ascii(sys.stdout) or sys.stderr is None or _is_ascii(sys.stderr):
        return None  # click re-wraps an ASCII stream as UTF-8
    return parsed


def main(args: list[str]) -> int | None:
    """Run a plain ``validate`` command line; its exit code, or ``None`` when :func:`parse` declines it.

    What the typer app's root group does around a command is done here too: a closed stdout ends
    quietly with 0, another write error is one ``error:`` line and exit 2, running out of memory one
    line and exit 1, Ctrl-C click's ``Aborted!`` and exit 1.
    """
    parsed = parse(args)
    if parsed is None:
        return None
    from ._stdio import os_error_text, out_of_memory_text, quiet_broken_pipe

    paused = gc.isenabled()
    gc.disable()  # start-up builds long-lived objects and no garbage (as the typer app does, see ._app)
    try:
        from ._validate_run import OutputFormat, run_validate
    finally:
        if paused:
            gc.freeze()
            gc.enable()
    try:
        return run_validate(
            parsed.paths, strict=parsed.strict, fmt=OutputFormat(parsed.fmt), only_transcripts=parsed.only_transcripts, quiet=parsed.quiet, echo=_echo
        )
    except BrokenPipeError:
        quiet_broken_pipe()
        return 0
    except OSError as exc:
        quiet_broken_pipe()
        _echo(f"error: {os_error_text(exc)}", sys.stderr)
        return 2
    except MemoryError:
        gc.collect()
        _echo(out_of_memory_text("validate"), sys.stderr)
        return 1
    except (EOFError, KeyboardInterrupt):
        _echo("", sys.stderr)
        _echo("Aborted!", sys.stderr)
        return 1


def _echo(message: str, stream: IO[str] | None = None) -> None:
    """click's ``echo`` of one line: style sequences removed off a terminal, then written and flushed."""
    stream = sys.stdout if stream is None else stream
    if stream is None:
        return
    out = message + "\n"
    if not _isatty(stream):
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except Exception:  # noqa: BLE001 - as click: a closed or odd stream is not a terminal
        return False


def _is_ascii(stream: IO[str]) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return True
