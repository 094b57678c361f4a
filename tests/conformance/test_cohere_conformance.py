"""cohere runs the conformance suite like the other built-ins (no ``known_gaps``).

Its supported subset is the wire-request strategy of its property tests; transcripts are those
requests decoded. Streams are each real recorded response written as the documented event sequence
(tests/providers/cohere/_sse.py; pydantic-ai's cassettes hold no Cohere stream).
"""

from __future__ import annotations

import json
from pathlib import Path

from interlingua.mapping import get_mapper
from interlingua.testing.conformance import ConformanceProfile, MapperConformance
from tests.providers.cohere._sse import sse_of
from tests.providers.cohere.test_cohere_property import request

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "cohere"
_MAPPER = get_mapper("cohere")


class TestCohere(MapperConformance):
    mapper = _MAPPER
    profile = ConformanceProfile(
        requests=request(),
        transcripts=request().map(lambda body: _MAPPER.decode_request(body).value),
        request_settings=("model",),
        streams=[sse_of(json.loads(p.read_text())) for p in sorted(REAL.glob("*.response.json"))],
        samples=sorted(REAL.glob("*.request.json")) + sorted(REAL.glob("*.response.json")),
        model="command-a-03-2025",
    )
