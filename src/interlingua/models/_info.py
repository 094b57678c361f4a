"""What we know about one model, and where each fact came from.

Layers, each beating the one before, field by field:

1. ``default``: the wire format's defaults (the mapper's ``capabilities(model)``; for an
   OpenAI-compatible host, its registry entry's ``capabilities``). Only the wire-level facts
   (``requires_tool_definitions``, ``raw_round_trip``, ``streaming``, ``assistant_prefill``) are taken
   from them for a model nobody describes: its model-level capabilities are *unknown*.
2. ``catalogue``: the pinned catalogue snapshot (:mod:`interlingua.models._catalogue`).
3. ``override``: interlingua's hand-written model table (``interlingua/data/models.json``), each
   entry with its public source in its ``note``; the first entry whose pattern matches.
4. ``user``: a model table the user names (``INTERLINGUA_MODELS`` or :func:`use_models_file`): only
   the capability fields an entry spells out. A resolver in Python
   (:func:`interlingua.capabilities.resolve`'s ``resolver``) beats all of these for preflight.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from pathlib import Path
from typing import Any, Literal

from ._catalogue import CatalogueRow, find, rows
from ._sources import CATALOGUE_PROVIDERS, GATEWAY_CATALOGUES, OPEN_HOST_FALLBACK

__all__ = ["Fact", "ModelFacts", "Prices", "ReasoningControl", "lookup", "use_models_file"]

Origin = Literal["user", "override", "catalogue", "default", "unknown"]

MODEL_LEVEL = (
    "input_modalities",
    "output_modalities",
    "tools",
    "parallel_tool_calls",
    "reasoning",
    "reasoning_settings",
    "structured_output",
    "prompt_caching",
    "stop_sequences",
    "max_output_tokens",
    "max_tool_calls_per_turn",
)
"""Capability fields that belong to the model (unknown for a model nobody describes); the others
(``requires_tool_definitions``, ``raw_round_trip``, ``streaming``, ``assistant_prefill``) belong to the
wire format and always come from its defaults unless an override says otherwise."""

MODALITIES = ("text", "image", "audio", "video", "document")

USER_TABLE_ENV = "INTERLINGUA_MODELS"
"""Environment variable naming a user's model table (a JSON file shaped as ``schemas/model_table.json``)."""


@dataclass(frozen=True)
class Fact:
    """One fact and its origin.

    Attributes:
        value: The fact (``None``: unknown).
        origin: ``user``, ``override``, ``catalogue``, ``default`` or ``unknown``.
        detail: Where exactly: the catalogue row (``litellm 1.110.2: cerebras/gpt-oss-120b``), the
            override pattern and its source note, the user file, the mapper defaults.
    """

    value: Any
    origin: Origin
    detail: str = ""


@dataclass(frozen=True)
class Prices:
    """Catalogue prices in US dollars per million tokens (``None``: the catalogue gives none).

    Attributes:
        input: Prompt tokens (not read from cache).
        output: Generated tokens (reasoning included unless ``reasoning`` is set).
        cache_read: Prompt tokens read from the provider's cache.
        cache_write: Prompt tokens written to the provider's cache.
        reasoning: Reasoning tokens, where priced apart from ``output``.
        as_of: The price list's label (``litellm 1.110.2 (2026-12-01)``).
    """

    input: float | None
    output: float | None
    cache_read: float | None = None
    cache_write: float | None = None
    reasoning: float | None = None
    as_of: str = ""


@dataclass(frozen=True)
class ReasoningControl:
    """Which reasoning control the model takes, as far as the catalogue and overrides say.

    Attributes:
        efforts: Effort levels the model takes (``low``, ``medium``, ``high``, and where listed
            ``none``, ``minimal``, ``xhigh``, ``max``); ``None`` when unknown.
        adaptive: Anthropic adaptive thinking (``thinking.type: "adaptive"``).
        output_config: Anthropic ``output_config.effort`` is taken.
        always_on: The model always reasons (it cannot be switched off).
    """

    efforts: tuple[str, ...] | None = None
    adaptive: bool | None = None
    output_config: bool | None = None
    always_on: bool | None = None


@dataclass(frozen=True)
class ModelFacts:
    """Everything known about ``model`` on wire format ``provider``.

    Attributes:
        provider: Mapper registry name (``anthropic``, ``openai-chat:cerebras``, ...).
        model: The model name as asked.
        known: Whether the catalogue, an override or the user's table describes the model. When
            ``False`` its model-level capabilities are unknown (preflight cannot check them and
            refuses nothing on them; see :data:`MODEL_LEVEL`).
        capabilities: The resolved :class:`~interlingua.items.ModelCapabilities` (for an unknown model:
            the wire format's defaults, to be read as "unknown" for :data:`MODEL_LEVEL` fields).
        context_window: Most input tokens (prompt plus history), when known.
        max_output_tokens: Most tokens one response may generate, when known.
        reasoning_control: Which reasoning control the model takes.
        prices: Catalogue prices, when listed.
        deprecation_date: The provider's announced retirement date (ISO), when listed.
        retired: The date (ISO) the provider retired the model, when an override says so: the facts
            are its last known ones, and requests to it fail at the provider.
        resolved_as: For a gateway's model id, how it was read to find its row or override
            (``gateway id vendor 'anthropic' -> anthropic, dotted version -> 'claude-sonnet-4-5'``).
        catalogue_row: ``<catalogue provider>/<name>`` of the catalogue row used, if any.
        override: The matching hand-written :class:`~interlingua.items.ModelTableEntry`, if any
            (it carries every wire-rule field of ``models.json``, present and future).
        facts: Per fact name (each capability field, ``context_window``, ``prices``, ...), its :class:`Fact`.
    """

    provider: str
    model: str
    known: bool
    capabilities: Any
    context_window: int | None = None
    max_output_tokens: int | None = None
    reasoning_control: ReasoningControl = field(default_factory=ReasoningControl)
    prices: Prices | None = None
    deprecation_date: str | None = None
    catalogue_row: str | None = None
    override: Any = None
    retired: str | None = None
    resolved_as: str | None = None
    facts: Mapping[str, Fact] = field(default_factory=dict)

    def why(self, name: str) -> str:
        """One line saying where fact ``name`` came from (``catalogue (litellm 1.110.2: openai/gpt-4o)``)."""
        fact = self.facts.get(name)
        if fact is None:
            return "unknown"
        return f"{fact.origin} ({fact.detail})" if fact.detail else fact.origin


# ------------------------------------------------------------------------------------------ the layers


def catalogue_facts(fields: dict[str, Any]) -> dict[str, Any]:
    """Capability facts a catalogue row states, by capability field (absent facts are left out:
    the catalogue's silence is not a ``false``)."""
    f = fields
    out: dict[str, Any] = {}
    mods = [str(m).lower() for m in f.get("supported_modalities") or ()]
    inputs = ["text"]
    if f.get("supports_vision") or "image" in mods:
        inputs.append("image")
    if f.get("supports_audio_input") or "audio" in mods:
        inputs.append("audio")
    if f.get("supports_video_input") or "video" in mods:
        inputs.append("video")
    if f.get("supports_pdf_input"):
        inputs.append("document")
    # The catalogue says what a model takes when it names a modality or vision; a bare row says nothing.
    if any(k in f for k in ("supports_vision", "supported_modalities", "supports_pdf_input", "supports_audio_input")):
        out["input_modalities"] = inputs
    outs = [str(m).lower() for m in f.get("supported_output_modalities") or ()]
    if f.get("supports_audio_output") and "audio" not in outs:
        outs = [*(outs or ["text"]), "audio"]
    if outs:
        out["output_modalities"] = [m for m in MODALITIES if m in outs] or ["text"]
    for cap, key in (
        ("tools", "supports_function_calling"),
        ("parallel_tool_calls", "supports_parallel_function_calling"),
        ("reasoning", "supports_reasoning"),
        ("prompt_caching", "supports_prompt_caching"),
        ("assistant_prefill", "supports_assistant_prefill"),
    ):
        if key in f:
            out[cap] = bool(f[key])
    if "supports_response_schema" in f or "supports_native_structured_output" in f:
        out["structured_output"] = bool(f.get("supports_response_schema") or f.get("supports_native_structured_output"))
    if "supports_reasoning" in f:
        # the model reasons and takes reasoning settings; whether its reasoning can be sent back is the
        # wire format's rule (``reasoning`` is and-ed with the defaults' by :func:`lookup`)
        out["reasoning_settings"] = bool(f["supports_reasoning"])
    if isinstance(f.get("max_output_tokens"), int) and f["max_output_tokens"] > 0:
        out["max_output_tokens"] = f["max_output_tokens"]
    return out


_FLAGS = {
    "tools": ("supports_function_calling",),
    "structured_output": ("supports_response_schema", "supports_native_structured_output"),
    "assistant_prefill": ("supports_assistant_prefill",),
}
_FIRST_PARTY_ROWS = frozenset({"openai", "anthropic", "gemini", "vertex_ai-language-models", "mistral", "xai", "deepseek", "cohere_chat"})
"""Catalogue sections of the vendors' own APIs, whose rows state every flag a model has. Hosts'
sections (``together_ai``, ``fireworks_ai``, ``bedrock_converse``, ...) leave flags out of models that
have them (``together_ai/qwen/qwen2.5-vl-72b-instruct`` names no vision): their silence says nothing."""
_MODALITY_FLAGS = ("supports_vision", "supported_modalities", "supports_pdf_input", "supports_audio_input", "supports_video_input")


def _silent_flag(name: str) -> str:
    return "modality (supports_vision, supports_pdf_input, ...)" if name == "input_modalities" else " or ".join(_FLAGS[name])


def catalogue_silences(fields: dict[str, Any]) -> dict[str, Any]:
    """Capability facts a catalogue row of a vendor's own API (``_FIRST_PARTY_ROWS``) implies by
    leaving a ``supports_*`` flag out, by field.

    A row is the catalogue's word on one model, and LiteLLM reads a flag its row leaves out as
    ``False`` (``litellm.supports_vision`` and the like): a row naming no modality flag takes text
    only, one naming no ``supports_function_calling`` takes no tools. :func:`lookup` applies these
    only where they narrow a default, so a known model never inherits a wire format default's
    ``true`` (gpt-3.5-turbo's row names no vision: an image to it is refused). Parallel tool calls are
    not read this way: LiteLLM's Claude rows leave ``supports_parallel_function_calling`` out, and
    Claude makes parallel calls (Anthropic "Parallel tool use" docs).
    """
    out: dict[str, Any] = {}
    if not any(k in fields for k in _MODALITY_FLAGS):
        out["input_modalities"] = ["text"]
    for cap, keys in _FLAGS.items():
        if not any(k in fields for k in keys):
            out[cap] = False
    return out


def _efforts(f: dict[str, Any]) -> tuple[str, ...] | None:
    if not f.get("supports_reasoning"):
        return None
    listed = f.get("reasoning_effort_levels")
    if isinstance(listed, list) and listed:
        return tuple(str(x) for x in listed)
    levels = ["low", "medium", "high"]
    for flag, level, at in (
        ("supports_none_reasoning_effort", "none", 0),
        ("supports_minimal_reasoning_effort", "minimal", None),
        ("supports_xhigh_reasoning_effort", "xhigh", None),
        ("supports_max_reasoning_effort", "max", None),
    ):
        if f.get(flag):
            if level == "none":
                levels.insert(0, level)
            elif level == "minimal":
                levels.insert(1 if levels[0] == "none" else 0, level)
            else:
                levels.append(level)
    return tuple(levels)


def _prices(f: dict[str, Any], as_of: str) -> Prices | None:
    def per_million(key: str) -> float | None:
        v = f.get(key)
        return round(float(v) * 1_000_000, 6) if isinstance(v, (int, float)) else None

    if "input_cost_per_token" not in f and "output_cost_per_token" not in f:
        return None
    return Prices(
        input=per_million("input_cost_per_token"),
        output=per_million("output_cost_per_token"),
        cache_read=per_million("cache_read_input_token_cost"),
        cache_write=per_million("cache_creation_input_token_cost"),
        reasoning=per_million("output_cost_per_reasoning_token"),
        as_of=as_of,
    )


def catalogue_row(provider: str, model: str) -> CatalogueRow | None:
    """The catalogue row describing ``model`` on ``provider``: its own catalogue providers first, then
    (for a wire format many hosts speak, :data:`OPEN_HOST_FALLBACK`) every host's, by the same name."""
    own = CATALOGUE_PROVIDERS.get(provider, ())
    row = find(own, model)
    if row is None and provider in OPEN_HOST_FALLBACK:
        row = find(_others(own), model)
    return row


def _others(own: tuple[str, ...]) -> tuple[str, ...]:
    """Every wire format's catalogue providers but ``own``, then the gateways' (:data:`GATEWAY_CATALOGUES`)."""
    every = [p for ps in CATALOGUE_PROVIDERS.values() for p in ps] + list(GATEWAY_CATALOGUES)
    return tuple(dict.fromkeys(p for p in every if p not in own))


def _host_override(provider: str, model: str, row: CatalogueRow | None) -> Any:
    """The override for ``model`` on ``provider``; for a row found through the open-host fallback,
    the override of the host whose catalogue row it is."""
    from ..capabilities._table import lookup as table_lookup

    entry = table_lookup(provider, model)
    if entry is None and row is not None and row.provider not in CATALOGUE_PROVIDERS.get(provider, ()):
        entry = next((table_lookup(p, model) for p, cat in CATALOGUE_PROVIDERS.items() if row.provider in cat and table_lookup(p, model)), None)
    return entry


def _any_override(model: str) -> Any:
    """The override of any wire format matching ``model``: one naming it exactly first, then the first
    (registry order) whose glob matches."""
    from ..capabilities._table import lookup as table_lookup

    found = [e for p in CATALOGUE_PROVIDERS if (e := table_lookup(p, model)) is not None]
    # a host's own id (a pattern with no wildcard) before another format's family glob
    return next((e for e in found if not any(c in e.pattern for c in "*?[")), found[0] if found else None)


def _resolve(provider: str, model: str) -> tuple[CatalogueRow | None, Any, Any]:
    """(catalogue row, override entry, gateway reading or ``None``) describing ``model`` on ``provider``.

    The model's own name first (its wire format's rows and overrides; for an open-host wire format
    every host's rows by the same name). Then, for an open-host wire format only, each reading of the
    gateway id rules of :mod:`._gateway`: the vendor's catalogue row (or any host's row by that name),
    any host's row by its last ``/`` segment, the vendor's overrides; last, the overrides of any wire
    format matching the model (a host's own id: Groq's ``llama-3.3-70b-versatile``, an Ollama tag).
    Rows before overrides: an override states what it changes on top of a row."""
    from ._gateway import Underlying, row_by_tail, underlying

    row = catalogue_row(provider, model)
    entry = _host_override(provider, model, row)
    if row is not None or entry is not None or provider not in OPEN_HOST_FALLBACK:
        return row, entry, None
    readings = underlying(model)
    for reading in readings:  # the vendor's row, or any host's row by the same name
        row = catalogue_row(reading.provider, reading.name) if reading.provider is not None else find(_others(()), reading.name)
        if row is not None:
            return row, _host_override(reading.provider, reading.name, row) if reading.provider is not None else None, reading
    for reading in readings:  # any host's row by its last ``/`` segment
        if reading.provider is None and (row := row_by_tail(_others(()), reading.name)) is not None:
            return row, None, reading
    for reading in readings:  # the vendor's overrides
        if reading.provider is not None and (entry := _host_override(reading.provider, reading.name, None)) is not None:
            return None, entry, reading
    named: list[tuple[str, Underlying | None]] = [(model, None), *((r.name, r) for r in readings)]
    for name, read in named:  # any wire format's overrides
        if (entry := _any_override(name)) is not None:
            return None, entry, read
    return None, None, None


# ------------------------------------------------------------------------------------------ user table

_user_file: Path | None = None


def use_models_file(path: str | os.PathLike[str] | None) -> None:
    """Use the model table at ``path`` as the user's overrides (``None``: only ``INTERLINGUA_MODELS``).

    The file has the shape of ``schemas/model_table.json``; an entry's capabilities may spell out only
    some fields, and only those override. Read at the next lookup.

    Raises:
        DocumentError: the file is not a valid model table (the message names the file).
        OSError: the file cannot be read.
    """
    global _user_file
    if path is not None:
        _user_entries(str(path))  # fail now, not at the first conversion
    _user_file = Path(path) if path is not None else None
    _lookup.cache_clear()


@functools.lru_cache(maxsize=4)
def _user_entries(path: str) -> tuple[tuple[str, str, dict[str, Any], str, int | None], ...]:
    """(provider, pattern, the capability fields the entry spells out, note, context window) of the
    user's table; the context window is ``None`` when the entry gives none."""
    import msgspec

    from ..capabilities._table import load_table

    load_table(path)  # validates (DocumentError names the file)
    raw = msgspec.json.decode(Path(path).read_bytes())
    return tuple(
        (e["provider"], e["pattern"], dict(e["capabilities"]), e.get("note", ""), e["context_window"] if isinstance(e.get("context_window"), int) else None)
        for e in raw["entries"]
    )


def _user_path() -> str | None:
    if _user_file is not None:
        return str(_user_file)
    env = os.environ.get(USER_TABLE_ENV, "").strip()
    return env or None


# ------------------------------------------------------------------------------------------ lookup


def lookup(provider: str, model: str) -> ModelFacts:
    """What interlingua knows about ``model`` on wire format ``provider``, and where each fact came from.

    Args:
        provider: Mapper registry name (``openai-chat``, ``anthropic``, ``openai-chat:groq``, ...).
        model: The model name as it is sent (``gpt-4o``, ``models/gemini-2.5-flash``, ``claude-sonnet-4-5-20250929``).

    Returns:
        A :class:`ModelFacts`; ``known`` is ``False`` when nothing describes the model (its model-level
        capabilities are then unknown, never borrowed from a default).

    Raises:
        UnknownFormatError: no mapper is registered as ``provider``.
        DocumentError: the user's model table (``INTERLINGUA_MODELS``) is not valid.
    """
    return _lookup(provider, model, _user_path())


@functools.lru_cache(maxsize=1024)
def _lookup(provider: str, model: str, user_path: str | None) -> ModelFacts:
    import msgspec

    from ..capabilities._table import pattern_matches, spelled_fields
    from ..mapping.registry import get_mapper
    from ._catalogue import source

    defaults = get_mapper(provider).capabilities(model)
    label = source().label()
    facts: dict[str, Fact] = {}
    values: dict[str, Any] = {}
    host = provider.partition(":")[2]
    default_detail = f"{provider} defaults" + (f" (host registry entry {host!r})" if host else "")
    for name in msgspec.structs.asdict(defaults):
        value = getattr(defaults, name)
        value = None if value is msgspec.UNSET else value
        values[name] = value
        facts[name] = Fact(value, "default", default_detail)

    row, entry, reading = _resolve(provider, model)
    known = row is not None
    context_window = max_output = None
    prices = None
    deprecation = None
    control = ReasoningControl()
    if row is not None:
        detail = f"{label}: {row.key}" + (f" ({reading.rule})" if reading is not None else "")
        for name, value in catalogue_facts(row.fields).items():
            if name == "reasoning":
                value = bool(value and defaults.reasoning)
            values[name] = value
            facts[name] = Fact(value, "catalogue", detail)
        for name, value in (catalogue_silences(row.fields) if row.provider in _FIRST_PARTY_ROWS else {}).items():
            narrowed = [m for m in values[name] if m in value] if isinstance(values.get(name), list) else (values.get(name) and value)
            if narrowed != values.get(name):
                values[name] = narrowed
                facts[name] = Fact(narrowed, "catalogue", f"{detail}: the row names no {_silent_flag(name)} flag, which LiteLLM reads as false")
        f = row.fields
        window = f.get("max_input_tokens") or f.get("max_tokens")
        if isinstance(window, int):
            context_window = window
            facts["context_window"] = Fact(window, "catalogue", detail)
        if isinstance(f.get("max_output_tokens"), int):
            max_output = f["max_output_tokens"]
        prices = _prices(f, label)
        if prices is not None:
            facts["prices"] = Fact(prices, "catalogue", detail)
        deprecation = f.get("deprecation_date") if isinstance(f.get("deprecation_date"), str) else None
        control = ReasoningControl(
            efforts=_efforts(f),
            adaptive=f.get("supports_adaptive_thinking") if "supports_adaptive_thinking" in f else None,
            output_config=f.get("supports_output_config") if "supports_output_config" in f else None,
            always_on=f.get("thinking_always_on") if "thinking_always_on" in f else None,
        )
        facts["reasoning_control"] = Fact(control, "catalogue", detail)

    retired = None
    if reading is not None and reading.variant == "free":
        prices = Prices(input=0.0, output=0.0, cache_read=0.0, cache_write=0.0, as_of=label)
        facts["prices"] = Fact(prices, "override", "OpenRouter ':free' variant: no charge (openrouter.ai/docs, Model Variants)")
    if entry is not None:
        known = True
        source_text = f" ({entry.source})" if isinstance(entry.source, str) else ""
        note = f"models.json pattern {entry.pattern!r} of {entry.provider}{source_text}" + (f" [{reading.rule}]" if reading is not None else "")
        note += f": {entry.note}" if isinstance(entry.note, str) and entry.note else ""
        borrowed = entry.provider != provider  # another wire format's entry for the same model: its model facts only
        spelled = spelled_fields(entry)  # a shipped override states only what it changes
        for name in values:
            if borrowed and name not in MODEL_LEVEL:
                continue
            if spelled is not None and name not in spelled:
                continue
            value = getattr(entry.capabilities, name)
            value = None if value is msgspec.UNSET else value
            if borrowed and name == "reasoning":
                value = bool(value and defaults.reasoning)
            if borrowed and name == "reasoning_settings" and value is None:
                value = entry.capabilities.reasoning  # ``null`` there means "as reasoning", which is not and-ed here
            if name == "max_output_tokens" and value is None and values.get(name) is not None:
                continue  # the override does not know it; the catalogue does
            values[name] = value
            facts[name] = Fact(value, "override", note)
        if isinstance(entry.context_window, int):
            context_window = entry.context_window
            facts["context_window"] = Fact(context_window, "override", note)
        if isinstance(entry.retired, str):
            retired = entry.retired
            facts["retired"] = Fact(retired, "override", note)

    if user_path is not None:
        for u_provider, pattern, given, u_note, u_window in _user_entries(user_path):
            if u_provider == provider and pattern_matches(pattern, model):
                known = True
                detail = f"{user_path} pattern {pattern!r}" + (f": {u_note}" if u_note else "")
                for name, value in given.items():
                    if name in values:
                        values[name] = value
                        facts[name] = Fact(value, "user", detail)
                if u_window is not None:  # the entry's context_window, as a shipped override's is read
                    context_window = u_window
                    facts["context_window"] = Fact(u_window, "user", detail)
                break

    if isinstance(values.get("max_output_tokens"), int):
        max_output = values["max_output_tokens"]
        facts.setdefault("max_output_tokens", Fact(max_output, "catalogue"))
    if not known:
        for name in MODEL_LEVEL:
            facts[name] = Fact(None, "unknown", f"no catalogue row or override for {model!r} on {provider}")
    caps = msgspec.structs.replace(defaults, **{k: (msgspec.UNSET if v is None and k in ("reasoning_settings", "max_output_tokens", "max_tool_calls_per_turn") else v) for k, v in values.items()})
    return ModelFacts(
        provider=provider,
        model=model,
        known=known,
        capabilities=caps,
        context_window=context_window,
        max_output_tokens=max_output,
        reasoning_control=control,
        prices=prices,
        deprecation_date=deprecation,
        catalogue_row=row.key if row is not None else None,
        override=entry,
        retired=retired,
        resolved_as=reading.rule if reading is not None else None,
        facts=MappingProxyType(facts),  # shared by every caller of the cached lookup: read-only
    )


def catalogue_models(provider: str) -> list[str]:
    """The catalogue's model names for wire format ``provider`` (its own catalogue providers only)."""
    names: list[str] = []
    for p in CATALOGUE_PROVIDERS.get(provider, ()):
        names.extend(rows(p))
    return sorted(set(names))
