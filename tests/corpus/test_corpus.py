"""Every recorded file of the corpus through the mappers (issue 13).

Tests run the checks over chunks of files, so pytest-xdist spreads them over the workers:

* ``request-roundtrip``: decode_request -> encode_request to the same provider and model;
* ``response-roundtrip``: decode_response -> encode_response;
* ``stream``: the mapper's final items against a reference accumulation of the raw SSE events;
* ``cross``: the request to every other target under ``drop`` and ``degrade``; each text, tool call,
  tool result, image and reasoning text of the input is in the output or a report entry names its loss.

A check fails on a crash, a silent change or a silent drop (see ``_engine``). Files listed in
``known_gaps.toml`` are strict expected failures: each must still fail, so a fix makes its entry go
(regenerate the list with ``python tools/gen_corpus_gaps.py``). The corpus lives beside the repository
(``../shared/corpus``, or ``$INTERLINGUA_CORPUS``); without it these tests skip.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from . import _engine

GAPS_FILE = Path(__file__).with_name("known_gaps.toml")
CORPUS = _engine.corpus_dir()
ENTRIES = _engine.manifest(CORPUS)


def known_gaps() -> dict[tuple[str, str], str]:
    """``(check, file) -> class`` from ``known_gaps.toml``."""
    data = tomllib.loads(GAPS_FILE.read_text(encoding="utf-8")) if GAPS_FILE.exists() else {}
    return {(g["check"], f): f"{g['class']} (issue {g['issue']})" for g in data.get("gap", []) for f in g["files"]}


GAPS = known_gaps()


CHUNK = 50  # cases per test: few enough tests to keep pytest's overhead low, enough to spread over workers


def _chunks() -> list[object]:
    if not ENTRIES:
        return [pytest.param([], id="absent", marks=pytest.mark.skip(
            reason=f"corpus not found at {CORPUS} (manifest.tsv); set INTERLINGUA_CORPUS to its folder to run the corpus tests"))]
    by_group: dict[tuple[str, str], list[tuple[str, _engine.Entry]]] = {}
    for check, entry in _engine.cases(ENTRIES):
        by_group.setdefault((check, entry.format), []).append((check, entry))
    params: list[object] = []
    for (check, fmt), cases in by_group.items():
        for n, i in enumerate(range(0, len(cases), CHUNK)):
            params.append(pytest.param(cases[i : i + CHUNK], id=f"{check}:{fmt}:{n}"))
    return params


@pytest.mark.parametrize("chunk", _chunks())
def test_corpus_chunk(chunk: list[tuple[str, _engine.Entry]], corpus_root: Path) -> None:
    """No check crashes or changes or drops anything silently, except the listed known gaps, each of
    which must still fail (a strict xfail per file)."""
    outcomes = [_engine.run_file(entry, corpus_root, check) for check, entry in chunk]
    problems = _engine.judge(outcomes, GAPS)
    assert not problems, "\n\n".join(problems)


@pytest.mark.skipif(not ENTRIES, reason=f"corpus not found at {CORPUS}")
def test_known_gaps_name_corpus_files() -> None:
    """Every listed gap is a check the corpus test runs (a stale entry would xfail on nothing)."""
    runs = {(check, e.file) for check, e in _engine.cases(ENTRIES)}
    stale = sorted(set(GAPS) - runs)
    assert not stale, f"known_gaps.toml names checks the corpus does not run: {stale[:5]}"
