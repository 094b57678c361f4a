"""Every mapper declares every canonical setting, and does what it declares (ADR 0042).

The declaration (``mapper.settings_table``) is checked when it is built; these tests prove (1) the check
refuses a table that neither maps nor declares a setting, (2) every registered mapper and every OpenAI Chat
dialect has a complete table, and (3) the tables are true: a setting declared :class:`Unsupported` is
reported (or refused) when it is set, and one declared :class:`Wire` changes the body at the declared path
or is reported, so no setting of the schema is dropped silently by any mapper.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION
from interlingua.errors import ConversionError
from interlingua.items import ReasoningSettings, ResponseFormat, Settings, TextItem, Transcript
from interlingua.mapping import available, get_mapper
from interlingua.mapping.settings_table import (
    CARRIERS,
    SettingsTable,
    SettingsTableError,
    Unsupported,
    Wire,
    required_settings,
)
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper

MODEL = {"gemini": "gemini-2.5-flash", "bedrock-converse": "amazon.nova-pro-v1:0"}
"""A model per mapper where the default one would change the rules (none: the mapper's default)."""


def _mappers() -> list[Any]:
    out = [get_mapper(name) for name in available()]
    out += [OpenAIChatMapper(dialect=d) for d in DIALECTS if d not in ("openai", "mistral")]
    return out


MAPPERS = _mappers()
IDS = [m.settings_table.mapper for m in MAPPERS]


def test_required_settings_follow_the_generated_models() -> None:
    """Every Settings field is asked for (nested settings objects by their fields), the carrier is not."""
    required = required_settings()
    for name in Settings.__struct_fields__:
        if name in CARRIERS:
            assert not any(r == name or r.startswith(name + ".") for r in required)
        elif name in ("reasoning", "response_format"):
            sub = ReasoningSettings if name == "reasoning" else ResponseFormat
            assert {f"{name}.{f}" for f in sub.__struct_fields__} <= set(required)
        else:
            assert name in required


def test_a_table_that_neither_maps_nor_declares_a_setting_is_refused() -> None:
    rows: dict[str, Wire | Unsupported] = {name: Wire(name) for name in required_settings()}
    SettingsTable("complete", "Complete", rows)  # complete: accepted
    del rows["top_k"]
    with pytest.raises(SettingsTableError, match=r"mapper 'forgetful': no row for top_k"):
        SettingsTable("forgetful", "Forgetful", rows)
    with pytest.raises(SettingsTableError, match="do not exist: logit_bias"):
        SettingsTable("inventive", "Inventive", {**{n: Wire(n) for n in required_settings()}, "logit_bias": Wire("logit_bias")})


def test_a_new_setting_without_a_row_fails_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """What happens the day a field is added to the schema: each table (rebuilt) names the missing row."""
    import interlingua.mapping.settings_table as module

    monkeypatch.setattr(module, "required_settings", lambda: (*required_settings(), "min_p"))
    for mapper in MAPPERS:
        table = mapper.settings_table
        with pytest.raises(SettingsTableError, match="no row for min_p"):
            SettingsTable(table.mapper, table.target, table.rows)


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_every_mapper_declares_every_setting(mapper: Any) -> None:
    table = mapper.settings_table
    assert isinstance(table, SettingsTable)
    assert list(sorted(table.rows)) == sorted(required_settings())
    for name, row in table.rows.items():
        assert isinstance(row, (Wire, Unsupported)), name
        if isinstance(row, Wire):
            assert row.path, name


_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}
_JSON_SCHEMA = ResponseFormat(type="json_schema", schema=_SCHEMA)

CASES: dict[str, tuple[Settings, Settings]] = {
    # setting -> (settings holding it, the same settings without it)
    "max_output_tokens": (Settings(max_output_tokens=1000), Settings()),
    "temperature": (Settings(temperature=0.5), Settings()),
    "top_p": (Settings(top_p=0.9), Settings()),
    "top_k": (Settings(top_k=40), Settings()),
    "stop": (Settings(stop=["END"]), Settings()),
    "seed": (Settings(seed=7), Settings()),
    "presence_penalty": (Settings(presence_penalty=0.5), Settings()),
    "frequency_penalty": (Settings(frequency_penalty=0.5), Settings()),
    "response_format.type": (Settings(response_format=_JSON_SCHEMA), Settings()),
    "response_format.name": (Settings(response_format=msgspec.structs.replace(_JSON_SCHEMA, name="City")), Settings(response_format=_JSON_SCHEMA)),
    "response_format.description": (Settings(response_format=msgspec.structs.replace(_JSON_SCHEMA, description="A city")), Settings(response_format=_JSON_SCHEMA)),
    "response_format.schema": (Settings(response_format=_JSON_SCHEMA), Settings(response_format=ResponseFormat(type="json_object"))),
    "response_format.strict": (Settings(response_format=msgspec.structs.replace(_JSON_SCHEMA, strict=False)), Settings(response_format=_JSON_SCHEMA)),
    "reasoning.effort": (Settings(reasoning=ReasoningSettings(effort="low")), Settings()),
    "reasoning.budget_tokens": (Settings(reasoning=ReasoningSettings(budget_tokens=2048)), Settings()),
    "reasoning.summary": (Settings(reasoning=ReasoningSettings(summary="auto")), Settings()),
    "reasoning.include_thoughts": (Settings(reasoning=ReasoningSettings(include_thoughts=False)), Settings()),
    "stream": (Settings(stream=True), Settings()),
}
"""One value per setting; ``model`` is never taken from the settings (ADR 0007), so it has no case."""


def test_every_setting_but_the_model_has_a_case() -> None:
    assert set(CASES) == set(required_settings()) - {"model"}


def _encode(mapper: Any, settings: Settings, policy: str) -> Any:
    t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=settings)
    return mapper.encode_request(t, model=MODEL.get(mapper.name), policy=policy)


def _has_path(body: Any, path: str) -> bool:
    node = body
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _pointer(name: str) -> str:
    return "/settings/" + name.replace(".", "/")


def _entries(conv: Any, name: str, *, parents: bool = False) -> list[Any]:
    """Report entries about ``name``: at its pointer or below; with ``parents``, also about the whole
    settings object holding it (DeepSeek's ``json_object`` for a whole JSON Schema format names every part)."""
    pointer = _pointer(name)
    heads = {pointer.rsplit("/", 1)[0]} if parents and "." in name else set()
    return [e for e in conv.report if e.pointer is not None and (e.pointer == pointer or e.pointer.startswith(pointer + "/") or e.pointer in heads)]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_the_table_is_what_the_mapper_does(mapper: Any, name: str) -> None:
    row = mapper.settings_table.rows[name]
    with_it, without = CASES[name]
    if isinstance(row, Unsupported):
        if row.meaning_changes:
            with pytest.raises(ConversionError, match=name.split(".")[0]):
                _encode(mapper, with_it, "error")
        conv = _encode(mapper, with_it, "drop")
        dropped = [e for e in _entries(conv, name) if e.action == "dropped"]
        assert dropped, f"{mapper.settings_table.mapper}: {name} is declared unsupported but not reported dropped"
        if row.why:
            assert any(row.why in e.reason for e in dropped), [e.reason for e in dropped]
        return
    conv = _encode(mapper, with_it, "degrade")
    base = _encode(mapper, without, "degrade")
    reported = {str(e) for e in _entries(conv, name, parents=True)} - {str(e) for e in _entries(base, name, parents=True)}
    changed = conv.value != base.value
    # a row whose converter replaces the whole settings object (DeepSeek's json_object) is reported there
    approximated = bool(row.how) and any(e.action in ("changed", "dropped") for e in _entries(conv, name, parents=True))
    assert changed or reported or approximated, f"{mapper.settings_table.mapper}: {name} declared as {row.path} but neither written nor reported"
    if changed and not reported and not row.how:  # carried as it is: at the declared path
        assert _has_path(conv.value, row.path), f"{mapper.settings_table.mapper}: {name} declared at {row.path}, body {conv.value}"
