"""``interlingua view``: a transcript, session file or stored session as one self-contained HTML page."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InterlinguaError
from ._common import EXIT_INVALID, EXIT_USAGE, require_stdin, write_atomic

__all__ = ["register"]


def _fail(code: int, message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _export(url: str, session_id: str) -> bytes:
    """The stored session as a session file (header and envelopes), read like ``store export``."""
    from .store import _run, _with_store

    buf = io.BytesIO()
    _run(lambda: _with_store(url, lambda s: s.export_jsonl(session_id, buf)))
    return buf.getvalue()


def view(
    file: Annotated[
        str | None,
        typer.Argument(
            metavar="FILE",
            help="Transcript document (.json) or session file (.jsonl), `-` for stdin; left out with --store.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the page here (default: stdout).", show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="Session store URL to read --session from.", show_default=False)] = None,
    session: Annotated[str | None, typer.Option("--session", help="Session id: in --store, or the one session of a session file to show (default: all).", show_default=False)] = None,
    title: Annotated[str | None, typer.Option("--title", help="Page title (default: the file name or session id).", show_default=False)] = None,
) -> None:
    """Render a conversation as one self-contained HTML page (no script, no network access).

    Shows roles, text, images inline, tool calls linked to their results, reasoning collapsed,
    refusals and errors marked, and usage and stop reason per response. All content is escaped.

    Exit codes: 0 written, 1 invalid input, 2 usage error or unreadable input.
    """
    from ..session_file import looks_like_session_file, read_sessions
    from ..view import render_html

    if store is not None and file is not None:
        raise _fail(EXIT_USAGE, "give FILE or --store URL --session ID, not both")
    if store is not None:
        if session is None:
            raise _fail(EXIT_USAGE, "--store needs --session ID")
        label = f"session {session}"
        data = _export(store, session)
    else:
        if file is None or file == "-":
            require_stdin("view", "FILE")
            label = "<stdin>"
            data = sys.stdin.buffer.read()
        else:
            label = file
            try:
                data = Path(file).read_bytes()
            except OSError as exc:
                raise _fail(EXIT_USAGE, f"cannot read {file}: {exc.strerror or exc}") from None
    try:
        is_sessions = store is not None or Path(label).suffix.lower() in (".jsonl", ".ndjson") or looks_like_session_file(data[:4096])
        if is_sessions:
            blocks = [b for b in read_sessions(io.BytesIO(data), label=label) if session is None or b.session_id == session]
            if session is not None and not blocks:
                raise _fail(EXIT_INVALID, f"{label}: no session {session!r} in the file")
            page = render_html(blocks, title=title or label)
        else:
            if session is not None:
                raise _fail(EXIT_USAGE, f"--session {session!r} given, but {label} is a transcript document, not a session file")
            from ..codec import decode_transcript

            try:
                doc = decode_transcript(data)
            except InterlinguaError as exc:
                raise getattr(exc, "located", lambda **_: exc)(file=label) from None
            page = render_html(doc, title=title or label)
    except InterlinguaError as exc:
        raise _fail(EXIT_INVALID, f"invalid transcript: {exc}") from None
    encoded = page.encode("utf-8")
    if output is None:
        sys.stdout.buffer.write(encoded)
        sys.stdout.buffer.flush()
        return
    try:
        write_atomic(output, encoded)
    except OSError as exc:
        raise _fail(EXIT_USAGE, f"cannot write {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {output}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``view`` to the app."""
    app.command("view")(view)
