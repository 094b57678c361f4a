"""The shared loop reads the plain settings back, for every mapper (ADR 0049).

:meth:`~interlingua.mapping.settings_table.SettingsTable.reader` reads every ``plain`` row of a table: a value that
fits its setting becomes the setting; one of the wrong wire type for the row's
:class:`~interlingua.mapping.settings_table.Check` is refused with its place (the JSON pointer in the message);
any other value (``null``) stays in the provider's data as given and goes back to that provider. These tests hold
every mapper and dialect to that, on bodies the mapper itself wrote, and check the loop's other parts on a small
table: fields spelled two ways, fields a target lacks but reads (and keeps), and the mapper's own rules run at
their row's place.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION
from interlingua.errors import InterlinguaError
from interlingua.items import Settings, TextItem, Transcript
from interlingua.mapping import available, get_mapper
from interlingua.mapping.settings import settings_of
from interlingua.mapping.settings_table import (
    NUMBER_AT_LEAST_0,
    POSITIVE_INTEGER,
    SettingsTable,
    SettingsTableError,
    Unsupported,
    Wire,
    encode_plain,
    required_settings,
)
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper

MAPPERS = [get_mapper(name) for name in available()] + [OpenAIChatMapper(dialect=d) for d in DIALECTS if d not in ("openai", "mistral")]
MODEL = {"gemini": "gemini-2.5-flash", "bedrock-converse": "amazon.nova-pro-v1:0"}


def _read_rows(mapper: Any) -> list[tuple[str, Wire]]:
    """(setting, wire row) of every plain row the mapper's decoder reads back, a read-only one included."""
    out = []
    for name, row in mapper.settings_table.rows.items():
        wire = row if isinstance(row, Wire) else row.read
        if wire is not None and wire.plain:
            out.append((name, wire))
    return out


CASES = [(m, name, wire) for m in MAPPERS for name, wire in _read_rows(m)]
IDS = [f"{m.settings_table.mapper}-{name}" for m, name, _ in CASES]


def _body(mapper: Any) -> dict[str, Any]:
    t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=Settings())
    return mapper.encode_request(t, model=MODEL.get(mapper.name, "test-model"), policy="drop").value


def _put(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    node = out
    *heads, last = path.split(".")
    for key in heads:
        node = node.setdefault(key, {})
    node[last] = value
    return out


def _at(data: Any, path: str) -> Any:
    for key in path.split("."):
        assert isinstance(data, dict) and key in data, (path, data)
        data = data[key]
    return data


@pytest.mark.parametrize(("mapper", "name", "wire"), CASES, ids=IDS)
def test_a_plain_row_is_read_back_refused_or_kept(mapper: Any, name: str, wire: Wire) -> None:
    body = _body(mapper)
    if wire.check is not None:
        bad = 5 if wire.check.test("x") else "x"
        with pytest.raises(InterlinguaError) as caught:
            mapper.decode_request(_put(body, wire.path, bad))
        message = str(caught.value)
        assert wire.check.what in message and "/" + wire.path.replace(".", "/") in message, message
    # null fits no setting: kept in the provider's data under the field's place, and written back as given
    conv = mapper.decode_request(_put(body, wire.path, None))
    settings = settings_of(conv.value)
    assert getattr(settings, name) is msgspec.UNSET
    assert _at(settings.provider_data[mapper.name], wire.path) is None
    if name != "model":  # (the model written is the caller's)
        again = mapper.encode_request(conv.value, model=MODEL.get(mapper.name, "test-model"), policy="drop").value
        assert _at(again, wire.path) is None


# ------------------------------------------------------------------------------------------ the loop itself


def _table(**rows: Wire | Unsupported) -> SettingsTable:
    """A table declaring every setting unsupported but ``rows`` (``reasoning__effort`` for ``reasoning.effort``)."""
    base: dict[str, Wire | Unsupported] = {name: Unsupported(why="none") for name in required_settings()}
    return SettingsTable("toy", "Toy", {**base, **{k.replace("__", "."): v for k, v in rows.items()}})


def _bad(where: str, what: str) -> Exception:
    return ValueError(f"toy request: {where} must be {what} (at /{where.replace('.', '/')})")


def test_a_check_refuses_with_the_place_and_keeps_a_misfit() -> None:
    table = _table(max_output_tokens=Wire("cfg.maxTokens", plain=True, check=POSITIVE_INTEGER), temperature=Wire("cfg.temp", plain=True, check=NUMBER_AT_LEAST_0))
    reader = table.reader("cfg")
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    assert reader.take("max_tokens", 12, fields, rest, as_key="maxTokens", refuse=_bad)
    assert not reader.take("other", 1, fields, rest, refuse=_bad)  # not a plain row's: the decoder's
    assert reader.take("temp", None, fields, rest, refuse=_bad)
    assert fields == {"max_output_tokens": 12} and rest == {"temp": None}  # kept under the body's own spelling
    with pytest.raises(ValueError, match=r"cfg\.maxTokens must be a positive integer \(at /cfg/maxTokens\)"):
        reader.take("maxTokens", 0, fields, rest, refuse=_bad)
    with pytest.raises(SettingsTableError, match="no refuse"):
        reader.take("maxTokens", "x", fields, rest)
    assert table.reader("cfg") is reader  # built once per table and object


def test_a_setting_spelled_in_two_fields_is_read_once_and_written_back_where_it_was() -> None:
    row = Wire("max_completion_tokens", plain=True, spelled=("max_completion_tokens", "max_tokens"))
    table = _table(max_output_tokens=row, temperature=Wire("temperature", plain=True))
    body = {"max_tokens": 50, "temperature": 0.1, "max_completion_tokens": None}
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    reader = table.reader()
    for key, value in body.items():
        assert reader.take(key, value, fields, rest)
    assert rest == {}  # both spellings wait for the end of the body
    reader.finish(body, fields, rest)
    assert fields == {"max_output_tokens": 50, "temperature": 0.1}
    assert rest == {"max_completion_tokens": None, "max_tokens": 50}  # what the source used, last and in row order
    out: dict[str, Any] = {}
    own = dict(rest)
    encode_plain(Settings(max_output_tokens=50, temperature=0.1), table, out, own=own)
    assert out == {"max_tokens": 50, "temperature": 0.1} and own == {"max_completion_tokens": None}
    out = {}
    encode_plain(Settings(max_output_tokens=60), table, out, own={"max_tokens": 50})
    assert out == {"max_completion_tokens": 60}  # another value: the row's own field


def test_a_field_the_target_lacks_is_read_and_kept_as_the_source_sent_it() -> None:
    top_k = Unsupported(why="no top_k", read=Wire("top_k", plain=True), keep=True)
    seed = Unsupported(why="no seed", read=Wire("seed", plain=True))
    table = _table(top_k=top_k, seed=seed)
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in {"top_k": 40, "seed": 7}.items():
        assert table.reader().take(key, value, fields, rest)
    assert fields == {"top_k": 40, "seed": 7} and rest == {"top_k": 40}
    body: dict[str, Any] = {}
    own = {"top_k": 40}
    kept = encode_plain(Settings(top_k=40, seed=7), table, body, own=own)
    assert body == {"top_k": 40} and kept == {"top_k"} and own == {}  # the seed was not the source's: not written
    body = {}
    own = {"top_k": 40}
    assert encode_plain(Settings(top_k=3), table, body, own=own) == frozenset() and body == {} and own == {}
    assert encode_plain(Settings(top_k=40), table, body) == frozenset() and body == {}  # no own data: never written


def test_the_mappers_rules_run_at_their_rows_place() -> None:
    table = _table(stop=Wire("stop", plain=True), stream=Wire("stream", plain=True), reasoning__effort=Wire("thinking"))
    body: dict[str, Any] = {"model": "m"}
    encode_plain(Settings(stop=["x"], stream=True), table, body, rules={"reasoning.effort": lambda: body.update(thinking={"on": True})})
    assert list(body) == ["model", "stop", "thinking", "stream"]
