"""``interlingua view``: a transcript, session file or stored session as one self-contained HTML page."""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InterlinguaError
from ._common import EXIT_INVALID, EXIT_USAGE, require_regular_input, require_stdin

__all__ = ["register"]


def _fail(code: int, message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _export(url: str, session_id: str, dest: str) -> None:
    """The stored session as a session file (header and envelopes) at ``dest``, read like ``store export``."""
    from .store import _run, _with_store

    _run(lambda: _with_store(url, lambda s: s.export_jsonl(session_id, dest)))


def _write_page(chunks: Iterable[str], output: Path | None) -> None:
    """Write the page as it is made: to stdout, or beside ``output`` and renamed into place (a
    failure leaves nothing behind). Errors of the input propagate; a failed write is exit 2."""
    from .._migrate.common import _Usage
    from .._migrate.file_sinks import _AtomicFile

    if output is None:
        out = sys.stdout.buffer
        for chunk in chunks:
            out.write(chunk.encode("utf-8"))
        out.flush()
        return
    try:
        target = _AtomicFile(output)
    except _Usage as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None
    try:
        buf: list[str] = []
        size = 0
        for chunk in chunks:
            buf.append(chunk)
            size += len(chunk)
            if size >= 1 << 18:
                target.fh.write("".join(buf).encode("utf-8"))
                buf, size = [], 0
        target.fh.write("".join(buf).encode("utf-8"))
        target.commit()
    except OSError as exc:
        target.discard()
        raise _fail(EXIT_USAGE, f"cannot write {output}: {exc.strerror or exc}") from None
    except BaseException:
        target.discard()
        raise
    typer.echo(f"wrote {output}", err=True)


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
    from ..view import document_sections, iter_html, render_html, session_sections

    if store is not None and file is not None:
        raise _fail(EXIT_USAGE, "give FILE or --store URL --session ID, not both")
    with tempfile.TemporaryDirectory(prefix="interlingua-view-") as tmp:
        if store is not None:
            if session is None:
                raise _fail(EXIT_USAGE, "--store needs --session ID")
            label = f"session {session}"
            exported = os.path.join(tmp, "session.jsonl")
            _export(store, session, exported)  # a file, read twice below: memory does not grow with the session
            path: str | None = exported
        elif file is None or file == "-":
            require_stdin("view", "FILE")
            label, path = "<stdin>", None
        else:
            label, path = file, file
            require_regular_input(file, "view")
            try:
                with open(file, "rb") as fh:
                    head = fh.read(4096)
            except OSError as exc:
                raise _fail(EXIT_USAGE, f"cannot read {file}: {exc.strerror or exc}") from None
        page_title = title or label
        try:
            if path is not None:
                is_sessions = store is not None or Path(label).suffix.lower() in (".jsonl", ".ndjson") or looks_like_session_file(head)
                if is_sessions:
                    sections, items, count = session_sections(path, session=session, label=label)
                    if session is not None and not count:
                        raise _fail(EXIT_INVALID, f"{label}: no session {session!r} in the file")
                    _write_page(iter_html(sections, title=page_title, items=items, conversations=count), output)
                    return
                if session is not None:
                    raise _fail(EXIT_USAGE, f"--session {session!r} given, but {label} is a transcript document, not a session file")
                streamed = document_sections(path, label=label)
                if streamed is not None:
                    _write_page(iter_html(streamed[0], title=page_title, items=streamed[1], conversations=1), output)
                    return
                data = Path(path).read_bytes()  # a document the item-by-item reader hands back: read whole
            else:
                data = sys.stdin.buffer.read()
            if looks_like_session_file(data[:4096]):
                blocks = [b for b in read_sessions(io.BytesIO(data), label=label) if session is None or b.session_id == session]
                if session is not None and not blocks:
                    raise _fail(EXIT_INVALID, f"{label}: no session {session!r} in the file")
                page = render_html(blocks, title=page_title)
            else:
                if session is not None:
                    raise _fail(EXIT_USAGE, f"--session {session!r} given, but {label} is a transcript document, not a session file")
                from ..codec import decode_transcript

                try:
                    doc = decode_transcript(data)
                except InterlinguaError as exc:
                    raise getattr(exc, "located", lambda **_: exc)(file=label) from None
                page = render_html(doc, title=page_title)
        except InterlinguaError as exc:
            raise _fail(EXIT_INVALID, f"invalid transcript: {exc}") from None
        _write_page([page], output)


def register(app: typer.Typer) -> None:
    """Add ``view`` to the app."""
    app.command("view")(view)
