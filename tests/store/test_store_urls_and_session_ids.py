"""Store URLs users copy from libpq tools, and session ids that look alike: clean errors, one session.

Each case here ended in a traceback (or two look-alike sessions) in an adversarial round: a
non-numeric port, an unclosed IPv6 bracket, ``?sslmode=require`` (asyncpg: "unexpected keyword
argument 'sslmode'"), a server that accepts connections and never answers (an empty reason), a
``--id`` of bytes that are not UTF-8, and ``café`` in NFC and NFD stored as two sessions.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from interlingua.errors import DocumentError, StoreError
from interlingua.store import SessionStore, normalize_url
from interlingua.store._engine import _asyncpg_connect_args
from interlingua.items import TextItem

NFC = unicodedata.normalize("NFC", "café-Åström")
NFD = unicodedata.normalize("NFD", "café-Åström")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+asyncpg://u@host:abc/db", "the port is not a number"),
        ("postgresql+asyncpg://u:secret@[::1/db", "IPv6 address needs its closing ']'"),
        ("postgresql://u@h/db?sslmode=sometimes", "is not a libpq SSL mode"),
        ("postgresql://u@h/db?sslrootcert=/etc/ca.pem", "unsupported PostgreSQL URL option 'sslrootcert'"),
        ("postgresql://u@127.0.0.1:99999/db", "port 99999 is out of range"),
        ("postgresql://u@127.0.0.1:-5/db", "port -5 is out of range"),
        ("postgresql://u@127.0.0.1:0/db", "port 0 is out of range"),
        ("postgresql://u@h1:1,h2:2/db", "multiple hosts (h1:p1,h2:p2) are not supported"),
        ("sqlite:///s.db?mode=ro&foo=bar", "unsupported SQLite URL option 'mode'"),
        ("sqlite:///s.db?foo=bar", "unsupported SQLite URL option 'foo'"),
        ("postgresql://u@h/db?connect_timeout=soon", "connect_timeout='soon': expected a number"),
        ("postgresql://u@h/db?sslmode=require&ssl=disable", "given twice"),
    ],
)
def test_bad_postgres_urls_are_store_errors_naming_the_part(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=None) as info:
        normalize_url(url)
    assert message in str(info.value)
    assert "secret" not in str(info.value)


def test_libpq_options_become_asyncpg_keywords_with_their_types() -> None:
    url = normalize_url("postgres://u@h:5433/db?sslmode=require&connect_timeout=7&statement_cache_size=0")
    parsed = make_url(url)
    assert parsed.drivername == "postgresql+asyncpg"
    assert dict(parsed.query) == {"ssl": "require", "timeout": "7", "statement_cache_size": "0"}
    rest, args = _asyncpg_connect_args(parsed)
    assert args == {"timeout": 7.0, "statement_cache_size": 0}
    assert dict(rest.query) == {"ssl": "require"}  # asyncpg takes the mode as text


def test_application_name_becomes_an_asyncpg_server_setting() -> None:
    rest, args = _asyncpg_connect_args(make_url(normalize_url("postgresql://u@h/db?application_name=etl&sslmode=require")))
    assert args == {"server_settings": {"application_name": "etl"}}
    assert dict(rest.query) == {"ssl": "require"}


@pytest.mark.parametrize("url", ["postgresql://u@127.0.0.1:99999/db", "postgresql://u@127.0.0.1:-5/db"])
def test_store_list_with_a_port_out_of_range_is_a_clean_error(tmp_path: Path, url: str) -> None:
    from typer.testing import CliRunner

    from interlingua.cli import app

    result = CliRunner().invoke(app, ["store", "list", "--url", url])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (1, 2)
    assert "out of range" in result.output


def _silent_server() -> tuple[int, threading.Event]:
    """A TCP server on loopback that accepts connections and never says a word."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def run() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass
        for c in held:
            c.close()
        srv.close()

    threading.Thread(target=run, daemon=True).start()
    return srv.getsockname()[1], stop


async def test_a_server_that_never_answers_gives_a_reason() -> None:
    pytest.importorskip("asyncpg")
    port, stop = _silent_server()
    try:
        with pytest.raises(StoreError) as info:
            await SessionStore.open(f"postgresql://u@127.0.0.1:{port}/db?connect_timeout=1")
    finally:
        stop.set()
    text = str(info.value)
    assert "did not answer in time" in text
    assert "connect_timeout" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["store", "list", "--url", "postgresql+asyncpg://u@host:abc/db"],
        ["store", "list", "--url", "postgresql+asyncpg://u@[::1/db"],
        ["store", "list", "--url", "postgresql://u@127.0.0.1:1/db?sslmode=bogus"],
    ],
)
def test_cli_store_url_errors_exit_2_without_a_traceback(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-c", "from interlingua.cli import main; main()", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ")


async def test_nfc_and_nfd_ids_are_one_session(store: SessionStore) -> None:
    await store.create_session(session_id=NFD)
    await store.append(NFC, [TextItem(role="user", text="hi")], expected_seq=-1)
    ids = [s.id for s in await store.list_sessions()]
    assert ids == [NFC]
    assert [e.item.text for e in await store.load_envelopes(NFD)] == ["hi"]  # type: ignore[union-attr]
    assert await store.head(NFD) == await store.head(NFC) == 0
    fork = await store.fork(NFD, 0, new_session_id=unicodedata.normalize("NFD", "fork-é"))
    assert fork == unicodedata.normalize("NFC", "fork-é")


async def test_an_id_of_undecodable_bytes_is_a_document_error(store: SessionStore) -> None:
    bad = b"caf\xff".decode("utf-8", "surrogateescape")
    with pytest.raises(DocumentError, match="valid Unicode text"):
        await store.create_session(session_id=bad)
    with pytest.raises(DocumentError, match="valid Unicode text"):
        await store.head(bad)


def test_cli_import_id_of_undecodable_bytes(tmp_path: Path) -> None:
    src = tmp_path / "one.jsonl"
    src.write_text(
        '{"schema_version":"1.0","session_id":"x","seq":0,"created_at":"2024-01-01T00:00:00Z",'
        '"item":{"type":"text","role":"user","text":"hi"}}\n'
    )
    db = tmp_path / "s.db"
    code = "import sys; from interlingua.cli import main; sys.argv[1:] = sys.argv[1:]; main()"
    proc = subprocess.run(
        [sys.executable, "-c", code, "store", "import", "--url", str(db), "--id", b"caf\xff".decode("utf-8", "surrogateescape"), str(src)],
        capture_output=True,
        timeout=60,
    )
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "valid Unicode text" in err


# --------------------------------------------------------------------------- fuzz: the URL parser

from hypothesis import given, settings, strategies as st  # noqa: E402

_parts = st.sampled_from(["postgresql", "postgres", "postgresql+asyncpg", "sqlite", "sqlite+aiosqlite", "mysql", "postgresql+psycopg", "", "pg"])
_hosts = st.sampled_from(["h", "127.0.0.1", "[::1]", "[::1", "::1]", "h:5432", "h:abc", "h:", "h:99999", "h:-1", "", "u:pw@h", "@", "h,h2:5"])
_queries = st.lists(
    st.tuples(
        st.sampled_from(["sslmode", "ssl", "connect_timeout", "timeout", "application_name", "statement_cache_size", "direct_tls", "x", "mode", "uri"]),
        st.one_of(st.sampled_from(["require", "disable", "1", "0", "-3", "nan", "inf", "true", "abc", "", "memory"]), st.text(max_size=8)),
    ),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(scheme=_parts, host=_hosts, db=st.sampled_from(["db", "", "/x.db", ":memory:", "d%20b"]), query=_queries, junk=st.text(max_size=6))
def test_url_parser_raises_only_store_errors(scheme: str, host: str, db: str, query: list[tuple[str, str]], junk: str) -> None:
    """Whatever a user types as a store URL, the parser answers with a URL or a StoreError, never
    another exception (those were tracebacks in the CLI)."""
    from urllib.parse import quote

    q = "&".join(f"{k}={quote(v)}" for k, v in query)
    url = f"{scheme}://{host}/{db}{'?' + q if q else ''}{junk}"
    try:
        out = normalize_url(url)
    except StoreError:
        return
    parsed = make_url(out)
    if parsed.get_backend_name() == "postgresql":
        _asyncpg_connect_args(parsed)  # typed options convert, or raise StoreError


_CTRL = "a\u0000b\u001b[31m"


def test_validate_and_store_import_agree_on_a_session_id_with_control_characters(tmp_path: Path) -> None:
    """One rule (issue 32): validate said 0 errors where store import refused the file."""
    import json

    from typer.testing import CliRunner

    from interlingua.cli import app
    from interlingua.validation import validate_path

    line = {"schema_version": "1.0", "session_id": _CTRL, "seq": 0, "item": {"type": "text", "role": "user", "text": "hi"}}
    src = tmp_path / "env.jsonl"
    src.write_text(json.dumps(line) + "\n")
    result = validate_path([str(src)])
    assert not result.ok
    assert any(p.pointer == "/session_id" and "control characters" in p.message for p in result.problems)
    run = CliRunner().invoke(app, ["store", "import", "--url", str(tmp_path / "s.db"), str(src)])
    assert run.exit_code == 1, run.output
    # whitespace-only and path-like ids are data: both accept them
    for sid in ("   ", "../../etc/passwd"):
        src.write_text(json.dumps(dict(line, session_id=sid)) + "\n")
        assert validate_path([str(src)]).ok


def test_migrate_gives_a_claude_code_session_with_a_control_character_id_its_own_id(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from interlingua.cli import app
    from interlingua.validation import validate_path

    rec = {"type": "user", "timestamp": "2025-06-14T10:00:00Z", "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/tmp", "sessionId": _CTRL, "version": "1.0.0", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    src = tmp_path / "s.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "m.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["migrate", "--from", "claude-code", "-o", str(out), str(src)])
    assert result.exit_code == 0, result.output
    assert "control characters" in result.output
    assert validate_path([str(out)]).ok
    assert runner.invoke(app, ["store", "import", "--url", str(tmp_path / "s.db"), str(out)]).exit_code == 0
