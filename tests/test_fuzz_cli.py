"""The bounded fuzz run of issue 19: seeded mutations of the real fixtures through every CLI entry.

Each shard takes its own seeded ``random.Random`` per case and runs ``PER_SHARD`` cases in-process
(typer's ``CliRunner``): one real fixture, one mutation (a field set to a wrong JSON type, a lone
surrogate, NaN, over-deep nesting, a key given twice or removed, a truncation, a cut or repeated line, a
flipped or inserted byte, an empty or blank file), one entry: ``convert`` (every ``--from`` with every
``--to``), ``migrate -o``, ``validate``, ``store import`` and ``replay --fixture``. Every case asserts:

- no traceback: the command ends with ``SystemExit``, never another exception;
- the exit code is 0, 1 or 2;
- no exit 0 on invalid input: input that is not JSON (or a document or session file ``validate``
  refuses) is never converted, migrated or imported with exit 0;
- every canonical output (stdout of ``convert --to canonical`` and ``replay``, the ``migrate -o`` file,
  what ``store export`` gives back after an import) passes ``validate``; a failed import leaves the
  store as it was; ``migrate`` leaves no temporary file.

A failure message names the shard, case, fixture and mutation: rerun one with ``-k 'shard-N'``; the
case list is a pure function of the seed. The shards are parametrized so ``-n 2`` spreads them.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner, Result

from interlingua.cli import app
from interlingua.conversion import convert_request
from interlingua.mapping import available
from interlingua.transport import provider_spec
from interlingua.validation import validate_bytes, validate_path

pytestmark = pytest.mark.fuzz

REAL = Path(__file__).parent / "fixtures" / "real"
# CI runs seed 19 with 4,000 cases; an attack run locally takes other seeds and more cases, e.g.
# INTERLINGUA_FUZZ_SEED=7 INTERLINGUA_FUZZ_PER_SHARD=2000 pytest tests/test_fuzz_cli.py -n 2
SEED = os.environ.get("INTERLINGUA_FUZZ_SEED", "19")
SHARDS = 16
PER_SHARD = int(os.environ.get("INTERLINGUA_FUZZ_PER_SHARD", "250"))  # 4,000 cases in all
DIRS = {"anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "openrouter": "openai-chat", "openai_chat_extra": "openai-chat", "openai_compatible": "openai-chat", "bedrock_converse": "bedrock-converse"}
# any other fixture folder named after a registered mapper (a provider added later is fuzzed too)
DIRS.update({d.name: d.name.replace("_", "-") for d in REAL.iterdir() if d.is_dir() and d.name not in DIRS and d.name.replace("_", "-") in available()})
FORMATS = sorted(set(DIRS.values()))
TARGETS = ["canonical", *FORMATS]
BODIES = sorted(
    (p, DIRS[p.parent.name], "request" if ".request." in p.name else "response")
    for p in REAL.glob("*/*.json")
    if p.parent.name in DIRS and "error" not in p.name and p.name != "index.json" and p.stat().st_size < 200_000
)
STREAMS = sorted((p, DIRS[p.parent.name]) for p in REAL.glob("*/*") if p.parent.name in DIRS and p.suffix in (".sse", ".ndjson"))
# What `replay` sends for each provider (the path the fixture's exchange must have).
REPLAY = {
    "anthropic": ("/v1/messages", "claude-sonnet-4-5", "text/event-stream"),
    "openai-chat": ("/v1/chat/completions", "gpt-4.1", "text/event-stream"),
    "openai-responses": ("/v1/responses", "gpt-4.1", "text/event-stream"),
    "gemini": ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "gemini-2.5-flash", "text/event-stream"),
    "ollama": ("/api/chat", "llama3.2", "application/x-ndjson"),
}
# `replay --no-stream`: every format with HTTP rules and recorded response bodies, and a model for it.
_MODELS = {**{fmt: m for fmt, (_, m, _) in REPLAY.items()}, "bedrock-converse": "us.amazon.nova-lite-v1:0", "cohere": "command-a-03-2025", "mistral": "mistral-large-latest"}
NO_STREAM = {fmt: _MODELS[fmt] for fmt in sorted({fmt for _, fmt, kind in BODIES if kind == "response"}) if fmt in _MODELS and provider_spec(fmt) is not None}
assert {"bedrock-converse", "cohere", "mistral"} <= set(NO_STREAM), NO_STREAM
WRONG: list[Any] = [None, [], {}, 7, -1, 1.5, "s", "", True, False, 2**63, -(2**63) - 1, [1, "x"], {"type": []}]
runner = CliRunner()


# --------------------------------------------------------------------------- mutations


def _pointers(value: Any, ptr: str = "") -> list[str]:
    out = [ptr]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _pointers(v, f"{ptr}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _pointers(v, f"{ptr}/{i}")
    return out


def _key(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


_MARK = "\x00FUZZ\x00"


def _mutate_json(doc: Any, rng: random.Random) -> tuple[str, bytes]:
    """(what was done, the mutated JSON text) for one place of ``doc``."""
    doc = msgspec.json.decode(msgspec.json.encode(doc))
    ptrs = _pointers(doc)
    ptr = rng.choice(ptrs[1:] or ptrs)
    kind = rng.choice(["type", "type", "type", "surrogate", "nan", "deep", "delete", "repeat"])
    if ptr == "":
        return f"root={kind}", msgspec.json.encode(rng.choice(WRONG))
    *parents, last = ptr.split("/")[1:]
    cur = doc
    for part in parents:
        cur = cur[int(part)] if isinstance(cur, list) else cur[_key(part)]
    slot: Any = int(last) if isinstance(cur, list) else _key(last)
    old = cur[slot]
    if kind == "delete":
        del cur[slot]
        return f"{ptr} deleted", msgspec.json.encode(doc)
    if kind == "repeat" and isinstance(cur, dict):
        # the key given twice: first with a wrong value, then its own (the last one counts, ADR 0015)
        cur[slot] = _MARK
        text = msgspec.json.encode(doc)
        again = msgspec.json.encode(rng.choice(WRONG)) + b"," + msgspec.json.encode(slot) + b":" + msgspec.json.encode(old)
        return f"{ptr} repeated", text.replace(msgspec.json.encode(_MARK), again, 1)
    cur[slot] = _MARK
    if kind == "surrogate":
        text = old if isinstance(old, str) else "x"
        cut = rng.randint(0, len(text))
        raw = msgspec.json.encode(text[:cut])[:-1] + rng.choice([b"\\udc00", b"\\ud800", b"\\ud800\\u0041"]) + msgspec.json.encode(text[cut:])[1:]
    elif kind == "nan":
        raw = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999"])
    elif kind == "deep":
        n = rng.choice([100, 5000, 12000])
        raw = (b"[" * n + b"]" * n) if rng.random() < 0.5 else (b'{"a":' * n + b"1" + b"}" * n)
    else:
        raw = msgspec.json.encode(rng.choice(WRONG))
    return f"{ptr}={kind}:{raw[:24]!r}", msgspec.json.encode(doc).replace(msgspec.json.encode(_MARK), raw, 1)


def _mutate_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    kind = rng.choice(["truncate", "cut", "flip", "insert", "dup_line", "drop_line", "swap_lines", "empty", "blank"])
    n = len(data)
    if kind == "truncate":
        at = rng.randint(0, max(n - 1, 0))
        return f"truncate@{at}", data[:at]
    if kind == "cut":
        a = rng.randint(0, max(n - 1, 0))
        b = min(n, a + rng.randint(1, 64))
        return f"cut {a}:{b}", data[:a] + data[b:]
    if kind == "flip" and n:
        at = rng.randrange(n)
        return f"flip@{at}", data[:at] + bytes([data[at] ^ (1 << rng.randint(0, 7))]) + data[at + 1 :]
    if kind == "insert":
        at = rng.randint(0, n)
        junk = rng.choice([b"\x00", b"\xff", b'"', b"{", b"}", b",", b"\n", b"\\", b"\xed\xa0\x80", b"\r\n\r\n"])
        return f"insert {junk!r}@{at}", data[:at] + junk + data[at:]
    lines = data.split(b"\n")
    if kind in ("dup_line", "drop_line", "swap_lines") and len(lines) > 1:
        i = rng.randrange(len(lines))
        if kind == "dup_line":
            lines.insert(i, lines[i])
        elif kind == "drop_line":
            del lines[i]
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        return f"{kind} {i}", b"\n".join(lines)
    if kind == "blank":
        return "blank", b" \n\n\t\n"
    return "empty", b""


def mutate_document(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """A JSON document: mostly a structural mutation, sometimes a byte-level one."""
    if rng.random() < 0.7:
        try:
            return _mutate_json(msgspec.json.decode(data), rng)
        except msgspec.DecodeError:
            pass
    return _mutate_bytes(data, rng)


def mutate_lines(data: bytes, rng: random.Random, *, sse: bool = False) -> tuple[str, bytes]:
    """JSON Lines, NDJSON or SSE: one JSON line (a ``data:`` line) mutated structurally, or bytes."""
    lines = data.split(b"\n")
    idx = [i for i, ln in enumerate(lines) if (ln.startswith(b"data:") if sse else ln.strip().startswith(b"{"))]
    if idx and rng.random() < 0.7:
        i = rng.choice(idx)
        body = lines[i][5:].strip() if sse else lines[i]
        try:
            what, new = _mutate_json(msgspec.json.decode(body), rng)
        except msgspec.DecodeError:
            return _mutate_bytes(data, rng)
        lines[i] = b"data: " + new if sse else new
        return f"line {i + 1}: {what}", b"\n".join(lines)
    return _mutate_bytes(data, rng)


# --------------------------------------------------------------------------- seeds (built once per worker)


@dataclass
class Seeds:
    documents: list[tuple[str, bytes]]  # canonical transcript documents
    sessions: list[tuple[str, bytes]]  # session files (migrate -o)
    transcript: Path  # the transcript replay sends


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> Seeds:
    tmp = tmp_path_factory.mktemp("fuzz-seeds")
    requests = [b for b in BODIES if b[2] == "request"]
    documents = []
    for path, fmt, _ in requests[:: max(1, len(requests) // 24)]:
        doc = convert_request(path.read_bytes(), source=fmt, target="canonical", policy="drop").value
        documents.append((f"{path.name}->canonical", msgspec.json.encode(doc)))
    sessions = []
    for i, (path, _, _) in enumerate(requests[:: max(1, len(requests) // 12)]):
        out = tmp / f"s{i}.jsonl"
        res = runner.invoke(app, ["migrate", str(path), "-o", str(out), "-q"])
        assert res.exit_code == 0, res.output
        sessions.append((f"{path.name}->session", out.read_bytes()))
    sessions.append(("two sessions", sessions[0][1] + sessions[1][1]))
    transcript = tmp / "hello.json"
    transcript.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "system", "text": "Answer in two words."}, {"type": "text", "role": "user", "text": "Say hello."}]}))
    return Seeds(documents, sessions, transcript)


# --------------------------------------------------------------------------- checks


class Case:
    def __init__(self, label: str, tmp: Path) -> None:
        self.label = label
        self.tmp = tmp

    def run(self, *argv: str) -> Result:
        res = runner.invoke(app, list(argv))
        exc = res.exception
        assert exc is None or isinstance(exc, SystemExit), f"{self.label}: {argv[0]} raised {exc!r}"
        assert res.exit_code in (0, 1, 2), f"{self.label}: {argv[0]} exit {res.exit_code}"
        assert "Traceback" not in res.output, f"{self.label}: {res.output[-2000:]}"
        return res

    def valid_bytes(self, data: bytes, what: str) -> None:
        result = validate_bytes(data, file=what)
        assert result.ok, f"{self.label}: {what} does not validate: {[str(p) for p in result.problems[:3]]}"

    def valid_file(self, path: Path, what: str) -> None:
        result = validate_path([str(path)])
        assert result.ok, f"{self.label}: {what} does not validate: {[str(p) for p in result.problems[:3]]}"


def _is_json(data: bytes) -> bool:
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


def check_convert_body(case: Case, rng: random.Random) -> None:
    path, fmt, kind = rng.choice(BODIES)
    what, data = mutate_document(path.read_bytes(), rng)
    case.label += f" convert {path.parent.name}/{path.name} [{what}]"
    src = case.tmp / "in.json"
    src.write_bytes(data)
    target = rng.choice(TARGETS)
    argv = ["convert", "--from", fmt, "--to", target, str(src)]
    if rng.random() < 0.5:
        argv += ["--kind", kind]
    if rng.random() < 0.3:
        argv += ["--policy", rng.choice(["drop", "degrade"])]
    res = case.run(*argv)
    if res.exit_code == 0:
        assert _is_json(data), f"{case.label}: exit 0 on input that is not JSON"
        if target == "canonical":
            case.valid_bytes(res.stdout.encode(), "convert output")
        else:
            assert _is_json(res.stdout.encode()), f"{case.label}: output is not JSON"


def check_convert_stream(case: Case, rng: random.Random) -> None:
    path, fmt = rng.choice(STREAMS)
    what, data = mutate_lines(path.read_bytes(), rng, sse=path.suffix == ".sse")
    case.label += f" convert stream {path.parent.name}/{path.name} [{what}]"
    src = case.tmp / f"in{path.suffix}"
    src.write_bytes(data)
    target = rng.choice(TARGETS)
    res = case.run("convert", "--from", fmt, "--to", target, "--kind", "stream", str(src))
    if res.exit_code == 0 and target == "canonical":
        case.valid_bytes(res.stdout.encode(), "convert output")


def check_convert_canonical(case: Case, seeds: Seeds, rng: random.Random) -> None:
    name, base = rng.choice(seeds.documents)
    what, data = mutate_document(base, rng)
    case.label += f" convert canonical {name} [{what}]"
    src = case.tmp / "in.json"
    src.write_bytes(data)
    target = rng.choice(TARGETS)
    policy = rng.choice(["error", "drop", "degrade"])
    res = case.run("convert", "--from", "canonical", "--to", target, "--policy", policy, "--model", "any-model", str(src))
    checked = validate_bytes(data, file="in")
    valid = checked.ok
    if res.exit_code == 0 and not valid and target != "canonical" and policy != "error":
        # a request under drop/degrade: what the history integrity rules repair (a result without its
        # call, a reused call id) is repaired and reported; nothing else validate refuses gets through
        assert all("not an earlier tool_call" in p.message or "not an earlier handoff_call" in p.message or "duplicate item id" in p.message for p in checked.problems), f"{case.label}: convert exit 0 on a document validate refuses"
        assert "warning: " in res.stderr, f"{case.label}: a repair was not reported"
    elif res.exit_code == 0:
        assert valid, f"{case.label}: convert exit 0 on a document validate refuses"
        if target == "canonical":
            case.valid_bytes(res.stdout.encode(), "convert output")
    elif target == "canonical":
        assert not valid, f"{case.label}: validate accepts what convert refuses: {res.stderr[-500:]}"


def check_migrate(case: Case, rng: random.Random) -> None:
    path, fmt, _ = rng.choice([b for b in BODIES if b[2] == "request"])
    what, data = mutate_document(path.read_bytes(), rng)
    case.label += f" migrate {path.parent.name}/{path.name} [{what}]"
    src = case.tmp / "in.json"
    src.write_bytes(data)
    out = case.tmp / "out.jsonl"
    argv = ["migrate", str(src), "-o", str(out), "-q"]
    if rng.random() < 0.5:
        argv[1:1] = ["--from", fmt]
    res = case.run(*argv)
    if res.exit_code == 0:
        assert _is_json(data), f"{case.label}: exit 0 on input that is not JSON"
    if out.exists() and out.stat().st_size:
        case.valid_file(out, "migrate -o output")
    leftovers = [p.name for p in case.tmp.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers, f"{case.label}: temporary files left: {leftovers}"


def check_validate(case: Case, seeds: Seeds, rng: random.Random) -> None:
    if rng.random() < 0.5:
        name, base = rng.choice(seeds.documents)
        what, data = mutate_document(base, rng)
        src = case.tmp / "in.json"
    else:
        name, base = rng.choice(seeds.sessions)
        what, data = mutate_lines(base, rng)
        src = case.tmp / "in.jsonl"
    case.label += f" validate {name} [{what}]"
    src.write_bytes(data)
    res = case.run("validate", str(src), "--format", rng.choice(["text", "json", "github"]))
    if not _is_json(data) and src.suffix == ".json":
        assert res.exit_code != 0, f"{case.label}: validate exit 0 on a document that is not JSON"


def _session_count(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM interlingua_sessions").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def check_store_import(case: Case, seeds: Seeds, rng: random.Random, db: Path) -> None:
    name, base = rng.choice(seeds.sessions)
    what, data = mutate_lines(base, rng)
    case.label += f" store import {name} [{what}]"
    src = case.tmp / "in.jsonl"
    src.write_bytes(data)
    before = _session_count(db)
    res = case.run("store", "import", "--url", str(db), "--new-id", "-q", str(src))
    if res.exit_code == 0:
        assert validate_path([str(src)]).ok, f"{case.label}: store import exit 0 on a file validate refuses"
        ids = res.stdout.split()
        assert ids and _session_count(db) == before + len(ids), (case.label, res.stdout)
        exported = case.run("store", "export", "--url", str(db), ids[-1])
        assert exported.exit_code == 0
        case.valid_bytes(exported.stdout.encode(), "store export of the import")
    else:
        assert _session_count(db) == before, f"{case.label}: a failed import changed the store"
        # one contract (ADR 0018): what import refuses, validate refuses too
        assert not validate_path([str(src)]).ok, f"{case.label}: validate accepts what store import refuses: {res.stderr[-500:]}"


def check_replay(case: Case, seeds: Seeds, rng: random.Random) -> None:
    if rng.random() < 0.4:
        # a whole (non-stream) response of any provider with HTTP rules: mistral, cohere and bedrock too
        provider = rng.choice(sorted(NO_STREAM))
        model = NO_STREAM[provider]
        path_, ctype = provider_spec(provider).path(model, False), "application/json"  # type: ignore[union-attr]
        source = rng.choice([p for p, fmt, kind in BODIES if fmt == provider and kind == "response"])
        stream_flag = ["--no-stream"]
    else:
        provider = rng.choice(sorted(REPLAY))
        path_, model, ctype = REPLAY[provider]
        source, _ = rng.choice([s for s in STREAMS if s[1] == provider])
        stream_flag = []
    stream = source
    text = stream.read_text(encoding="utf-8", errors="replace")
    exchange: dict[str, Any] = {"version": 1, "request": {"method": "POST", "url": "https://provider.invalid" + path_, "headers": {}, "body": ""}, "response": {"status": 200, "headers": {"content-type": ctype}, "encoding": "utf-8", "chunks": [text]}}
    if rng.random() < 0.7:
        what, body = mutate_lines(text.encode(), rng, sse=ctype == "text/event-stream")
        exchange["response"]["chunks"] = [body.decode("utf-8", errors="replace")]
        fixture_text = json.dumps(exchange) + "\n"
    else:
        what, raw = mutate_document(json.dumps(exchange).encode(), rng)
        fixture_text = raw.decode("utf-8", errors="replace") + "\n"
    case.label += f" replay {provider} {stream.name} [{what}]"
    fixture = case.tmp / "fx.jsonl"
    fixture.write_text(fixture_text, encoding="utf-8")
    res = case.run("replay", str(seeds.transcript), "--provider", provider, "--model", model, "--fixture", str(fixture), *stream_flag)
    if res.exit_code == 0:
        case.valid_bytes(res.stdout.encode(), "replay output")


# --------------------------------------------------------------------------- the run

ENTRIES = ["convert", "convert", "stream", "canonical", "migrate", "validate", "import", "replay"]


def cases_of(shard: int) -> list[tuple[int, str, random.Random]]:
    """The shard's cases (index, entry, the case's own Random): a pure function of SEED and shard."""
    return [(i, ENTRIES[(shard + i) % len(ENTRIES)], random.Random(f"{SEED}:{shard}:{i}")) for i in range(PER_SHARD)]


@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda s: f"shard-{s}")
def test_fuzz_every_cli_entry(shard: int, seeds: Seeds, tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite3"
    for i, entry, rng in cases_of(shard):
        work = tmp_path / f"c{i}"
        work.mkdir()
        case = Case(f"shard {shard} case {i}:", work)
        if entry == "convert":
            check_convert_body(case, rng)
        elif entry == "stream":
            check_convert_stream(case, rng)
        elif entry == "canonical":
            check_convert_canonical(case, seeds, rng)
        elif entry == "migrate":
            check_migrate(case, rng)
        elif entry == "validate":
            check_validate(case, seeds, rng)
        elif entry == "import":
            check_store_import(case, seeds, rng, db)
        else:
            check_replay(case, seeds, rng)


def test_the_case_list_is_a_pure_function_of_the_seed(seeds: Seeds) -> None:
    """Reruns see the same cases (a failure can be replayed by shard)."""
    a = [(i, e, mutate_document(seeds.documents[0][1], r)) for i, e, r in cases_of(3)[:20]]
    b = [(i, e, mutate_document(seeds.documents[0][1], r)) for i, e, r in cases_of(3)[:20]]
    assert a == b and len({x[2][1] for x in a}) > 10
