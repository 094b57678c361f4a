"""The plain settings rows are written and read by the one shared loop (ADR 0044).

A :class:`~interlingua.mapping.settings_table.Wire` row with ``plain=True`` is written as it is to its path by
:func:`~interlingua.mapping.settings_table.encode_plain` and read back through
:func:`~interlingua.mapping.settings_table.plain_fields`; these tests prove every such row of every mapper is
written where its table says with the value as given, read back to the same setting, in the table's order,
and that the loop copies values (the transcript is never mutated).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import Settings, TextItem, Transcript
from interlingua.mapping import available, get_mapper
from interlingua.mapping.settings import settings_of
from interlingua.mapping.settings_table import NOT_FROM_SETTINGS, SettingsTable, Wire, encode_plain, plain_fields, required_settings
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper
from interlingua.testing.model_strategies import from_model

MODEL = {"gemini": "gemini-2.5-flash", "bedrock-converse": "anthropic.claude-3-5-sonnet-20240620-v1:0"}


def _plain(mapper: Any) -> list[tuple[str, Wire]]:
    return [(n, r) for n, r in mapper.settings_table.rows.items() if isinstance(r, Wire) and r.plain and n not in NOT_FROM_SETTINGS]


ALL_MAPPERS = [get_mapper(name) for name in available()] + [OpenAIChatMapper(dialect=d) for d in DIALECTS if d not in ("openai", "mistral")]
"""Every registered mapper and every OpenAI Chat dialect."""
PLAIN_MAPPERS = [m for m in ALL_MAPPERS if _plain(m)]


def test_every_provider_is_on_the_loop() -> None:
    assert {m.name for m in PLAIN_MAPPERS} == set(available())
    assert len(PLAIN_MAPPERS) == len(ALL_MAPPERS)


def _at(body: Any, path: str) -> Any:
    node = body
    for key in path.split("."):
        assert isinstance(node, dict) and key in node, f"no {path} in {body}"
        node = node[key]
    return node


_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "max_output_tokens": st.integers(1, 4096),
        "temperature": st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3)),
        "top_p": st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3)),
        "top_k": st.integers(1, 100),
        "seed": st.integers(0, 2**31),
        "stop": st.lists(st.text("abcXYZ", min_size=1, max_size=5), min_size=1, max_size=3),
        "presence_penalty": st.floats(-2, 2, allow_nan=False).map(lambda v: round(v, 3)),
        "frequency_penalty": st.floats(-2, 2, allow_nan=False).map(lambda v: round(v, 3)),
        "stream": st.booleans(),
    },
)


@pytest.mark.parametrize("mapper", PLAIN_MAPPERS, ids=lambda m: m.settings_table.mapper)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=_VALUES)
def test_plain_rows_are_written_as_given_and_read_back(mapper: Any, values: dict[str, Any]) -> None:
    s = Settings(**values)
    before = msgspec.json.encode(s)
    t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=s)
    conv = mapper.encode_request(t, model=MODEL.get(mapper.name, "test-model"), policy="degrade")
    assert msgspec.json.encode(s) == before  # the input is not mutated
    back = settings_of(mapper.decode_request(conv.value).value)
    for name, row in _plain(mapper):
        if name in values:
            assert _at(conv.value, row.path) == values[name], (name, row.path)
            assert getattr(back, name) == values[name], name


def test_the_loop_writes_in_table_order_and_copies() -> None:
    rows = {name: Wire(name) for name in required_settings()}
    rows.update(stop=Wire("opts.stop", plain=True), top_k=Wire("k", plain=True), temperature=Wire("t", plain=True), model=Wire("model", plain=True))
    table = SettingsTable("t", "T", {"top_k": rows.pop("top_k"), **rows})
    s = Settings(model="m", temperature=0.5, top_k=3, stop=["x"])
    body: dict[str, Any] = {}
    encode_plain(s, table, body)
    assert list(body) == ["k", "t"]  # table order; the model never from the settings; nested rows not here
    opts: dict[str, Any] = {}
    encode_plain(s, table, opts, under="opts")
    assert opts == {"stop": ["x"]} and opts["stop"] is not s.stop
    assert plain_fields(table) == {"k": "top_k", "t": "temperature", "model": "model"}
    assert plain_fields(table, under="opts") == {"stop": "stop"}


@settings(max_examples=30, deadline=None)
@given(s=from_model(Settings))
def test_the_loop_only_writes_set_plain_rows(s: Settings) -> None:
    table = get_mapper("cohere").settings_table
    body: dict[str, Any] = {}
    encode_plain(s, table, body)
    expected = {row.path for name, row in table.rows.items() if isinstance(row, Wire) and row.plain and name != "model" and getattr(s, name) is not msgspec.UNSET}
    assert set(body) == expected
