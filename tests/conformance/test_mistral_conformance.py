"""mistral runs the conformance suite like the other built-ins (no ``known_gaps``).

Its supported subset is the wire-request strategy of its property tests; transcripts are those
requests decoded. Streams and samples are the real Mistral recordings (tests/fixtures/real/mistral).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from interlingua.mapping import get_mapper
from interlingua.testing.conformance import ConformanceProfile, MapperConformance

TESTS = Path(__file__).parent.parent
REAL = TESTS / "fixtures" / "real" / "mistral"


def _strategy(name: str) -> Any:
    spec = importlib.util.spec_from_file_location("_conformance_mistral_property", TESTS / "providers/mistral/test_mistral_property.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


_REQUESTS = _strategy("request")()
_MAPPER = get_mapper("mistral")


class TestMistral(MapperConformance):
    mapper = _MAPPER
    profile = ConformanceProfile(
        requests=_REQUESTS,
        transcripts=_REQUESTS.map(lambda body: _MAPPER.decode_request(body).value),
        request_settings=("model",),
        streams=sorted(REAL.glob("*.sse")),
        samples=sorted(p for p in REAL.glob("*.json") if p.name != "index.json"),
        malformed_samples=[{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": '{"a": '}}]}]}],
    )
