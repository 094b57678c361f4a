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
EXTRA_GAPS_FILE = Path(__file__).with_name("known_gaps_extra.toml")
CORPUS = _engine.corpus_dir()
ENTRIES = _engine.manifest(CORPUS)
EXTRA_ENTRIES = _engine.manifest_extra()


def known_gaps(path: Path = GAPS_FILE) -> dict[tuple[str, str], str]:
    """``(check, file) -> class`` from ``known_gaps.toml`` (or the extra corpus's file)."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {(g["check"], f): f"{g['class']} (issue {g['issue']})" for g in data.get("gap", []) for f in g["files"]}


GAPS = known_gaps()
EXTRA_GAPS = known_gaps(EXTRA_GAPS_FILE)


CHUNK = 50  # cases per test: few enough tests to keep pytest's overhead low, enough to spread over workers


def _chunks(entries: list[_engine.Entry] = ENTRIES) -> list[object]:
    if not entries:
        return [pytest.param([], id="absent", marks=pytest.mark.skip(
            reason=f"corpus not found at {CORPUS} (manifest.tsv); set INTERLINGUA_CORPUS to its folder to run the corpus tests"))]
    by_group: dict[tuple[str, str], list[tuple[str, _engine.Entry]]] = {}
    for check, entry in _engine.cases(entries):
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


@pytest.mark.parametrize("chunk", _chunks(EXTRA_ENTRIES))
def test_extra_corpus_chunk(chunk: list[tuple[str, _engine.Entry]], corpus_extra_root: Path) -> None:
    """Other clients' recordings (ruby_llm, langchain-cohere, openinference, vercel/ai, simonw/llm and
    plugins), compared exactly: the client's spelling comes back as it sent it, or the change is
    reported; listed gaps (``known_gaps_extra.toml``, each with its reason) must still fail."""
    outcomes = [_engine.run_file(entry, corpus_extra_root, check) for check, entry in chunk]
    problems = _engine.judge(outcomes, EXTRA_GAPS)
    assert not problems, "\n\n".join(problems)


def test_extra_corpus_manifest_matches_archive() -> None:
    """Every manifest row names a file of the archive, every file has a row, no body holds a credential."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("corpus_extra", _engine.REPO / "tools" / "corpus_extra.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main(["check", str(_engine.EXTRA_DIR)]) == 0
    projects = {e.source for e in EXTRA_ENTRIES}
    assert len(projects) >= 5 and len(EXTRA_ENTRIES) >= 500


def test_extra_known_gaps_name_corpus_files() -> None:
    """Every listed extra gap is a check the extra corpus test runs."""
    runs = {(check, e.file) for check, e in _engine.cases(EXTRA_ENTRIES)}
    stale = sorted(set(EXTRA_GAPS) - runs)
    assert not stale, f"known_gaps_extra.toml names checks the corpus does not run: {stale[:5]}"


@pytest.mark.skipif(not ENTRIES, reason=f"corpus not found at {CORPUS}")
def test_known_gaps_name_corpus_files() -> None:
    """Every listed gap is a check the corpus test runs (a stale entry would xfail on nothing)."""
    runs = {(check, e.file) for check, e in _engine.cases(ENTRIES)}
    stale = sorted(set(GAPS) - runs)
    assert not stale, f"known_gaps.toml names checks the corpus does not run: {stale[:5]}"
