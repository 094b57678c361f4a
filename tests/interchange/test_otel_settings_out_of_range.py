"""A ``gen_ai.request.*`` setting outside the canonical bounds is dropped with a warning, one rule for
every setting (issue 32: temperature -1 and top_k -2 were dropped, top_p 7 refused the whole span)."""

from __future__ import annotations

import pytest

from interlingua.otel import from_otel

_BASE = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-4o",
    "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}],
}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("gen_ai.request.temperature", -1),
        ("gen_ai.request.top_k", -2),
        ("gen_ai.request.top_p", 7),
        ("gen_ai.request.top_p", 1.5),
        ("gen_ai.request.max_tokens", 0),
    ],
)
def test_a_setting_out_of_range_is_dropped_with_a_warning(key: str, value: float) -> None:
    conv = from_otel({**_BASE, key: value})
    assert any(e.action == "dropped" and e.pointer == f"/{key}" for e in conv.report), conv.report
    settings = conv.value.settings
    field = key.rsplit(".", 1)[1]
    assert getattr(settings, field, None) in (None, __import__("msgspec").UNSET)
    assert conv.value.items  # the span's conversation is kept


def test_a_setting_in_range_is_kept() -> None:
    conv = from_otel({**_BASE, "gen_ai.request.top_p": 0.5, "gen_ai.request.temperature": 0.2})
    assert conv.value.settings.top_p == 0.5
    assert conv.value.settings.temperature == 0.2
