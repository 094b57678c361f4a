"""The mapper path keeps the canonical limits: what a provider body converts to is refused when
``validate`` or ``store import`` would refuse it read from a file (item size, nesting, base64)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.codec import DEFAULT_LIMITS, Limits, decode_item
from interlingua.conversion import check_limits
from interlingua.errors import LimitError

runner = CliRunner()
REAL = Path(__file__).parent.parent / "fixtures" / "real"


def _chat(text_bytes: int) -> bytes:
    return msgspec.json.encode({"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "y" * text_bytes}]})


def test_a_message_over_max_item_bytes_is_refused_by_convert_and_migrate(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(_chat(DEFAULT_LIMITS.max_item_bytes + 1))
    for target in ("canonical", "anthropic"):
        out = tmp_path / f"o-{target}.json"
        r = runner.invoke(app, ["convert", "--from", "openai-chat", "--to", target, str(path), "-o", str(out)])
        assert r.exit_code == 1
        assert r.stderr.startswith(f"error: {path}: /items/1: the openai-chat request gives a canonical item of more than")
        assert f"the limit is {DEFAULT_LIMITS.max_item_bytes} (max_item_bytes)" in r.stderr
        assert not out.exists()
    r = runner.invoke(app, ["migrate", str(path), "-o", str(tmp_path / "m.jsonl"), "-q"])
    assert r.exit_code == 1
    assert not (tmp_path / "m.jsonl").exists()  # no over-limit envelope, no header either: nothing written
    (reject,) = [json.loads(line) for line in (tmp_path / "m.rejects.jsonl").read_text().splitlines()]
    assert reject["record"] is None  # a record refused for its size is not copied
    assert reject["reason"].startswith(f"LimitError: {path}: /items/1: the openai-chat conversation gives a canonical item of more than")


def test_a_message_just_under_the_limit_converts_and_validates(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_bytes(_chat(DEFAULT_LIMITS.max_item_bytes - 200))
    out = tmp_path / "o.jsonl"
    r = runner.invoke(app, ["migrate", str(path), "-o", str(out), "-q"])
    assert r.exit_code == 0, r.stderr
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0


def test_encoded_size_counts_not_only_the_longest_string() -> None:
    # escapes make the encoded item larger than its text: the exact size decides
    text = '"' * 600
    conv = convert_request({"model": "m", "messages": [{"role": "user", "content": text}]}, source="openai-chat", target="canonical")
    items = [decode_item(msgspec.json.encode(i)) for i in conv.value["items"]]
    check_limits(items, limits=Limits(max_item_bytes=1300))
    with pytest.raises(LimitError) as exc:
        check_limits(items, limits=Limits(max_item_bytes=1100))
    assert exc.value.problems[0].pointer == "/items/0" and "of 12" in exc.value.problems[0].message


def test_tool_arguments_nested_past_max_depth_are_refused() -> None:
    args = "1"
    for _ in range(DEFAULT_LIMITS.max_depth + 2):
        args = '{"a":' + args + "}"
    body = {"model": "m", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]}
    with pytest.raises(LimitError) as exc:
        convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5")
    assert exc.value.problems[0].pointer == "/items/1" and "nesting deeper than 64 levels" in exc.value.problems[0].message


def test_real_request_bodies_are_within_the_limits() -> None:
    # no false refusals: every real recorded request that converted before still converts
    n = 0
    for directory, fmt in {"anthropic": "anthropic", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "gemini": "gemini", "bedrock_converse": "bedrock-converse"}.items():
        for path in sorted((REAL / directory).rglob("*.request.json")):
            conv = convert_request(path.read_bytes(), source=fmt, target="canonical", policy="drop", force=True)
            assert conv.value["items"] is not None
            n += 1
    assert n > 40
