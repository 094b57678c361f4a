"""``interlingua migrate``: stored legacy conversations -> canonical envelopes or stored sessions.

Usage::

    interlingua migrate INPUT... [--from auto|FORMAT] (-o OUT.jsonl | --store URL)
                        [--rejects PATH] [--fail-fast] [--progress/--no-progress] [--quiet]

Inputs are files or directories (read recursively: ``*.json``, ``*.jsonl``, ``*.ndjson``).
A ``.json`` file holds one conversation (or a JSON list of conversations: message lists,
documents or request bodies); a
``.jsonl``/``.ndjson`` file (or a ``.json`` file that is not one JSON value) holds one
conversation a line, or one message a line (then the whole file is one conversation), or
interlingua envelopes (consecutive lines of one session form one conversation; a session
export's header line gives that session its metadata and tools).

Agent logs (a Claude Code session file, a Codex rollout, ``.jsonl.zst`` too) are one conversation
per file, read in bounded memory, and a tree-shaped conversation is written as its session plus one
fork per abandoned branch (see :mod:`interlingua._migrate.logs`); an ADK eval set is one conversation per case.

Each conversation is read by :mod:`interlingua.compat` (format detected unless ``--from``
names one) and written as JSON Lines envelopes to ``-o`` (``seq`` from 0, no ``created_at``
so the output is a function of the input; a transcript's ``usage``/``stop_reason`` ride on its
last envelope), or as a session in the store at ``--store``.
The session id is derived from the canonical transcript (:func:`interlingua.compat.session_id_for`),
so re-running on the same input writes the same sessions again instead of new ones.

A record that cannot be read goes to the reject file (``--rejects``, default
``OUT.rejects.jsonl`` beside ``-o``, or ``migrate.rejects.jsonl`` with ``--store``) as one
JSON line ``{"source", "line", "reason", "record"}`` (``record`` is the line's text exactly,
or the parsed value for a whole-file record; the file is replaced on each run) and the run
continues, unless ``--fail-fast``
(then it stops at the first reject; what was migrated before is kept).

With ``--store``, conversations are written in batches, one transaction per batch
(:meth:`~interlingua.store.SessionStore.add_sessions`: all or nothing, never part of a
session), each session under its content-derived id: a conversation already stored by an
earlier run is counted as "already in the store" and left unchanged.

Exit codes: 0 every record migrated; 1 some records rejected; 2 usage error or unreadable
input (missing file, unwritable output, a store that cannot be opened or is not in this build). A summary line (conversations, the
forks of tree-shaped ones counted apart, items, rejects, warnings) goes to stderr at the end; report entries are printed as ``warning:`` lines (the
first 50; the summary counts all).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from .._migrate import logs as _logs
from .._migrate.common import Record, _item_encoder, _Usage
from .._migrate.file_sinks import _FormatFileSink, _JsonlSink, _Rejects, _SessionIds, _stream_document, _terminate_cleanly
from .._migrate.records import _convert, _expand, _records
from .._migrate.store_sink import _Outcome, _StoreSink
from ..compat import FORMATS, Migrated
from ..errors import DocumentError, InterlinguaError, LimitError
from .convert import PolicyChoice

__all__ = ["migrate", "register"]

_MAX_WARNING_LINES = 50


def _count(n: int, noun: str) -> str:
    """``1 conversation``, ``2 conversations``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _where(record: Record) -> str:
    return f"{record.source}:{record.line}" if record.line is not None else record.source



def run(
    inputs: list[Path],
    *,
    fmt: str,
    out: Path | None,
    store: str | None,
    rejects: Path | None,
    fail_fast: bool,
    progress: bool | None,
    quiet: bool = False,
    to: str | None = None,
    policy: str | None = None,
) -> int:
    """Migrate ``inputs``; return the exit code (messages go to stderr).

    Raises:
        _Usage: usage error or unreadable input (exit 2).
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise _Usage(f"unknown format {fmt!r}; known: auto, {', '.join(FORMATS)}")
    if (out is None) == (store is None):
        raise _Usage("give exactly one of -o OUT.jsonl or --store URL")
    if to is not None:  # --to NAME: another stored format instead of envelopes (issue 26)
        from ..compat import WRITERS

        if to not in WRITERS:
            raise _Usage(f"no writer for format {to!r}; --to takes one of: {', '.join(WRITERS)}")
        if out is None:
            raise _Usage("--to writes a file: give -o OUT.jsonl, not --store")
    elif policy is not None:
        raise _Usage("--policy applies to --to FORMAT (envelopes keep every item)")
    if any(str(p) == "-" and not p.exists() for p in inputs):
        raise _Usage("migrate reads files and directories, not standard input (-): save the input to a file first, "
                     "or convert one body with `interlingua convert --to canonical -`")
    files = _expand(inputs)
    if out is not None:
        reject_path = rejects if rejects is not None else out.with_name(f"{out.stem}.rejects.jsonl")
    else:
        reject_path = rejects if rejects is not None else Path("migrate.rejects.jsonl")
    # This run's own output and reject file are never inputs (they may sit in an input directory).
    # realpath, not Path.resolve: resolve raises RuntimeError on a symlink loop (a traceback)
    own = {os.path.realpath(p) for p in (out, reject_path) if p is not None}
    files = [f for f in files if os.path.realpath(f) not in own]
    try:
        if reject_path.is_file() and not reject_path.is_symlink():
            reject_path.unlink()  # a reject file left by an earlier run would be mistaken for this run's
        elif reject_path.is_symlink() and Path(os.path.realpath(reject_path)).is_file():
            Path(os.path.realpath(reject_path)).unlink()  # the link stays; the file it names is the old reject file
    except OSError as exc:
        raise _Usage(f"cannot replace {reject_path}: {exc.strerror or exc}") from exc
    total = sum(f.stat().st_size for f in files)
    if out is not None:
        sink: _JsonlSink | _StoreSink = _JsonlSink(out) if to is None else _FormatFileSink(out, to, policy or "error")
        target = str(out)
    else:
        assert store is not None
        sink = _StoreSink(store, fail_fast=fail_fast)
        target = store
    from ._progress import Progress

    bar = Progress("migrating", total=total, quiet=quiet or progress is False, force=progress is True).__enter__()
    reject_file = _Rejects(reject_path)
    ids = _SessionIds()
    conversations = forks = items = warnings = 0  # forks: abandoned branches of trees, counted apart (issue 26)
    shown = 0
    pending = 0
    seen = 0
    stopped = False

    def settle(done: list[_Outcome]) -> bool:
        """Count what a sink is done with; ``True`` when ``--fail-fast`` stops the run."""
        nonlocal conversations, items, warnings, shown
        for rec, mig, result in done:
            if isinstance(result, InterlinguaError):
                reject_file.add(rec, f"{type(result).__name__}: {result}", copy=not isinstance(result, LimitError))
                if fail_fast:
                    typer.echo(f"error: {_where(rec)}: {result}", err=True)
                    return True
                continue
            if result:
                conversations += 1
                items += len(mig.transcript.items)
            for entry in mig.report:
                warnings += 1
                if shown < _MAX_WARNING_LINES:
                    typer.echo(f"warning: {_where(rec)}: {entry}", err=True)
                    shown += 1
        return False

    def write(record: Record, migrated: Migrated) -> list[_Outcome]:
        sid = ids.assign(migrated)
        if isinstance(sink, _StoreSink):
            return sink.submit(record, migrated, sid)
        try:
            return [(record, migrated, sink.write(migrated, sid))]
        except InterlinguaError as exc:
            return [(record, migrated, exc)]

    def flush() -> list[_Outcome]:
        return sink.flush() if isinstance(sink, _StoreSink) else []

    streamable = isinstance(sink, _JsonlSink) and to is None and fmt in ("auto", "interlingua")

    def write_log(record: Record, conv: Any) -> bool:
        """Write one log conversation (and its forks); True to stop (--fail-fast)."""
        nonlocal conversations, forks, items, warnings, shown
        try:
            if isinstance(sink, _FormatFileSink):  # --to NAME: the format's lines, not envelopes
                sessions, branches, count = _logs.write_format(sink, conv)
            elif isinstance(sink, _JsonlSink):
                sessions, branches, count = _logs.write_jsonl(sink, conv, ids)
            else:
                sessions, branches, count, _created = _logs.write_store(sink, conv, ids)
        except InterlinguaError as exc:  # named by its path and line, not copied (a log can be hundreds of MB)
            reject_file.add(record, f"{type(exc).__name__}: {exc}", copy=record.log is None)
            if fail_fast:
                typer.echo(f"error: {_where(record)}: {exc}", err=True)
                return True
            return False
        conversations += sessions
        forks += branches
        items += count
        for entry in conv.report:
            warnings += 1
            if shown < _MAX_WARNING_LINES:
                typer.echo(f"warning: {_where(record)}: {entry}", err=True)
                shown += 1
        return False

    def handle(record: Record) -> bool:
        """Migrate one record; True to stop (--fail-fast)."""
        nonlocal conversations, items, warnings, shown
        if record.log is not None:
            try:
                conv, close = _logs.open_log(Path(record.source), record.log)
            except InterlinguaError as exc:
                reject_file.add(record, f"{type(exc).__name__}: {exc}", copy=False)
                if fail_fast:
                    typer.echo(f"error: {_where(record)}: {exc}", err=True)
                    return True
                return False
            except OSError as exc:
                raise _Usage(f"cannot read {record.source}: {exc.strerror or exc}") from exc
            try:
                return write_log(record, conv)
            finally:
                close()
        if record.stream is not None and isinstance(sink, _JsonlSink):
            try:
                count = _stream_document(record, sink, ids)
            except InterlinguaError as exc:  # refused for its size: named by its path, not copied
                if isinstance(exc, DocumentError):
                    exc = exc.located(file=record.source)
                reject_file.add(record, f"{type(exc).__name__}: {exc}")
                if fail_fast:
                    typer.echo(f"error: {_where(record)}: {exc}", err=True)
                    return True
                return False
            if count is None:  # not the usual shape: the whole-document path decides
                return any(handle(r) for r in _records(record.stream))
            conversations += 1
            items += count
            return False
        if record.span is not None:
            from .._migrate.session import migrate_span, read_span, spool_dir

            assert isinstance(sink, _JsonlSink)
            done = migrate_span(record.span, sink, ids, _item_encoder.encode, spool_dir(sink))
            if done is None:  # not the usual shape: the whole read decides
                return handle(Record(record.source, record.line, value=read_span(record.span), size=record.size))
            _sid, count, report = done
            conversations += 1
            items += count
            for entry in report:
                warnings += 1
                if shown < _MAX_WARNING_LINES:
                    typer.echo(f"warning: {_where(record)}: {entry}", err=True)
                    shown += 1
            return False
        migrated, reason = _convert(record, fmt)
        if migrated is None:
            if fail_fast and settle(flush()):  # what came before is written first
                return True
            reject_file.add(record, reason or "unreadable", copy=not (reason or "").startswith("LimitError"))
            if fail_fast:
                typer.echo(f"error: {_where(record)}: {reason}", err=True)
                return True
            return False
        if migrated.forks:  # issue 26: a tree-shaped conversation, its abandoned branches as forks
            from ..compat._logs import from_migrated

            return write_log(record, from_migrated(migrated))
        return settle(write(record, migrated))

    try:
        for path in files:
            for record in _records(path, streaming=streamable, fmt=fmt):
                pending += record.size
                if handle(record):
                    stopped = True
                    break
                seen += 1
                if seen % 100 == 0:
                    bar.advance(pending, conversations=conversations)
                    pending = 0
            if not stopped and settle(flush()):
                stopped = True
            reject_file.end_of_file()
            if stopped:
                break
        bar.advance(pending, conversations=conversations)
    except BaseException:
        # A crash must not replace an existing output with a partial one.
        bar.close()
        sink.close(keep=False)
        reject_file.close(keep=False)
        raise
    else:
        bar.close()
        # A session file with no session is not a valid one (validate and store import refuse it):
        # with nothing migrated, nothing is written and an existing output stays as it was.
        empty = isinstance(sink, _JsonlSink) and conversations == 0
        sink.close(keep=not empty)
        reject_file.close()
    if warnings > shown:
        typer.echo(f"({warnings - shown} more warnings not shown)", err=True)
    where = f" (rejects in {reject_path})" if reject_file.count else ""
    present = f"; {sink.present} already in the store" if isinstance(sink, _StoreSink) else ""
    if isinstance(sink, _StoreSink) and sink.present_forks:
        present += f" (and {_count(sink.present_forks, 'fork')})"
    also = f" and {_count(forks, 'fork')}" if forks else ""
    typer.echo(
        f"migrated {_count(conversations, 'conversation')}{also} ({_count(items, 'item')}) to {target}{present}; {reject_file.count} rejected{where}; {_count(warnings, 'warning')}"
        + ("; stopped at the first reject (--fail-fast)" if stopped else ""),
        err=True,
    )
    if empty:
        typer.echo(f"error: nothing written to {target}: no conversation was migrated" + ("" if reject_file.count else " (no input record found)"), err=True)
        return 1
    return 1 if reject_file.count else 0




def migrate(
    inputs: Annotated[list[Path], typer.Argument(metavar="INPUT...", help="Files or directories to read (not standard input).", show_default=False)],
    from_: Annotated[str, typer.Option("--from", help=f"Source format: auto, {', '.join(FORMATS)}.")] = "auto",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write a session file (JSON Lines: a header line per session, then its envelopes) here.", show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="Write sessions to the session store at this URL.", show_default=False)] = None,
    rejects: Annotated[Path | None, typer.Option("--rejects", help="Reject file (default: OUT.rejects.jsonl).", show_default=False)] = None,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first record that cannot be read.")] = False,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Progress display: forced on, or off (default: shown past a few MB).", show_default=False),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (same as --no-progress).")] = False,
    to: Annotated[
        str | None, typer.Option("--to", metavar="FORMAT", help="Write each conversation as this format's JSON, one a line (vercel-ui, vercel-model, openai-finetune, sharegpt, langchain, pydantic-ai) instead of envelopes.", show_default=False)
    ] = None,
    policy: Annotated[
        PolicyChoice | None,
        typer.Option("--policy", help="With --to: what the format cannot take: refuse the conversation (error, the default), leave it out or replace it by a text marker (each reported).", show_default=False),
    ] = None,
) -> None:
    """Migrate stored conversations of legacy formats to canonical envelopes or stored sessions.

    Exit codes: 0 all migrated, 1 some records rejected, 2 usage error or unreadable input.
    """
    try:
        with _terminate_cleanly():
            code = run(inputs, fmt=from_, out=output, store=store, rejects=rejects, fail_fast=fail_fast, progress=progress, quiet=quiet, to=to, policy=policy.value if policy is not None else None)
    except _Usage as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        from ._common import os_error_text

        # the output being written: the file, else the store (a full disk under a SQLite store is not stdout)
        typer.echo(f"error: {os_error_text(exc, output if output is not None else _store_name(store))}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(code)


def _store_name(store: str | None) -> str | None:
    """``the store URL`` (its password hidden; a plain path as given) for an error message, or ``None``."""
    if not store:
        return None
    if "://" not in store:
        return f"the store {store}"
    from ..store._engine import safe_url

    return f"the store {safe_url(store)}"


def register(app: typer.Typer) -> None:
    """Add the ``migrate`` command to ``app``."""
    app.command("migrate")(migrate)
