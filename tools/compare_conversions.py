"""Compare two source trees' conversions of every real request body, to every target.

Used to show a refactoring leaves behaviour unchanged (issue 30: "every real request body must encode
byte-identical and decode to the same transcript and report"):

    python tools/compare_conversions.py --base /tmp/base/src --head src [--corpus /path/to/corpus.tar.xz]

Each tree is run in its own process (``PYTHONPATH=<tree>``), which reads every request body of
``tests/fixtures/real`` (``*.request.json``), of the extra corpus (``tests/fixtures/corpus_extra``) and, when
given, of the pydantic-ai corpus; decodes it with its own mapper (an OpenAI-compatible host's file with that
host's dialect) and encodes the transcript to every mapper and every OpenAI Chat dialect under policies
``error`` and ``degrade``. For each (file, step) it records a digest of the exact output: the decoded
transcript's JSON and report, or the body's JSON bytes (key order included) and report, or the error's type
and message. The two runs' digests are compared; a difference prints the file and step.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "fixtures" / "real"
EXTRA = REPO / "tests" / "fixtures" / "corpus_extra" / "corpus_extra.tar.xz"

_DIRS = {
    "anthropic": "anthropic",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
    "gemini": "gemini",
    "mistral": "mistral",
    "ollama": "ollama",
    "openai_chat": "openai-chat",
    "openai_chat_extra": "openai-chat",
    "openai_compatible": "openai-chat",
    "openai_compatible_hosts": "openai-chat",
    "openrouter": "openai-chat:openrouter",
    "openai_responses": "openai-responses",
}


def _requests(corpus: str | None) -> Iterator[tuple[str, str, Any]]:
    """``(name, source mapper, body)`` of every real request body."""
    for path in sorted(REAL.rglob("*.request.json")):
        rel = path.relative_to(REAL)
        if rel.parts[0] == "corpus":
            fmt = {"openai_chat": "openai-chat", "openai_responses": "openai-responses"}.get(rel.parts[1], rel.parts[1])
        else:
            fmt = _DIRS.get(rel.parts[0])
        folder = rel.parts[0]
        if fmt is None:
            continue
        if folder == "openai_compatible_hosts":
            fmt = f"openai-chat:{path.name.split('__', 1)[0]}"
        yield f"real/{rel}", fmt, json.loads(path.read_text())
    archives = [("extra", EXTRA)] + ([("corpus", Path(corpus))] if corpus else [])
    for label, archive in archives:
        with tarfile.open(archive) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if not member.name.endswith(".request.json"):
                    continue
                parts = member.name.split("/")
                fmt = parts[-2] if label == "extra" else parts[0]
                handle = tar.extractfile(member)
                assert handle is not None
                yield f"{label}/{member.name}", fmt, json.loads(handle.read())


def _digest(value: Any) -> str:
    return hashlib.sha256(value if isinstance(value, bytes) else json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:20]


def _report(conv: Any) -> list[str]:
    return [f"{e.action}|{e.index}|{e.item_type}|{e.pointer}|{e.reason}" for e in conv.report]


def dump(corpus: str | None, out: str) -> None:
    """Write one JSON line per (file, step): the digest of that step's exact output."""
    import msgspec

    from interlingua.errors import InterlinguaError
    from interlingua.mapping import available, get_mapper
    from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper

    def mapper(name: str) -> Any:
        base, _, dialect = name.partition(":")
        return OpenAIChatMapper(dialect=dialect) if dialect else get_mapper(base)

    targets = list(available()) + [f"openai-chat:{d}" for d in DIALECTS if d not in ("openai", "mistral")]
    mappers = {t: mapper(t) for t in targets}
    count = 0
    with open(out, "w") as fh:
        for name, fmt, body in _requests(corpus):
            count += 1
            try:
                source = mapper(fmt)
            except Exception:  # noqa: BLE001 - a folder prefix that is no dialect: the generic Chat mapper
                source = mapper("openai-chat")
            try:
                conv = source.decode_request(body)
                transcript = conv.value
                record: Any = [msgspec.json.encode(transcript).decode(), _report(conv)]
            except InterlinguaError as exc:
                transcript = None
                record = ["error", type(exc).__name__, str(exc)]
            fh.write(json.dumps({"file": name, "step": "decode", "digest": _digest(record)}) + "\n")
            if transcript is None:
                continue
            for target, m in mappers.items():
                for policy in ("error", "degrade"):
                    try:
                        enc = m.encode_request(transcript, policy=policy)
                        record = [json.dumps(enc.value, ensure_ascii=False), _report(enc)]
                    except InterlinguaError as exc:
                        record = ["error", type(exc).__name__, str(exc)]
                    except Exception as exc:  # noqa: BLE001 - a crash is an outcome too
                        record = ["crash", type(exc).__name__, str(exc)]
                    fh.write(json.dumps({"file": name, "step": f"{target}/{policy}", "digest": _digest(record)}) + "\n")
    print(f"{count} request bodies x {len(targets)} targets x 2 policies", file=sys.stderr)


def _load(path: str) -> dict[tuple[str, str], str]:
    out = {}
    with open(path) as fh:
        for line in fh:
            row = json.loads(line)
            out[(row["file"], row["step"])] = row["digest"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the src folder of the tree compared against (main)")
    parser.add_argument("--head", default=str(REPO / "src"), help="the src folder of the changed tree")
    parser.add_argument("--corpus", default=os.environ.get("INTERLINGUA_CORPUS_TAR"), help="the pydantic-ai corpus.tar.xz")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump(args.corpus, args.dump)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for label, tree in (("base", args.base), ("head", args.head)):
            out = str(Path(tmp) / f"{label}.jsonl")
            env = {**os.environ, "PYTHONPATH": tree}
            cmd = [sys.executable, __file__, "--base", args.base, "--dump", out] + (["--corpus", args.corpus] if args.corpus else [])
            subprocess.run(cmd, env=env, check=True)
            runs[label] = _load(out)
    base, head = runs["base"], runs["head"]
    differ = sorted(k for k in base.keys() | head.keys() if base.get(k) != head.get(k))
    for file, step in differ[:200]:
        print(f"DIFFERENT {file} {step}")
    files = {k[0] for k in base}
    print(f"{len(files)} request bodies, {len(base)} outputs compared: {len(differ)} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
