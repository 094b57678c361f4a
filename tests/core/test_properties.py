"""Property tests: generated transcripts round-trip, and the models agree with the JSON Schemas."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings

import interlingua as il
from interlingua.codec import to_builtins
from interlingua.testing.strategies import transcripts
from interlingua.validation import check_transcript
from interlingua.validation._schemas import _validator

_settings = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)


@_settings
@given(transcripts(with_origin=True))
def test_generated_transcripts_round_trip(t: il.Transcript) -> None:
    data = il.encode_transcript(t)
    back = il.decode_transcript(data, mode="strict")
    assert back == t
    assert il.encode_transcript(back) == data


@_settings
@given(transcripts())
def test_generated_transcripts_validate_with_jsonschema(t: il.Transcript) -> None:
    doc = to_builtins(t)
    errors = list(_validator("transcript").iter_errors(doc))
    assert errors == []
    for item in doc["items"]:
        assert list(_validator("item").iter_errors(item)) == []
    assert check_transcript(t) == []


@_settings
@given(transcripts())
def test_jsonschema_and_models_agree_on_mutations(t: il.Transcript) -> None:
    # Break each item one way the schema forbids: both validators must reject it.
    doc = to_builtins(t)
    for item in doc["items"]:
        broken = dict(item, unexpected_field=1)
        assert list(_validator("item").iter_errors(broken)), broken
        try:
            msgspec.json.decode(msgspec.json.encode(broken), type=il.InputItem)
        except msgspec.ValidationError:
            pass
        else:
            raise AssertionError(f"models accepted {broken}")
