"""bedrock-converse runs the conformance suite like the five older built-ins (no ``known_gaps``).

Its supported subset is the wire-request strategy of its property tests; transcripts are those
requests decoded. Streams are the real ConverseStream recordings in their NDJSON form (one
``{"<eventType>": payload}`` object a line, the mapper's declared framing).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from interlingua.mapping import get_mapper
from interlingua.testing.conformance import ConformanceProfile, MapperConformance

TESTS = Path(__file__).parent.parent
REAL = TESTS / "fixtures" / "real" / "bedrock_converse"


def _strategy(name: str) -> Any:
    spec = importlib.util.spec_from_file_location("_conformance_bedrock_property", TESTS / "providers/bedrock_converse/test_bedrock_converse_property.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


# Every body names its model (``modelId``): a decoded transcript then carries it in its settings, so
# encoding without ``model=`` writes it back and reports nothing.
_REQUESTS = _strategy("request")().map(lambda body: {"modelId": "us.amazon.nova-micro-v1:0", **body})
_MAPPER = get_mapper("bedrock-converse")


class TestBedrockConverse(MapperConformance):
    mapper = _MAPPER
    profile = ConformanceProfile(
        requests=_REQUESTS,
        transcripts=_REQUESTS.map(lambda body: _MAPPER.decode_request(body).value),
        request_settings=("modelId",),
        streams=sorted(REAL.glob("*.stream.ndjson")),
        samples=sorted(p for p in REAL.glob("*.json") if p.name != "index.json"),
    )
