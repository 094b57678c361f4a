"""``interlingua store``: import, export, list, show, delete and upgrade session stores.

Exit codes: 0 ok; 1 invalid input, conflict or no such session; 2 usage error,
unreadable file, unreachable database or a database that needs ``store upgrade``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from ..codec import UnknownItem, to_builtins
from ..items import StopReason, Usage
from ..errors import ConflictError, DocumentError, MigrationRequiredError, SessionExistsError, SessionNotFoundError, StoreError
from sqlalchemy.engine import make_url

from ..store import CorruptRowError, SessionStore, head_revision, normalize_url, upgrade
from ._common import plain_table, require_stdin, stdout_is_terminal

__all__ = ["register"]

T = TypeVar("T")

store_app = typer.Typer(
    name="store",
    help="Work with a session store (SQLite file or PostgreSQL).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

UrlOpt = Annotated[
    str | None,
    typer.Option("--url", help="Database URL or SQLite file path (default: $INTERLINGUA_STORE_URL or ./interlingua.sqlite3).", show_default=False),
]


def _err(msg: str) -> None:
    typer.echo(f"error: {msg}", err=True)


def _run(body: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``body`` and map errors to exit codes."""
    try:
        return asyncio.run(body())
    except (MigrationRequiredError,) as exc:
        _err(str(exc))
        raise typer.Exit(2) from None
    except DocumentError as exc:
        for p in exc.problems:
            _err(str(p))
        files = {p.file for p in exc.problems if p.file and p.file != "-"}
        if files:
            from ._validate_hints import file_kind

            for kind in filter(None, map(file_kind, sorted(files))):
                _err(kind)
        raise typer.Exit(1) from None
    except (ConflictError, SessionExistsError, SessionNotFoundError, CorruptRowError) as exc:
        _err(str(exc))
        raise typer.Exit(1) from None
    except StoreError as exc:
        _err(str(exc))
        raise typer.Exit(2) from None
    except BrokenPipeError:
        raise  # the reader of stdout went away (`| head`): the root command exits quietly
    except OSError as exc:
        from ._common import os_error_text

        _err(os_error_text(exc))
        raise typer.Exit(2) from None


def refuse_missing_file(url: str | None) -> None:
    """For a command that reads a store: a SQLite URL naming a file that does not exist is refused
    (a typo would otherwise create an empty database and show an empty store).

    Raises:
        StoreError: no such file; the message says how to create one.
    """
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if Path(parsed.database).is_dir():
            raise StoreError(f"{parsed.database} is a directory, not a SQLite database file")
        if not Path(parsed.database).exists():
            raise StoreError(f"no database file {parsed.database} (create one with `interlingua store upgrade --url {parsed.database}`)")


async def _with_store(url: str | None, fn: Callable[[SessionStore], Awaitable[T]], *, create: bool = False) -> T:
    """Open the store for one command. Reading commands refuse a missing SQLite file (a typo
    would otherwise show an empty store); ``import`` creates it."""
    norm = normalize_url(url)
    if not create:
        refuse_missing_file(norm)
    store = await SessionStore.open(norm, create=create)
    try:
        return await fn(store)
    finally:
        await store.close()


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (shown past a few MB).")]


@store_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Session file (JSON Lines from `migrate -o` or `store export`; several sessions allowed), `-` for stdin.")],
    url: UrlOpt = None,
    session_id: Annotated[str | None, typer.Option("--id", help="Import the file's one session under this id (a copy).")] = None,
    new_id: Annotated[bool, typer.Option("--new-id", help="Import every session as a copy under a new UUID.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Import the sessions of a session file; print each session id (creates a missing SQLite file).

    Each session keeps the id in the file: importing the same content again changes nothing
    (reported as unchanged); other content under a stored id is refused (exit 1).
    """
    from ._progress import CountingReader, Progress

    if str(file) == "-":
        require_stdin("store import", "FILE")
    elif not file.is_file():
        from .._migrate.records import _why_unreadable

        _err(f"{file}: cannot read ({_why_unreadable(file)})")
        raise typer.Exit(2)
    if session_id is not None and new_id:
        _err("--id and --new-id exclude each other")
        raise typer.Exit(2)
    if str(file) != "-" and _is_document(file):
        _err(f"{file} is a transcript document, not a session file: `interlingua migrate {file} -o OUT.jsonl` writes one")
        raise typer.Exit(1)
    ids = [session_id] if session_id is not None else None
    # The file is read twice (checked whole, then imported): progress counts both passes.
    total = None if str(file) == "-" else 2 * file.stat().st_size
    with Progress("importing", total=total, quiet=quiet) as bar:
        if str(file) == "-":
            src: Any = CountingReader(sys.stdin.buffer, bar)
            results = _run(lambda: _with_store(url, lambda s: s.import_sessions(src, new_ids=new_id, session_ids=ids), create=True))
        else:
            try:
                fh = open(file, "rb")  # noqa: SIM115
            except OSError as exc:
                _err(f"{file}: cannot read ({exc.strerror or exc})")
                raise typer.Exit(2) from None
            with fh:
                src = CountingReader(fh, bar)
                src.name = str(file)
                results = _run(lambda: _with_store(url, lambda s: s.import_sessions(src, new_ids=new_id, session_ids=ids), create=True))
    for r in results:
        if r.status == "unchanged":
            typer.echo(f"note: session {r.session_id} is already stored with this content; left unchanged", err=True)
        typer.echo(r.session_id)


def _is_document(path: Path) -> bool:
    """A transcript document (``{"schema_version", "items": [...]}``) rather than JSON Lines."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return False
    first = head.lstrip().split(b"\n", 1)[0]
    return first.startswith(b"{") and b'"items"' in head and b'"session_id"' not in first and b'"session"' not in first[:64]


@store_app.command("export")
def export(
    session_id: Annotated[str, typer.Argument(metavar="SESSION_ID", help="Session id.")],
    url: UrlOpt = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout (atomically).")] = None,
    header: Annotated[bool, typer.Option("--header/--no-header", help="First line: session metadata and tools.")] = True,
    quiet: QuietOpt = False,
) -> None:
    """Export a session as JSON Lines (one envelope a line)."""
    from ._progress import CountingWriter, Progress

    with Progress("exporting", quiet=quiet) as bar:
        if output is None:
            out = sys.stdout.buffer

            async def body(s: SessionStore) -> int:
                n = await s.export_jsonl(session_id, CountingWriter(out, bar), header=header)
                out.flush()
                return n

            _run(lambda: _with_store(url, body))
            return
        _export_file(url, session_id, output, header, bar)


def _export_file(url: str | None, session_id: str, output: Path, header: bool, bar: Any) -> None:
    """Export to ``output`` through a temporary file beside it, renamed into place on success."""
    import os
    import tempfile

    from ._progress import CountingWriter

    from .._paths import output_target

    try:
        output, in_place = output_target(output)
    except OSError as exc:  # a symlink loop
        _err(f"{output}: cannot write ({exc.strerror or exc})")
        raise typer.Exit(2) from None
    if in_place:  # /dev/null, a pipe: written as it is, never renamed over
        try:
            with open(output, "wb") as fh:
                _run(lambda: _with_store(url, lambda s: s.export_jsonl(session_id, CountingWriter(fh, bar), header=header)))
        except OSError as exc:
            _err(f"{output}: cannot write ({exc.strerror or exc})")
            raise typer.Exit(2) from None
        return
    directory = output.parent if str(output.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        _err(f"{output}: cannot write ({exc.strerror or exc})")
        raise typer.Exit(2) from None
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    ok = False
    try:
        with os.fdopen(fd, "wb") as fh:
            _run(lambda: _with_store(url, lambda s: s.export_jsonl(session_id, CountingWriter(fh, bar), header=header)))
        os.replace(tmp, output)
        ok = True
    except OSError as exc:
        _err(f"{output}: cannot write ({exc.strerror or exc})")
        raise typer.Exit(2) from None
    finally:
        if not ok and os.path.exists(tmp):
            os.unlink(tmp)


@store_app.command("list")
def list_(
    url: UrlOpt = None,
    limit: Annotated[int, typer.Option(help="At most this many sessions, newest first.")] = 100,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object a line instead of a table.")] = False,
) -> None:
    """List sessions, newest first."""
    infos = _run(lambda: _with_store(url, lambda s: s.list_sessions(limit=limit)))
    if json_out:
        import msgspec

        for i in infos:
            typer.echo(msgspec.json.encode({"id": i.id, "created_at": i.created_at, "updated_at": i.updated_at, "items": i.length, "parent_id": i.parent_id, "fork_seq": i.fork_seq}).decode())
        return
    rows = [(i.id, str(i.length), i.created_at[:19] + "Z", f"{i.parent_id} @ {i.fork_seq}" if i.parent_id else "") for i in infos]
    header = ("id", "items", "created", "forked from")
    if not stdout_is_terminal():  # a pipe or a file: every cell whole, tab-separated
        sys.stdout.write(plain_table(header, rows))
        sys.stdout.flush()
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(infos)} session(s)")
    table.add_column("id", no_wrap=True, min_width=max((len(i.id) for i in infos), default=2))
    table.add_column("items", justify="right")
    table.add_column("created", no_wrap=True)
    table.add_column("forked from", overflow="fold")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _summary(item: Any) -> tuple[str, str, str]:
    if isinstance(item, UnknownItem):
        return item.type or "?", "", f"(preserved unknown item, {len(item.raw)} bytes)"
    d = to_builtins(item)
    typ = d.get("type", "?")
    role = d.get("role", "")
    if typ == "text":
        body = d["text"]
    elif typ in ("tool_call", "handoff_call"):
        body = f"{d.get('name') or d.get('target')}({d.get('arguments', d.get('arguments_raw', ''))}) id={d.get('id')}"
    elif typ in ("tool_result", "handoff_result"):
        body = f"call_id={d.get('call_id')} " + " ".join(c.get("text", f"<{c.get('type')}>") for c in d.get("content", []))
    elif typ == "reasoning":
        body = d.get("text") or ("(opaque)" if d.get("opaque") else "")
    elif typ in ("refusal",):
        body = d.get("text", "")
    elif typ == "error":
        body = f"{d.get('code')}: {d.get('message')}"
    else:
        import msgspec

        body = msgspec.json.encode({k: v for k, v in d.items() if k != "type"}).decode()
    body = body.replace("\n", " ")
    return typ, role, body if len(body) <= 200 else body[:197] + "..."


@store_app.command("show")
def show(session_id: Annotated[str, typer.Argument(metavar="SESSION_ID", help="Session id.")], url: UrlOpt = None) -> None:
    """Show a session: its settings and items, readably. Rows that fail to decode are listed."""

    async def body(s: SessionStore) -> Any:
        info = await s.get_session(session_id)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            envs = await s.load_envelopes(session_id, on_corrupt="omit")
        return info, envs, await s.quarantined(session_id)

    info, envs, bad = _run(lambda: _with_store(url, body))
    lines = [f"session {info.id}  items: {info.length}  created: {info.created_at}  updated: {info.updated_at}"]
    if info.parent_id:
        lines.append(f"forked from {info.parent_id} at seq {info.fork_seq}")
    if info.metadata is not None:
        lines.append(f"metadata: {json.dumps(to_builtins(info.metadata), ensure_ascii=False, sort_keys=True)}")  # JSON, as it is stored
    if info.tools:
        lines.append("tools: " + ", ".join(t.name for t in info.tools))
    rows = []
    for e in envs:
        typ, role, text = _summary(e.item)
        extra = []
        if isinstance(e.usage, Usage):
            u = to_builtins(e.usage)
            extra.append(f"in={u.get('input_tokens', '?')} out={u.get('output_tokens', '?')}")
        if isinstance(e.stop_reason, StopReason):
            extra.append(e.stop_reason.reason)
        rows.append((str(e.seq), typ, role, text, " ".join(extra)))
    header = ("seq", "type", "role", "content", "usage / stop")
    bad_lines = [f"  seq {b.seq}: {b.reason}" for b in bad]
    if not stdout_is_terminal():  # a pipe or a file: plain lines, every cell whole
        sys.stdout.write("\n".join(lines) + "\n" + plain_table(header, rows))
        sys.stdout.flush()
        if bad:
            typer.echo(f"{len(bad)} quarantined row(s) (stored, failed to decode; not shown above):\n" + "\n".join(bad_lines))
            raise typer.Exit(1)
        return
    from rich.console import Console
    from rich.table import Table

    con = Console()
    for line in lines:
        con.print(line, markup=False)
    table = Table(*header)
    for row in rows:
        table.add_row(*row)
    con.print(table)
    if bad:
        con.print(f"[bold red]{len(bad)} quarantined row(s)[/bold red] (stored, failed to decode; not shown above):")
        for line in bad_lines:
            con.print(line, markup=False)
        raise typer.Exit(1)


@store_app.command("delete")
def delete(session_id: Annotated[str, typer.Argument(metavar="SESSION_ID", help="Session id.")], url: UrlOpt = None) -> None:
    """Delete a session with its items and history (its forks are kept). Exit 1 when there is no such session."""
    _run(lambda: _with_store(url, lambda s: s.delete_session(session_id)))
    typer.echo(f"deleted session {session_id}", err=True)


@store_app.command("upgrade")
def upgrade_(url: UrlOpt = None) -> None:
    """Apply pending schema migrations (creates the schema in an empty database)."""
    rev = _run(lambda: upgrade(url))
    typer.echo(f"database is at revision {rev} (head {head_revision()})")


def register(app: typer.Typer) -> None:
    """Add the ``store`` command group to ``app``."""
    app.add_typer(store_app, name="store")
