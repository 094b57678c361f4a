"""One base for the provider mappers: what every mapper class repeated, written once (ADR 0042).

A provider package declares only what differs: its names, framing and id rule, its wire functions
(:class:`WireFunctions`), its default capabilities, its settings table and its ``kind_of``. The methods
of :class:`~interlingua.mapping.protocol.Mapper` that only delegate are here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..items import ModelCapabilities, Transcript
from .ids import IdRule
from .protocol import Conversion, Framing, ModelResponse
from .report import Policy
from .item_fields import ItemFieldTable
from .settings_table import SettingsTable

if TYPE_CHECKING:
    from ..streaming.events import StreamAccumulator

__all__ = ["MapperBase", "WireFunctions"]


@dataclass(frozen=True)
class WireFunctions:
    """A provider's four conversions and its stream accumulator (the functions its modules define).

    Attributes:
        decode_request: ``(body) -> Conversion[Transcript]``.
        encode_request: ``(transcript, *, model, policy) -> Conversion[dict]``.
        decode_response: ``(body) -> Conversion[ModelResponse]``.
        encode_response: ``(response, *, model, policy) -> Conversion[dict]``.
        accumulator: A class (or factory) making a fresh accumulator for one streamed response.
    """

    decode_request: Callable[[Mapping[str, Any]], Conversion[Transcript]]
    encode_request: Callable[..., Conversion[dict[str, Any]]]
    decode_response: Callable[[Mapping[str, Any]], Conversion[ModelResponse]]
    encode_response: Callable[..., Conversion[dict[str, Any]]]
    accumulator: Callable[[], StreamAccumulator]


class MapperBase:
    """What every mapper has in common; a subclass sets the class attributes and ``kind_of``.

    Attributes:
        name: Registry name (the ``provider_data`` key).
        issuer: Issuer written into opaque reasoning state and raw items, and accepted back.
        framing: ``sse`` or ``ndjson``.
        id_rule: The tool-call id rule of the target, or ``None`` when any id is accepted.
        wire: The provider's :class:`WireFunctions`.
        default_capabilities: What :meth:`capabilities` returns (a fresh copy each call) when no
            model table entry matches; a mapper whose defaults depend on the model overrides the method.
        settings_table: What the mapper does with every canonical setting
            (:class:`~interlingua.mapping.settings_table.SettingsTable`).
        item_fields: What the mapper does with every field of every item kind
            (:class:`~interlingua.mapping.item_fields.ItemFieldTable`, ADR 0044).
    """

    name: str
    issuer: str
    framing: Framing
    id_rule: IdRule | None = None
    wire: ClassVar[WireFunctions]
    default_capabilities: ClassVar[ModelCapabilities]
    settings_table: SettingsTable
    item_fields: ItemFieldTable

    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Provider request body -> transcript (the provider's ``decode_request``)."""
        return self.wire.decode_request(body)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> provider request body (the provider's ``encode_request``)."""
        return self.wire.encode_request(transcript, model=model, policy=policy)

    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """Provider response body -> output items, usage and stop reason (the provider's ``decode_response``)."""
        return self.wire.decode_response(body)

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Output items -> provider response body (the provider's ``encode_response``)."""
        return self.wire.encode_response(response, model=model, policy=policy)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:  # pragma: no cover - every subclass defines it
        """Whether ``body`` looks like this format's request or response body (``None``: neither)."""
        raise NotImplementedError

    def accumulator(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""
        return self.wire.accumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """This wire format's default capabilities (a copy of ``default_capabilities``; ``model`` unused here)."""
        return copy.deepcopy(self.default_capabilities)
