"""The Perplexity mapper keeps the interlingua mapper contract (the conformance suite).

This is all a plugin author writes: a profile of the supported subset and a subclass.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import TextItem, Transcript
from interlingua.testing.conformance import ConformanceProfile, MapperConformance
from interlingua_perplexity import mapper

DATA = Path(__file__).parent / "data"
text = st.text(min_size=1, max_size=20)


@st.composite
def supported_transcripts(draw: st.DrawFn) -> Transcript:
    """An optional system text, then user and assistant texts alternating, one text a message."""
    items: list = []
    n = 0
    if draw(st.booleans()):
        items.append(TextItem(role="system", text=draw(text), message="m0"))
        n = 1
    for turn in range(draw(st.integers(1, 5))):
        items.append(TextItem(role="user" if turn % 2 == 0 else "assistant", text=draw(text), message=f"m{n}"))
        n += 1
    return Transcript(schema_version=SCHEMA_VERSION, items=items)


class TestPerplexityConformance(MapperConformance):
    mapper = mapper
    profile = ConformanceProfile(
        transcripts=supported_transcripts(),
        streams=sorted(DATA.glob("*.sse")),
    )
