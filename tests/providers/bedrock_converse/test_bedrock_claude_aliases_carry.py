"""An Anthropic model alias carries to Bedrock as the dated id the model catalogue says it points at
(``claude-sonnet-4-5`` -> ``us.anthropic.claude-sonnet-4-5-20250929-v1:0``), reported as a rename."""

from __future__ import annotations

import re

import pytest

from interlingua import convert_request
from interlingua.models import catalogue_models
from interlingua.providers.bedrock_converse._models import anthropic_id, bedrock_id, dated_id

BODY = {"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    ("alias", "dated"),
    [("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"), ("claude-haiku-4-5", "claude-haiku-4-5-20251001"), ("claude-opus-4-1", "claude-opus-4-1-20250805")],
)
def test_the_users_aliases_carry(alias: str, dated: str) -> None:
    assert dated_id(alias) == dated
    out = convert_request({**BODY, "model": alias}, source="anthropic", target="bedrock-converse")
    model_id = out.value["modelId"]
    assert model_id == bedrock_id(dated) and anthropic_id(model_id) == dated
    assert model_id in catalogue_models("bedrock-converse")
    (entry,) = [e for e in out.report if e.pointer == "/model"]
    assert f"written as {model_id!r}" in entry.reason


def test_every_catalogue_alias_with_one_dated_id_carries() -> None:
    """The class: each Anthropic alias row whose dated id the catalogue has goes to Bedrock as that id."""
    names = catalogue_models("anthropic")
    checked = 0
    for alias in names:
        if re.search(r"-\d{8}$", alias) or not alias.startswith("claude-"):
            continue
        dated = [n for n in names if re.fullmatch(rf"{re.escape(alias)}-\d{{8}}", n)]
        if len(dated) != 1:
            continue
        assert dated_id(alias) == dated[0]
        assert anthropic_id(bedrock_id(alias) or "") == dated[0]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("model", ["claude-nope", "claude-3-5-haiku-latest", "gpt-4o"])
def test_ids_the_catalogue_cannot_resolve_are_not_carried(model: str) -> None:
    assert bedrock_id(model) is None
    out = convert_request({**BODY, "model": model}, source="anthropic", target="bedrock-converse")
    assert "modelId" not in out.value
    assert any("not carried over" in e.reason for e in out.report)


@pytest.mark.parametrize(
    ("alias", "dated"),
    [("claude-sonnet-4-0", "claude-sonnet-4-20250514"), ("claude-opus-4-0", "claude-opus-4-20250514"), ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219")],
)
def test_the_other_alias_spellings_carry(alias: str, dated: str) -> None:
    # a new user's case: the real fixture pai_anthropic_thinking_part_stream.0.request.json names
    # claude-sonnet-4-0 (Anthropic's alias of claude-sonnet-4-20250514); it went to Bedrock with no model
    assert dated_id(alias) == dated
    out = convert_request({**BODY, "model": alias}, source="anthropic", target="bedrock-converse")
    assert anthropic_id(out.value["modelId"]) == dated
