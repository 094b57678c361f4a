"""Build and check the extra corpus: recorded provider traffic of client projects other than pydantic-ai.

Two commands, neither of which downloads anything:

``python tools/corpus_extra.py extract --out DIR NAME=GITDIR [...]``
    Reads HTTP test cassettes (VCR/vcrpy YAML, ruby VCR YAML) and recorded response fixtures
    (JSON files named ``*.json`` under ``__fixtures__``) from local git directories (one per
    project, at their ``HEAD``), keeps the bodies of the wire formats interlingua maps, redacts
    anything that looks like a credential, and writes ``DIR/<project>/<format>/<name>.<n>.<kind>.<ext>``
    with ``DIR/manifest.tsv`` (``file format kind project path commit interaction license``).
    Headers are never kept. Byte-identical bodies are kept once.

``python tools/corpus_extra.py check [DIR]``
    Checks a built corpus (default ``tests/fixtures/corpus_extra``, the archive unpacked into a
    temporary folder): every manifest row names a file that exists, every file has a row, JSON
    bodies parse, the kind matches the name, and no body holds a credential-shaped string. Exit 1
    with the problems listed when any check fails.

The format of a body is read from the recorded URL (host and path), as the shared corpus does:
``/chat/completions`` is ``openai-chat`` (``mistral`` on api.mistral.ai), ``/responses`` is
``openai-responses``, ``/v1/messages`` is ``anthropic``, ``:generateContent`` and
``:streamGenerateContent`` are ``gemini``, ``/api/chat`` is ``ollama``, ``/v2/chat`` is
``cohere``, ``/model/<id>/converse`` is ``bedrock-converse``.
"""

from __future__ import annotations

import argparse
import base64
import csv
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml  # type: ignore[import-untyped]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO / "tests" / "fixtures" / "corpus_extra"
ARCHIVE = "corpus_extra.tar.xz"
COLUMNS = ("file", "format", "kind", "project", "path", "commit", "interaction", "license")
MAX_BODY = 400_000  # bytes: larger bodies (mostly inline media) are left out to keep the corpus small

# A credential-shaped string (not inside a longer token: base64 blobs hold such letters by chance): OpenAI/Anthropic/Mistral-style keys, Google API keys, AWS access keys, bearer tokens.
SECRET = re.compile(
    r"(?<![A-Za-z0-9+/=_\-])(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}"
    r"|Bearer\s+[A-Za-z0-9._\-]{20,}|xai-[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,})"
)


# ---------------------------------------------------------------------------------------------- formats


def wire_format(uri: str) -> str | None:
    """The wire format of a recorded POST, from its URL (``None``: not one interlingua maps)."""
    u = urlparse(uri)
    host, path = u.netloc.lower(), u.path
    if path.endswith("/chat/completions"):
        return "mistral" if "mistral.ai" in host else "openai-chat"
    if re.search(r"/responses/?$", path):
        return "openai-responses"
    if re.search(r"/v1/messages/?$", path) and "batches" not in path:
        return "anthropic"
    if re.search(r":(stream)?generateContent$", path, re.I):
        return "gemini"
    if path.endswith("/api/chat"):
        return "ollama"
    if path.endswith("/v2/chat") and "cohere" in host:
        return "cohere"
    if re.search(r"/model/[^/]+/converse$", path):
        return "bedrock-converse"
    return None


def fixture_format(path: str) -> str | None:
    """The wire format of a vercel/ai ``__fixtures__`` response file, from its package folder."""
    m = re.match(r"packages/([^/]+)/src/(?:([^/]+)/)?__fixtures__/", path)
    if not m:
        return None
    pkg, sub = m.group(1), m.group(2)
    if pkg == "anthropic" and sub is None:
        return "anthropic"
    if pkg in ("openai", "azure") and sub == "responses":
        return "openai-responses"
    if pkg == "azure" and sub is None:
        return "openai-responses" if "responses" in path.rsplit("/", 1)[-1] or "response" in path else None
    if pkg in ("openai", "openai-compatible", "deepseek") and sub == "chat":
        return "openai-chat"
    if pkg == "google" and sub is None:
        return "gemini"
    if pkg == "cohere":
        return "cohere"
    if pkg == "mistral":
        return "mistral"
    if pkg == "amazon-bedrock" and sub is None:
        return "bedrock-converse"
    return None


# ---------------------------------------------------------------------------------------------- reading cassettes


class _Loader(yaml.SafeLoader):
    """YAML with vcrpy's ``!!binary`` and any python tag read as plain data."""


def _unknown(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(node)


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _unknown)
_Loader.add_multi_constructor("!", _unknown)


def _inflate(data: bytes) -> bytes:
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:1] == b"\x78":
        try:
            return zlib.decompress(data)
        except zlib.error:
            return data
    return data


def _body_bytes(body: Any) -> bytes | None:
    """The bytes of a recorded body (vcrpy: a string or ``{string: ...}``; ruby VCR: ``{string|base64_string}``)."""
    if body is None:
        return None
    if isinstance(body, dict):
        if body.get("base64_string"):
            return _inflate(base64.b64decode(body["base64_string"]))
        body = body.get("string")
    if isinstance(body, bytes):
        return _inflate(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    return None


def _status(resp: dict[str, Any]) -> int:
    st = resp.get("status") or {}
    try:
        return int(st.get("code", 0)) if isinstance(st, dict) else int(st)
    except (TypeError, ValueError):
        return 0


def _is_stream(data: bytes) -> bool:
    head = data.lstrip()[:16]
    return head.startswith((b"data:", b"event:", b":"))


def cassette_bodies(text: str) -> Iterator[tuple[int, str, str, bytes]]:
    """``(interaction, format, kind, body)`` of each POST of a cassette whose format is mapped."""
    doc = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    if not isinstance(doc, dict):
        return
    interactions = doc.get("interactions") or doc.get("http_interactions") or []
    for n, it in enumerate(interactions):
        if not isinstance(it, dict):
            continue
        req, resp = it.get("request") or {}, it.get("response") or {}
        if str(req.get("method", "")).lower() != "post":
            continue
        fmt = wire_format(str(req.get("uri", "")))
        if fmt is None:
            continue
        body = _body_bytes(req.get("body"))
        if body and body.lstrip()[:1] == b"{":
            yield n, fmt, "request", body
        if _status(resp) // 100 != 2:
            continue
        rbody = _body_bytes(resp.get("body"))
        if not rbody:
            continue
        if _is_stream(rbody):
            yield n, fmt, "stream", rbody
        elif rbody.lstrip()[:1] == b"{":
            yield n, fmt, "response", rbody


# ---------------------------------------------------------------------------------------------- redaction


def redact(data: bytes) -> bytes:
    """``data`` with every credential-shaped string replaced by ``<REDACTED>``."""
    text = data.decode("utf-8", errors="surrogateescape")
    return SECRET.sub("<REDACTED>", text).encode("utf-8", errors="surrogateescape")


# ---------------------------------------------------------------------------------------------- extract


def _git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], check=True, capture_output=True).stdout


def _slug(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    name = re.sub(r"\.(ya?ml|json)$", "", name)
    parent = path.rsplit("/", 2)[-2] if path.count("/") >= 1 else ""
    if parent and parent not in ("cassettes", "vcr_cassettes", "__fixtures__"):
        name = f"{parent}__{name}"
    name = re.sub(r"[^A-Za-z0-9_.\-]+", "_", name)
    return name[:120]


def _valid_json(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def _items(gitdir: Path, path: str) -> list[tuple[int, str, str, bytes]]:
    """The mapped bodies of one file of a project (a cassette or a response fixture)."""
    if re.search(r"(cassette|vcr)[^/]*/.*\.ya?ml$", path.lower()):
        return list(cassette_bodies(_git(gitdir, "show", f"HEAD:{path}").decode("utf-8", errors="replace")))
    if "__fixtures__/" in path and path.endswith(".json"):
        fmt = fixture_format(path)
        if fmt:
            return [(0, fmt, "response", _git(gitdir, "show", f"HEAD:{path}"))]
    return []


def extract(out: Path, sources: dict[str, Path], licenses: dict[str, str]) -> list[dict[str, str]]:
    """Write the bodies of every project into ``out`` and return the manifest rows."""
    rows: list[dict[str, str]] = []
    seen: set[str] = set()
    names: set[str] = set()
    for project, gitdir in sources.items():
        commit = _git(gitdir, "rev-parse", "HEAD").decode().strip()
        paths = _git(gitdir, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
        for path in paths:
            try:
                items = _items(gitdir, path)
            except (subprocess.CalledProcessError, yaml.YAMLError):
                continue  # a file absent from the local copy (its largest blobs) or not YAML
            for n, fmt, kind, body in items:
                if len(body) > MAX_BODY:
                    continue
                if kind != "stream" and not _valid_json(body):
                    continue
                if kind == "stream" and fmt in ("ollama", "bedrock-converse", "cohere", "mistral"):
                    continue  # no reference accumulator for these streams in the corpus engine
                body = redact(body)
                digest = hashlib.sha256(body).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                ext = "sse" if kind == "stream" else "json"
                name = f"{project}/{fmt}/{_slug(path)}.{n}.{kind}.{ext}"
                if name in names:  # two cassettes of one name in different folders
                    name = f"{project}/{fmt}/{_slug(path)}-{hashlib.sha256(path.encode()).hexdigest()[:8]}.{n}.{kind}.{ext}"
                names.add(name)
                target = out / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
                rows.append({"file": name, "format": fmt, "kind": kind, "project": project, "path": path,
                             "commit": commit, "interaction": str(n), "license": licenses.get(project, "")})
    rows.sort(key=lambda r: r["file"])
    with (out / "manifest.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, COLUMNS, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return rows


def archive(out: Path, rows: list[dict[str, str]]) -> Path:
    """Pack the body files of ``out`` into ``out/corpus_extra.tar.xz`` (deterministic order, no owners or times)."""
    dest = out / ARCHIVE
    with tarfile.open(dest, "w:xz", preset=9) as tar:
        for r in rows:
            data = (out / r["file"]).read_bytes()
            info = tarfile.TarInfo(r["file"])
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return dest


# ---------------------------------------------------------------------------------------------- check


def read_manifest(folder: Path) -> list[dict[str, str]]:
    with (folder / "manifest.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def check(folder: Path, files_root: Path) -> list[str]:
    """Problems of the corpus whose manifest is in ``folder`` and whose files are under ``files_root``."""
    problems: list[str] = []
    rows = read_manifest(folder)
    listed = set()
    for i, r in enumerate(rows, start=2):
        where = f"manifest.tsv line {i}"
        if tuple(r) != COLUMNS:
            problems.append(f"{where}: columns {tuple(r)} (expected {COLUMNS})")
            break
        listed.add(r["file"])
        path = files_root / r["file"]
        if not path.is_file():
            problems.append(f"{where}: {r['file']} is missing")
            continue
        if not re.fullmatch(r"[0-9a-f]{40}", r["commit"]):
            problems.append(f"{where}: commit {r['commit']!r} is not a git commit id")
        if not r["file"].startswith(f"{r['project']}/{r['format']}/") or f".{r['kind']}." not in r["file"]:
            problems.append(f"{where}: {r['file']} is not named <project>/<format>/...<kind>.<ext>")
        data = path.read_bytes()
        if r["kind"] != "stream" and not _valid_json(data):
            problems.append(f"{r['file']}: not a JSON object")
        m = SECRET.search(data.decode("utf-8", errors="replace"))
        if m:
            problems.append(f"{r['file']}: holds a credential-shaped string at byte {m.start()}")
    present = {p.relative_to(files_root).as_posix() for p in files_root.rglob("*.*")
               if p.is_file() and p.parent != files_root}
    for extra in sorted(present - listed):
        problems.append(f"{extra}: not in manifest.tsv")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract", help="build the corpus from local git directories")
    ex.add_argument("--out", type=Path, default=DEFAULT_DIR)
    ex.add_argument("--license", action="append", default=[], metavar="PROJECT=SPDX")
    ex.add_argument("--archive", action="store_true", help="pack the files into corpus_extra.tar.xz and remove them")
    ex.add_argument("sources", nargs="+", metavar="PROJECT=GITDIR")
    ck = sub.add_parser("check", help="check a built corpus")
    ck.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        sources = {k: Path(v) for k, v in (s.split("=", 1) for s in args.sources)}
        licenses = dict(s.split("=", 1) for s in args.license)
        rows = extract(args.out, sources, licenses)
        if args.archive:
            archive(args.out, rows)
            for r in rows:
                (args.out / r["file"]).unlink()
            for d in sorted({(args.out / r["file"]).parent for r in rows}, reverse=True):
                for p in (d, d.parent):
                    if p != args.out and p.is_dir() and not any(p.iterdir()):
                        p.rmdir()
        print(f"{len(rows)} files written to {args.out}")
        return 0
    folder: Path = args.folder
    if (folder / ARCHIVE).is_file():
        with tempfile.TemporaryDirectory() as tmp:
            with tarfile.open(folder / ARCHIVE, "r:xz") as tar:
                tar.extractall(tmp, filter="data")
            problems = check(folder, Path(tmp))
    else:
        problems = check(folder, folder)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(read_manifest(folder))} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
