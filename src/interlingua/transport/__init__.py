"""Send transcripts to providers over HTTP and get canonical items back.

One async :class:`Client` serves every wire format; provider HTTP rules live in
small :class:`ProviderSpec` modules. Failures are normalized to stable codes
(:class:`~interlingua.errors.TransportError`), retried at most twice per call and
only before anything reached the caller (never after a stall; a begun 2xx stream
at most once), and bounded by connect, read and idle timeouts and an optional
overall deadline. Keys go only in headers and are removed by :func:`redact` from
everything else, recorded bodies included (whole, after decompression).
:class:`RecordingTransport` and :class:`ReplayTransport` write and replay
fixtures so pipelines can be tested without a network (``docs/replay.md``).

Example::

    from interlingua.transport import Client

    async with Client("anthropic") as client:          # key from ANTHROPIC_API_KEY
        async for event in client.generate(transcript, model="claude-sonnet-4-5"):
            ...
        response = await client.generate(transcript, model="claude-sonnet-4-5", stream=False)
"""

from ..errors import TransportError
from ._bedrock import BedrockClient
from ._calls import ConfigProblem
from ._client import PROVIDERS, Client, check_config, http2_available, provider_spec
from ._errors import RETRYABLE
from ._fallback import FallbackAttempt, FallbackClient, FallbackGeneration
from ._generation import Generation
from ._limits import RateLimiter
from ._models import ModelInfo
from ._record import FIXTURE_VERSION, RecordingTransport, ReplayTransport, load_fixture
from ._redact import REDACTED, redact
from ._retry import RetryPolicy
from ._spec import ProviderSpec, Signer
from ._timeouts import Timeouts

__all__ = [
    "FIXTURE_VERSION",
    "FallbackAttempt",
    "FallbackClient",
    "FallbackGeneration",
    "PROVIDERS",
    "REDACTED",
    "RETRYABLE",
    "BedrockClient",
    "Client",
    "ConfigProblem",
    "Generation",
    "ModelInfo",
    "ProviderSpec",
    "RateLimiter",
    "RecordingTransport",
    "ReplayTransport",
    "RetryPolicy",
    "Signer",
    "Timeouts",
    "TransportError",
    "check_config",
    "http2_available",
    "load_fixture",
    "redact",
    "provider_spec",
]

for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) and _obj.__module__.startswith(__name__ + "._"):
        _obj.__module__ = __name__
