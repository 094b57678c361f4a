"""Standard-stream plumbing every entry path shares (the typer app and the typer-free validate path):
no typer here, so importing it costs nothing."""

from __future__ import annotations

import os
import sys

__all__ = ["os_error_text", "out_of_memory_text", "quiet_broken_pipe"]


def os_error_text(exc: OSError, target: str | os.PathLike[str] | None = None) -> str:
    """The message for an :class:`OSError`: ``"FILE: reason"`` when it names a file, else ``"cannot write
    TARGET: reason"`` (the output being written), else ``"cannot write standard output: reason"`` (a
    write to stdout failed: a full disk, a closed descriptor)."""
    reason = exc.strerror or str(exc)
    if exc.filename:
        return f"{exc.filename}: {reason}"
    return f"cannot write {os.fspath(target)}: {reason}" if target else f"cannot write standard output: {reason}"


def quiet_broken_pipe() -> None:
    """After a reader closed stdout (``| head``): stop writing, and exit without a message.

    Points stdout at ``/dev/null`` so the interpreter's final flush does not fail again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def out_of_memory_text(command: str) -> str:
    """The message of a command that ran out of memory (``command``: its name)."""
    return (
        f"error: out of memory: the input is too large for `interlingua {command}` on this machine "
        "(validate, migrate, store import/export and view read item by item; convert writes a long conversation window by window, "
        "but one with no place to cut it, or read from stdin, is converted whole)"
    )
