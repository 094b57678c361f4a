"""Measure interlingua's offline token estimate against the input usage providers reported.

For every recorded request whose response (JSON body or stream) reports ``usage.input_tokens``, in
``tests/fixtures/real`` and the pydantic-ai corpus (``$INTERLINGUA_CORPUS``, unpacked to a temporary
folder), the request is decoded by its mapper and :func:`interlingua.history.count_tokens` estimates
it offline. Prints, per wire format, the number of pairs and the median and worst relative error
(estimate / reported - 1), as a Markdown table for docs/history.md.

    INTERLINGUA_CORPUS=/path/to/corpus python tools/measure_token_estimate.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

import msgspec

from interlingua.errors import InterlinguaError
from interlingua.history import count_tokens
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, collect

ROOT = Path(__file__).resolve().parents[1]
FORMATS = {"openai_chat": "openai-chat", "openai_responses": "openai-responses", "anthropic": "anthropic", "gemini": "gemini"}
CORPUS_FORMATS = {"openai-chat", "openai-responses", "anthropic", "gemini"}


def _reported(fmt: str, path: Path) -> int | None:
    mapper = get_mapper(fmt)
    try:
        if path.suffix == ".json":
            usage = mapper.decode_response(json.loads(path.read_text(encoding="utf-8"))).value.usage
        else:
            last = collect(mapper, path.read_bytes())[-1]
            if not isinstance(last, StreamDone):
                return None
            usage = last.response.usage
    except (InterlinguaError, ValueError, KeyError, TypeError):
        return None
    if usage is None or usage is msgspec.UNSET or usage.input_tokens is msgspec.UNSET:
        return None
    return int(usage.input_tokens)


def pairs(folder: Path, fmt: str) -> list[tuple[Path, Path]]:
    out = []
    for req in sorted(folder.glob("*.request.json")):
        stem = req.name[: -len(".request.json")]
        for ext in (".response.json", ".response.sse"):
            resp = req.with_name(stem + ext)
            if resp.exists():
                out.append((req, resp))
                break
    return out


def measure(sources: list[tuple[str, Path, Path]]) -> dict[str, list[float]]:
    errors: dict[str, list[float]] = defaultdict(list)
    for fmt, req, resp in sources:
        reported = _reported(fmt, resp)
        if not reported:
            continue
        try:
            transcript = get_mapper(fmt).decode_request(json.loads(req.read_text(encoding="utf-8"))).value
        except (InterlinguaError, ValueError, KeyError, TypeError):
            continue
        estimate = count_tokens(msgspec.structs.replace(transcript, responses=msgspec.UNSET)).input_tokens
        errors[fmt].append(estimate / reported - 1)
    return errors


def main() -> int:
    sources: list[tuple[str, Path, Path]] = []
    for d, fmt in FORMATS.items():
        sources += [(fmt, a, b) for a, b in pairs(ROOT / "tests" / "fixtures" / "real" / d, fmt)]
    corpus = os.environ.get("INTERLINGUA_CORPUS")
    tmp = None
    if corpus:
        tmp = tempfile.TemporaryDirectory()
        with tarfile.open(Path(corpus) / "corpus.tar.xz", "r:xz") as tar:
            tar.extractall(tmp.name, filter="data")
        for fmt in CORPUS_FORMATS:
            sources += [(fmt, a, b) for a, b in pairs(Path(tmp.name) / fmt, fmt)]
    errors = measure(sources)
    print("| wire format | pairs | median error | median abs. error | worst under | worst over |")
    print("|---|---:|---:|---:|---:|---:|")
    for fmt in sorted(errors):
        e = errors[fmt]
        print(
            f"| {fmt} | {len(e)} | {statistics.median(e):+.0%} | {statistics.median(abs(x) for x in e):.0%} | {min(e):+.0%} | {max(e):+.0%} |"
        )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
