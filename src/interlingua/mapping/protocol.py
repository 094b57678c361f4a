"""The contract every provider mapper keeps.

A mapper converts one wire format both ways and never does I/O or mutates its
input. Each method returns a :class:`Conversion`: the result plus a
:class:`~interlingua.mapping.report.Report` of every loss or change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from ..codec import SCHEMA_VERSION, Item
from ..items import ModelCapabilities, ResponseInfo, StopReason, Transcript, Usage
from .ids import IdRule
from .report import Policy, Report

if TYPE_CHECKING:
    from ..streaming.events import StreamAccumulator

__all__ = ["Conversion", "Framing", "Mapper", "ModelResponse"]

T = TypeVar("T")

Framing = Literal["sse", "ndjson"]


@dataclass
class Conversion(Generic[T]):
    """A conversion result and its report.

    Attributes:
        value: The converted object (a transcript, a request or response body, a :class:`ModelResponse`).
        report: Every item dropped, degraded or changed on the way.
    """

    value: T
    report: Report = field(default_factory=Report)


@dataclass
class ModelResponse:
    """What one model response produced, in canonical form.

    Attributes:
        items: Output items in order (text, reasoning, tool calls, refusal, ...).
        usage: Token counts, when reported.
        stop_reason: Why the response stopped, with the provider's raw value.
        model: Model name the provider reported.
        response_id: Provider response id.
        provider_data: The response's fields no canonical field holds (``created``,
            ``system_fingerprint``, ``service_tier``, per-choice or per-candidate fields), keyed by mapper
            name: ``{"openai-chat": {"created": 1700000000, "choice": {"logprobs": null}}}``. Written
            back only by that mapper (ADR 0009).
    """

    items: list[Item] = field(default_factory=list)
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    model: str | None = None
    response_id: str | None = None
    provider_data: dict[str, Any] | None = None

    def info(self) -> ResponseInfo | None:
        """The response metadata as a :class:`~interlingua.items.ResponseInfo` (``None`` when there is none)."""
        import msgspec

        if not (self.model or self.response_id or self.provider_data):
            return None
        return ResponseInfo(
            id=self.response_id if self.response_id else msgspec.UNSET,
            model=self.model if self.model else msgspec.UNSET,
            provider_data=self.provider_data if self.provider_data else msgspec.UNSET,
        )

    def to_transcript(self) -> Transcript:
        """A transcript document holding these items, with usage, stop reason and response metadata."""
        import msgspec

        info = self.info()
        return Transcript(
            schema_version=SCHEMA_VERSION,
            items=list(self.items),  # type: ignore[arg-type]
            usage=self.usage if self.usage is not None else msgspec.UNSET,
            stop_reason=self.stop_reason if self.stop_reason is not None else msgspec.UNSET,
            response=info if info is not None else msgspec.UNSET,
        )

    @classmethod
    def from_transcript(cls, transcript: Transcript) -> ModelResponse:
        """The response a transcript document holds: its items, usage, stop reason and ``response`` metadata."""
        import msgspec

        info = transcript.response if isinstance(transcript.response, ResponseInfo) else None
        return cls(
            items=list(transcript.items),
            usage=transcript.usage if transcript.usage is not msgspec.UNSET else None,
            stop_reason=transcript.stop_reason if transcript.stop_reason is not msgspec.UNSET else None,
            model=info.model if info is not None and isinstance(info.model, str) else None,
            response_id=info.id if info is not None and isinstance(info.id, str) else None,
            provider_data=dict(info.provider_data) if info is not None and isinstance(info.provider_data, dict) else None,
        )


@runtime_checkable
class Mapper(Protocol):
    """One wire format, both ways.

    Attributes:
        name: Registry name (``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``, ``ollama``).
        issuer: Issuer string this mapper writes into ``reasoning.opaque.issuer`` and ``raw.provider``,
            and accepts back; opaque state from any other issuer is left out and reported.
        framing: How the provider frames a stream (``sse`` or ``ndjson``).
        id_rule: The tool-call id rule of the target, or ``None`` when any id is accepted.

    A mapper may also set ``model_in_body = False`` when its provider takes the model in the
    request URL, not the body (Gemini): the report then says that instead of "the body has no
    'model'". Without the attribute the model goes in the body. A mapper may set ``vendor_models`` (a
    tuple of :class:`~interlingua.mapping.vendor_models.VendorModels`) to say whose models its ids name, so
    ``convert_request`` carries a model between two wire formats of one vendor (ADR 0025).

    A mapper may set ``stream_end_markers`` (a ``frozenset[str]``) to the ``data`` values that end its
    SSE stream without being JSON (OpenAI's ``[DONE]``); any other non-JSON data after the terminal
    event of a recorded stream is refused. Without the attribute the OpenAI-compatible ``[DONE]`` is
    taken (``interlingua.streaming.driver.DEFAULT_END_MARKERS``); Anthropic and Gemini declare none.

    A mapper whose encoding of an item depends on the items before it in the conversation
    (beyond the tool-call ids, which :class:`~interlingua.mapping.ids.IdMap` derives from each id
    alone) sets ``window_dependent(item) -> bool``, true for such an item: a long request is then
    converted whole rather than window by window when such an item is past the first window
    (``interlingua._windowed``, ADR 0036). Bedrock Converse numbers untitled documents across the
    conversation (``document-N``).
    """

    name: str
    issuer: str
    framing: Framing
    id_rule: IdRule | None

    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Provider request body (history, system prompt, tools, tool choice) -> transcript."""
        ...

    def encode_request(
        self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error"
    ) -> Conversion[dict[str, Any]]:
        """Transcript -> provider request body (``model`` set when given)."""
        ...

    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """Provider response body -> output items, usage and stop reason."""
        ...

    def encode_response(
        self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error"
    ) -> Conversion[dict[str, Any]]:
        """Output items -> provider response body (for round-trip tests and mock servers)."""
        ...

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """Whether ``body`` looks like this format's request or response body (``None``: neither)."""
        ...

    def accumulator(self) -> StreamAccumulator:
        """A fresh stream accumulator for one streamed response."""
        ...

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """This wire format's default capabilities for ``model`` (used when no table entry matches)."""
        ...
