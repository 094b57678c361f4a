"""Every corpus request with several turns, read to canonical and converted to every target window
by window (``interlingua._windowed``, what ``convert --from canonical --to <provider>`` does for a
document file), and to the framework writers whose output is a message list: the same bytes and
report as the whole conversion (see
tests/convert/test_windowed_request_equals_whole.py for the generated cases)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from interlingua._windowed import _local, plan, write_windows
from interlingua.cli._convert_io import pretty as _pretty
from interlingua.codec import decode_transcript
from interlingua.compat import write
from interlingua.conversion import convert_request
from interlingua.errors import InterlinguaError
from interlingua.mapping.registry import available
from interlingua.mapping.report import Report

_WRITERS = ("pydantic-ai", "langchain", "vercel-ui", "vercel-model", "openai-finetune", "sharegpt")
"""Every writer `convert --to` windows (a record holding the list too: ADR 0047's run)."""


def _by_item(entries: list[Any]) -> tuple[list[Any], dict[int, list[Any]]]:
    per: dict[int, list[Any]] = {}
    for e in entries:
        if _local(e) is not None:
            per.setdefault(_local(e), []).append(e)
    return [e for e in entries if _local(e) is None], per


def test_every_corpus_request_windowed_equals_the_whole_conversion(corpus_root: Path) -> None:
    checked = windowed = 0
    for path in sorted(corpus_root.rglob("*.request.json")):
        body = json.loads(path.read_text())
        if not isinstance(body, dict):
            continue
        try:
            doc = convert_request(body, source=path.parent.name, target="canonical", policy="degrade").value
        except InterlinguaError:
            continue
        t = decode_transcript(json.dumps(doc).encode())
        cuts = plan(iter(t.items), window=1)
        if not cuts.cuts:
            continue
        checked += 1
        for target in (*available(), *_WRITERS):
            report = Report()
            try:
                if target in _WRITERS:
                    expected = _pretty(write(t, target, policy="degrade", report=report).value)
                else:
                    expected = _pretty(convert_request(t, source="canonical", target=target, policy="degrade", report=report).value)
            except InterlinguaError:
                expected = None
            out, got = io.BytesIO(), Report()
            ok = write_windows(iter(t.items), t, cuts, target=target, model=None, policy="degrade", out=out, report=got)
            if expected is None:
                assert not ok, (path.name, target)
                continue
            if ok:
                windowed += 1
                assert out.getvalue() == expected, (path.name, target)
                assert _by_item(list(got.aggregated())) == _by_item(list(report.aggregated())), (path.name, target)  # repeats aggregated (ADR 0047)
    assert checked > 100 and windowed > 4 * checked, (checked, windowed)
