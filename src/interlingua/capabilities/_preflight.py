"""Preflight: check a transcript against a target model's capabilities before any request is built.

:func:`check` lists every :class:`~interlingua.errors.CapabilityViolation`;
:func:`preflight` raises :class:`~interlingua.errors.CapabilityError` holding all
of them; :func:`fit` applies the loss policy first (see "Policy" below). The rules
look only at the items and the capabilities, never at a provider's name.

What is a violation (and what is not, on purpose):

* **Input modalities.** ``image``, ``audio``, ``video`` and ``document`` items, at the top
  level or nested in a ``tool_result``/``handoff_result``, need that modality
  in ``input_modalities``. An ``artifact_ref`` counts by its ``media_type``
  (``image/*``, ``audio/*``, ``video/*``, anything else is a document); without one it is not
  checked (the mapper that resolves it decides).
* **Tools.** Without ``tools``, every ``tool_call``, ``tool_result``,
  ``handoff_call`` and ``handoff_result`` item, the transcript's ``tools`` and a
  ``tool_choice`` other than ``none`` are violations.
* **Parallel calls.** Without ``parallel_tool_calls``, each call after the first
  in one assistant turn; with ``max_tool_calls_per_turn``, each call past that
  limit. An assistant turn is a run of consecutive assistant-side items
  (``tool_call``, ``handoff_call``, ``reasoning``, ``structured``, ``refusal``,
  assistant content, assistant ``raw``), with ``error`` items and role-less
  ``raw`` items not interrupting it; calls sharing a ``message`` key are one turn
  wherever they are. A ``tool_choice`` asking for parallel calls is a violation too.
* **Tool definitions.** With ``requires_tool_definitions``, a transcript holding
  tool calls or results but no ``tools`` is one transcript-level violation.
* **Raw items.** A ``raw`` item of the target's own wire format when
  ``raw_round_trip`` is false. ``raw`` items of other formats are the mapper's
  business (left out and reported, per policy).
* **Streaming.** ``stream=True`` against a model without ``streaming``.
* **Settings the model cannot take** (the transcript's ``settings``): ``reasoning`` (any
  reasoning setting, ``effort: "none"`` included: a model that does not reason takes no
  reasoning parameter) without ``reasoning_settings`` (``null``: as ``reasoning``; OpenAI's
  o-series and GPT-5 take ``reasoning_effort`` on Chat Completions, which returns no reasoning); a ``response_format`` other than ``text`` without
  ``structured_output``; ``stop`` sequences without ``stop_sequences``; ``max_output_tokens``
  above the model's ``max_output_tokens``. Each is one transcript-level violation with item
  type ``settings``.

Not violations:

* ``reasoning`` items when ``reasoning`` is false: the mapper leaves them out and
  reports it (foreign opaque state is dropped the same way), so preflight would
  only refuse what the policy already handles.
* A trailing assistant message when ``assistant_prefill`` is false: a stored
  conversation normally ends with the assistant's answer, and preflight cannot
  tell a finished answer from a prefill; a model without prefill reads it as
  history. Callers who mean to continue it check ``assistant_prefill`` themselves.
* ``structured`` items when ``structured_output`` is false: in a history they are
  the assistant's earlier output, which every model can read back (mappers send
  the data as JSON text); the capability governs asking for constrained output,
  which is a request option, not an item.
* Unknown items (preserved from a newer schema): nothing is known about them; the
  mapper decides.

Policy (:func:`fit`): under ``error`` every violation refuses, as :func:`preflight`.
Under ``drop`` or ``degrade`` three kinds are repaired and reported, and the rest
still refuse (no policy makes a model take tools, parallel calls, its own raw
items or a stream it cannot):

* **Input modalities.** Each offending item (or part inside a ``tool_result``/
  ``handoff_result``) is left out (``drop``, reported ``dropped``) or replaced by a
  short text marker with the same role and ``message`` key (``degrade``, reported
  ``degraded``).
* **Missing tool definitions** (``requires_tool_definitions``). One definition per
  tool name called in the history is synthesized: the name and a permissive object
  schema (``{"type": "object", "additionalProperties": true}``), reported as
  ``changed``. A history whose tool items name no tool (results or handoffs only)
  still refuses.
* **Settings.** A setting the model cannot take is left out (``dropped``);
  ``max_output_tokens`` above the model's limit is lowered to the limit (``changed``).

Cost: the item-level rules read an item's class, and only for ``artifact_ref``, ``raw`` and the parts of
results anything more. A table per capability shape (computed once) lists the classes that can give no
item-level violation for that model; when every class present is in it (the common case), the per-item
passes are skipped and the result is the same (ADR 0045).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, compress
from operator import attrgetter
from typing import Any, Literal, get_args

import msgspec

from ..codec import UnknownItem
from ..errors import BudgetError, CapabilityError, CapabilityViolation
from ..items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
    DocumentItem,
    ErrorItem,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    InputItem,
    ModelCapabilities,
    RawItem,
    ReasoningItem,
    RefusalItem,
    Settings,
    StructuredItem,
    ToolCallItem,
    TextItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from ..mapping.report import Policy, Report
from ..mapping.tool_definitions import PERMISSIVE_PARAMETERS, note_synthesized, synthesized_tools

__all__ = ["PERMISSIVE_PARAMETERS", "Fitted", "check", "fit", "preflight"]


_TOOL_ITEMS = (ToolCallItem, ToolResultItem, HandoffCallItem, HandoffResultItem)
_CALL_ITEMS = (ToolCallItem, HandoffCallItem)
_ASSISTANT_ITEMS = (ToolCallItem, HandoffCallItem, ReasoningItem, StructuredItem, RefusalItem)

Side = Literal["assistant", "other", "neutral"]

# ---------------------------------------------------------------- the per-model tables (ADR 0045)

_MEDIA: dict[type, str] = {ImageItem: "image", AudioItem: "audio", VideoItem: "video", DocumentItem: "document"}
_ALL_MEDIA = frozenset(_MEDIA.values())
_ITEM_CLASSES: frozenset[type] = frozenset(get_args(get_args(InputItem)[0]))
"""The exact classes of the item union: a subclass (or anything else) is never in a table, so it
always gets the per-item look."""
_TOOL_CLASSES = frozenset(_TOOL_ITEMS)
_RESULT_CLASSES = frozenset((ToolResultItem, HandoffResultItem))
_CALL_CLASSES = frozenset(_CALL_ITEMS)
_contents = attrgetter("content")


@dataclass(frozen=True)
class _Table:
    """What the checks of one model need per item class, computed once per capability shape.

    ``items``: the top-level classes that can give no item-level violation and need no repair for
    this model (their modality is taken, tools are taken when they are tool items, the target's
    own raw items can be sent back); ``parts``: the same for the parts inside a ``tool_result``/
    ``handoff_result`` (only their modality counts)."""

    items: frozenset[type]
    parts: frozenset[type]


@functools.lru_cache(maxsize=256)
def _table(allowed: frozenset[str], tools: bool, raw_round_trip: bool) -> _Table:
    """The :class:`_Table` for a model taking the input modalities ``allowed``, tools or not, its
    own raw items back or not (the only capability fields the item-level rules read)."""
    # an artifact_ref's modality is its media_type's, read per item: it is free only when every
    # modality is taken
    artifact = _ALL_MEDIA <= allowed
    parts: set[type] = set()
    for cls in _ITEM_CLASSES | {UnknownItem}:
        need = _MEDIA.get(cls)
        if (need is None or need in allowed) and (cls is not ArtifactRefItem or artifact):
            parts.add(cls)
    items = set(parts)
    if not tools:
        items -= _TOOL_CLASSES
    if not raw_round_trip:
        items.discard(RawItem)
    return _Table(frozenset(items), frozenset(parts))


def _item_pass_needed(items: Sequence[Any], caps: ModelCapabilities, allowed: set[str], classes: set[type]) -> bool:
    """Whether any item of ``items`` (whose classes are ``classes``) can give an item-level
    violation or repair under ``caps``: decided from the model's :class:`_Table` and the classes
    present (at C speed), so a conversation that fits skips the per-item passes."""
    table = _table(frozenset(allowed), bool(caps.tools), bool(caps.raw_round_trip))
    if not classes <= table.items:
        return True
    if classes & _RESULT_CLASSES and table.parts != _PART_CLASSES:
        results = compress(items, map(_RESULT_CLASSES.__contains__, map(type, items)))
        if not set(map(type, chain.from_iterable(map(_contents, results)))) <= table.parts:
            return True
    return False


_PART_CLASSES = _table(_ALL_MEDIA | {"text"}, True, True).parts


def _type_of(item: Any) -> str:
    if isinstance(item, UnknownItem):
        return item.type or "unknown"
    return str(item.__struct_config__.tag)


def _is_set(value: Any) -> bool:
    return value is not msgspec.UNSET and value is not None


def _modality(item: Any) -> str | None:
    """The input modality an item needs, or ``None`` for text/structured/unknown."""
    if isinstance(item, ImageItem):
        return "image"
    if isinstance(item, AudioItem):
        return "audio"
    if isinstance(item, VideoItem):
        return "video"
    if isinstance(item, DocumentItem):
        return "document"
    if isinstance(item, ArtifactRefItem) and _is_set(item.media_type):
        media = str(item.media_type).lower()
        if media.startswith("image/"):
            return "image"
        if media.startswith("audio/"):
            return "audio"
        if media.startswith("video/"):
            return "video"
        return "document"
    return None


def _modality_violations(index: int, item: Any, allowed: set[str]) -> Iterable[CapabilityViolation]:
    need = _modality(item)
    if need is not None and need not in allowed:
        yield CapabilityViolation(index, _type_of(item), f"{need} input is not supported (input modalities: {', '.join(sorted(allowed))})")
    if isinstance(item, (ToolResultItem, HandoffResultItem)):
        for j, part in enumerate(item.content):
            need = _modality(part)
            if need is not None and need not in allowed:
                yield CapabilityViolation(
                    index,
                    _type_of(part),
                    f"{need} input inside {_type_of(item)} content[{j}] is not supported (input modalities: {', '.join(sorted(allowed))})",
                )


def _side(item: Any) -> Side:
    if isinstance(item, _ASSISTANT_ITEMS):
        return "assistant"
    if isinstance(item, (ErrorItem, UnknownItem)):
        return "neutral"
    if isinstance(item, RawItem) and not _is_set(item.role):
        return "neutral"
    role = getattr(item, "role", msgspec.UNSET)
    return "assistant" if role == "assistant" else "other"


def _call_turns(items: Sequence[Any]) -> list[list[int]]:
    """Indices of tool/handoff calls grouped by assistant turn, in order."""
    turns: dict[int, list[int]] = {}
    turn_of_message: dict[str, int] = {}
    run = 0
    in_run = False
    for i, item in enumerate(items):
        side = _side(item)
        if side == "other":
            in_run = False
            continue
        if side == "neutral":
            continue
        if not in_run:
            run += 1
            in_run = True
        if isinstance(item, _CALL_ITEMS):
            message = item.message if isinstance(item.message, str) else None
            turn = turn_of_message.get(message, run) if message is not None else run
            if message is not None:
                turn_of_message.setdefault(message, turn)
            turns.setdefault(turn, []).append(i)
    return [calls for _, calls in sorted(turns.items(), key=lambda kv: kv[1][0])]


def _parallel_violations(items: Sequence[Any], caps: ModelCapabilities) -> Iterable[CapabilityViolation]:
    limit = caps.max_tool_calls_per_turn if isinstance(caps.max_tool_calls_per_turn, int) else None
    if not caps.parallel_tool_calls:
        limit = 1 if limit is None else min(limit, 1)
    if limit is None:
        return
    for calls in _call_turns(items):
        if len(calls) <= limit:
            continue
        span = f"items {calls[0]}-{calls[-1]}"
        for n, index in enumerate(calls[limit:], start=limit + 1):
            if caps.parallel_tool_calls:
                why = f"the model takes at most {limit} tool call(s) per turn"
            else:
                why = "the model takes one tool call per assistant turn (no parallel tool calls)"
            yield CapabilityViolation(index, _type_of(items[index]), f"call {n} of {len(calls)} in one assistant turn ({span}); {why}")


def check(
    transcript: Transcript, capabilities: ModelCapabilities, *, provider: str, stream: bool = False
) -> list[CapabilityViolation]:
    """Every way ``transcript`` asks for more than ``capabilities`` allow, in item order.

    Args:
        transcript: The conversation to send.
        capabilities: The target model's capabilities (see :func:`~interlingua.capabilities.resolve`).
        provider: Mapper registry name of the target wire format (used to recognise the
            target's own ``raw`` items and in messages).
        stream: Whether the request will ask for a streamed response.

    Returns:
        The violations: item-level ones first in item order, then transcript-level ones
        (``index`` ``None``). Empty when the transcript fits.
    """
    return _check(transcript, capabilities, provider, stream, None)


def _check(transcript: Transcript, capabilities: ModelCapabilities, provider: str, stream: bool, classes: set[type] | None) -> list[CapabilityViolation]:
    """:func:`check`, given the classes of the items when they are known (``None``: found here)."""
    caps = capabilities
    items = transcript.items
    allowed: set[str] = set(caps.input_modalities) if isinstance(caps.input_modalities, list) else {"text"}
    if classes is None:
        classes = set(map(type, items))
    found: list[CapabilityViolation] = []
    if _item_pass_needed(items, caps, allowed, classes):
        for i, item in enumerate(items):
            found.extend(_modality_violations(i, item, allowed))
            if isinstance(item, _TOOL_ITEMS) and not caps.tools:
                found.append(CapabilityViolation(i, _type_of(item), "tools are not supported by this model"))
            if isinstance(item, RawItem) and item.provider == provider and not caps.raw_round_trip:
                found.append(CapabilityViolation(i, "raw", f"raw {provider} items cannot be sent back to this model"))
    if caps.tools and (classes & _CALL_CLASSES or not classes <= _ITEM_CLASSES):
        found.extend(_parallel_violations(items, caps))
    found.sort(key=lambda v: v.index if v.index is not None else -1)

    tools = transcript.tools if isinstance(transcript.tools, list) else []
    choice = transcript.tool_choice if isinstance(transcript.tool_choice, ToolChoice) else None
    if not caps.tools:
        if tools:
            found.append(CapabilityViolation(None, "tools", f"the transcript defines {len(tools)} tool(s) but the model takes no tools"))
        if choice is not None and choice.mode != "none":
            found.append(CapabilityViolation(None, "tool_choice", f"tool_choice {choice.mode!r} needs tools, which the model does not take"))
    else:
        if choice is not None and choice.parallel is True and not caps.parallel_tool_calls:
            found.append(CapabilityViolation(None, "tool_choice", "tool_choice asks for parallel tool calls, which the model does not make"))
        if caps.requires_tool_definitions and not tools and _has_tool_items(items, classes):
            found.append(
                CapabilityViolation(
                    None,
                    "tools",
                    f"the transcript holds tool calls but no tool definitions; {provider} refuses tool_use blocks without `tools`; "
                    "add the definitions the conversation was held with to the transcript's `tools`",
                )
            )
    if stream and not caps.streaming:
        found.append(CapabilityViolation(None, "stream", "streamed responses are not supported by this model"))
    found.extend(CapabilityViolation(None, "settings", reason) for _, reason in _settings_problems(transcript, caps))
    return found


def _set(value: Any) -> bool:
    return value is not msgspec.UNSET and value is not None


def _settings_problems(transcript: Transcript, caps: ModelCapabilities) -> list[tuple[str, str]]:
    """(setting, reason) for each setting of ``transcript`` that ``caps`` cannot take."""
    s = transcript.settings
    if not isinstance(s, Settings):
        return []
    out: list[tuple[str, str]] = []
    reasoning, fmt, tokens = s.reasoning, s.response_format, s.max_output_tokens
    takes_reasoning = caps.reasoning_settings if isinstance(caps.reasoning_settings, bool) else caps.reasoning
    if isinstance(reasoning, msgspec.Struct) and not takes_reasoning:
        asked = ", ".join(f"{k}={v!r}" for k, v in msgspec.structs.asdict(reasoning).items() if _set(v))
        out.append(("reasoning", f"the settings ask for reasoning ({asked}), which this model does not do"))
    if isinstance(fmt, msgspec.Struct) and fmt.type != "text" and not caps.structured_output:
        out.append(("response_format", f"the settings ask for {fmt.type} output, which this model does not produce"))
    if _set(s.stop) and s.stop and not caps.stop_sequences:
        out.append(("stop", "the settings give stop sequences, which this model does not take"))
    limit = caps.max_output_tokens
    if isinstance(tokens, int) and isinstance(limit, int) and tokens > limit:
        out.append(("max_output_tokens", f"max_output_tokens {tokens} is above the model's limit of {limit}"))
    return out


def _fit_settings(transcript: Transcript, caps: ModelCapabilities, report: Report) -> Transcript:
    problems = _settings_problems(transcript, caps)
    if not problems:
        return transcript
    settings = transcript.settings
    assert isinstance(settings, Settings)
    for name, reason in problems:
        if name == "max_output_tokens":
            settings = msgspec.structs.replace(settings, max_output_tokens=caps.max_output_tokens)
            report.add("changed", f"{reason}; lowered to {caps.max_output_tokens}", item_type="settings", pointer="/settings/max_output_tokens")
        else:
            settings = msgspec.structs.replace(settings, **{name: msgspec.UNSET})
            report.add("dropped", f"{reason}; left out", item_type="settings", pointer=f"/settings/{name}")
    return msgspec.structs.replace(transcript, settings=settings)


def preflight(
    transcript: Transcript, capabilities: ModelCapabilities, *, model: str | None, provider: str, stream: bool = False
) -> None:
    """Refuse ``transcript`` before anything is built if the target model cannot take it.

    Args:
        transcript: The conversation to send.
        capabilities: The target model's capabilities.
        model: Target model name (for the message; ``None`` when unknown).
        provider: Mapper registry name of the target wire format.
        stream: Whether a streamed response will be requested.

    Raises:
        CapabilityError: listing every violation (see the module docstring for the rules).
    """
    violations = check(transcript, capabilities, provider=provider, stream=stream)
    if violations:
        raise CapabilityError(model or f"<{provider} default>", violations)


@dataclass
class Fitted:
    """A transcript fitted to a model by :func:`fit`.

    Attributes:
        transcript: The transcript to encode (the input itself when nothing was repaired).
        report: What was left out, replaced or synthesized, with the input's item indices.
        origin: ``origin[i]`` is the index in the input of item ``i`` of ``transcript``
            (items left out under ``drop`` shift the ones after them); use :meth:`source_index`
            to put a later report's indices back in the input's terms.
    """

    transcript: Transcript
    report: Report = field(default_factory=Report)
    origin: list[int] = field(default_factory=list)

    def source_index(self, index: int | None) -> int | None:
        """The input index of item ``index`` of :attr:`transcript` (``None`` stays ``None``)."""
        if index is None or not 0 <= index < len(self.origin):
            return index
        return self.origin[index]

    def translate(self, report: Report) -> Report:
        """A copy of ``report`` (made on :attr:`transcript`) with item indices of the input."""
        if self.origin == list(range(len(self.origin))):  # nothing moved (compared in C, not per item in Python)
            return report
        return Report([replace(e, index=self.source_index(e.index)) for e in report])


def _marker(need: str) -> str:
    return f"[{need} omitted: the model takes no {need} input]"


def _fit_part(part: Any, allowed: set[str], policy: Policy, report: Report, index: int, where: str, model: str) -> list[Any]:
    need = _modality(part)
    if need is None or need in allowed:
        return [part]
    reason = f"{need} input{where} is not supported by {model} (input modalities: {', '.join(sorted(allowed))})"
    if policy == "drop":
        report.add("dropped", reason, index=index, item_type=_type_of(part))
        return []
    report.add("degraded", f"{reason}; replaced by a text marker", index=index, item_type=_type_of(part))
    role = getattr(part, "role", msgspec.UNSET)
    message = getattr(part, "message", msgspec.UNSET)
    return [TextItem(text=_marker(need), role=role, message=message)]


def fit(
    transcript: Transcript,
    capabilities: ModelCapabilities,
    *,
    model: str | None,
    provider: str,
    policy: Policy = "error",
    stream: bool = False,
) -> Fitted:
    """Check a history before it is sent: integrity, capabilities, context window.

    1. **Integrity** (:mod:`interlingua.history`, the rules a request is held to:
       ``SEND_RULES``): dangling calls, orphan and duplicate results, reused call ids (unless each
       call is answered in its own turn), results out of turn, reasoning cut from its output (empty
       texts are each mapper's rule). ``error``
       raises :class:`~interlingua.errors.IntegrityError` listing them; ``drop`` leaves them out,
       ``degrade`` gives a dangling call a stub result saying none was recorded (each reported).
    2. **Capabilities**: :func:`fit_capabilities`.
    3. **Context fit**: when the model's context window is known
       (:func:`~interlingua.history.model_limits`), input tokens (reported usage where the history
       extends a recorded request, else the offline estimate) plus the output budget
       (``settings.max_output_tokens``; none when it is unset) above the window raises
       :class:`~interlingua.errors.BudgetError` with the figures under ``error``.

    Raises:
        IntegrityError: under ``error``, the history breaks the integrity rules.
        CapabilityError: as :func:`fit_capabilities` (indices of the input).
        BudgetError: under ``error``, the request does not fit the model's context window.
    """
    from ..history import repair_items

    if policy == "error":
        # every capability violation first (one CapabilityError lists them all), then the history
        inner = fit_capabilities(transcript, capabilities, model=model, provider=provider, policy=policy, stream=stream)
        repair_items(transcript.items, policy=policy, open_end=False, sending=True)
        _check_context(inner.transcript, model, provider)
        return inner
    report = Report()
    items, origin0, report = repair_items(transcript.items, policy=policy, open_end=False, report=report, sending=True)
    base = msgspec.structs.replace(transcript, items=items) if report else transcript
    try:
        inner = fit_capabilities(base, capabilities, model=model, provider=provider, policy=policy, stream=stream)
    except CapabilityError as exc:
        if not report:
            raise
        raise CapabilityError(exc.model, [replace(v, index=origin0[v.index]) if v.index is not None and 0 <= v.index < len(origin0) else v for v in exc.violations]) from None
    if not report:
        return inner
    origin = [origin0[o] for o in inner.origin]
    report.extend(Fitted(base, Report(), origin0).translate(inner.report))
    return Fitted(inner.transcript, report, origin)


def _check_context(transcript: Transcript, model: str | None, provider: str) -> None:
    """Raise :class:`BudgetError` when the request cannot fit ``model``'s context window."""
    from ..history import count_tokens, model_limits
    from ..history._tokens import IMAGE_TOKENS, ITEM_TOKENS, _enc

    limits = model_limits(provider, model)
    window = limits.context_window
    if window is None:
        return
    settings = transcript.settings
    asked = settings.max_output_tokens if settings is not msgspec.UNSET and isinstance(settings.max_output_tokens, int) else None
    # Without a max_output_tokens the provider decides how much to generate (up to what fits): only
    # the input must fit. Assuming the model's whole output limit refused requests providers answered
    # (a model whose output limit equals its window could never be sent without a max).
    out = asked if asked is not None else 0
    # Cheap bound first: the estimate never exceeds the items' JSON length plus the per-item costs.
    bound = len(_enc.encode(transcript.items)) + len(_enc.encode(transcript.tools if transcript.tools is not msgspec.UNSET else None)) + (ITEM_TOKENS + IMAGE_TOKENS) * len(transcript.items) + 16 * len(transcript.tools or ())
    if bound + out <= window and not transcript.responses:  # reported usage may say more than the text shows
        return
    counted = count_tokens(transcript, model)
    if counted.input_tokens + out > window:
        what = "max_output_tokens" if asked is not None else "none asked"
        raise BudgetError(
            f"the request does not fit the context window of {model!r}: {counted.input_tokens} input tokens "
            f"({'exact' if counted.exact else 'estimated' if counted.method == 'estimate' else f'reported usage for {counted.seeded_items} item(s) + estimate'}) "
            f"+ {out} output tokens ({what}) = {counted.input_tokens + out} > {window}; "
            "trim the history (`interlingua trim`, interlingua.trim) or lower max_output_tokens"
        )


def fit_capabilities(
    transcript: Transcript,
    capabilities: ModelCapabilities,
    *,
    model: str | None,
    provider: str,
    policy: Policy = "error",
    stream: bool = False,
) -> Fitted:
    """Apply ``policy`` to what ``capabilities`` cannot take, then refuse what no policy can fix.

    Under ``error`` this is :func:`preflight`. Under ``drop``/``degrade``, media of a modality the
    model does not take is left out or replaced by a short text marker, and a tool history without
    definitions gets definitions synthesized from its calls (see "Policy" in the module docstring);
    each repair is one report entry. The input is never mutated.

    Args:
        transcript: The conversation to send.
        capabilities: The target model's capabilities.
        model: Target model name (for messages; ``None`` when unknown).
        provider: Mapper registry name of the target wire format.
        policy: ``error``, ``drop`` or ``degrade``.
        stream: Whether a streamed response will be requested.

    Returns:
        A :class:`Fitted` transcript and its report.

    Raises:
        CapabilityError: under ``error``, listing every violation; under ``drop``/``degrade``,
            listing every violation left after the repairs (indices of the input).
    """
    name = model or f"<{provider} default>"
    if policy == "error":
        preflight(transcript, capabilities, model=model, provider=provider, stream=stream)
        return Fitted(transcript, Report(), list(range(len(transcript.items))))
    caps = capabilities
    allowed: set[str] = set(caps.input_modalities) if isinstance(caps.input_modalities, list) else {"text"}
    report = Report()
    classes = set(map(type, transcript.items))
    if not _item_pass_needed(transcript.items, caps, allowed, classes):
        # the table says no item needs a repair: the items are kept as they are
        return _fit_rest(transcript, caps, provider, stream, name, report, list(range(len(transcript.items))), classes)
    items: list[Any] = []
    origin: list[int] = []
    changed = False
    for i, item in enumerate(transcript.items):
        if isinstance(item, (ToolResultItem, HandoffResultItem)):
            content: list[Any] = []
            for j, part in enumerate(item.content):
                content.extend(_fit_part(part, allowed, policy, report, i, f" inside {_type_of(item)} content[{j}]", repr(name)))
            if len(content) != len(item.content) or any(a is not b for a, b in zip(content, item.content, strict=False)):
                item = msgspec.structs.replace(item, content=content)
                changed = True
            fitted = [item]
        else:
            fitted = _fit_part(item, allowed, policy, report, i, "", repr(name))
            changed = changed or len(fitted) != 1 or fitted[0] is not item
        items.extend(fitted)
        origin.extend([i] * len(fitted))
    out = msgspec.structs.replace(transcript, items=items) if changed else transcript
    return _fit_rest(out, caps, provider, stream, name, report, origin, None if changed else classes)


def _has_tool_items(items: Sequence[Any], classes: set[type]) -> bool:
    """Whether ``items`` (of the classes ``classes``) hold a tool or handoff call or result."""
    if classes <= _ITEM_CLASSES:
        return bool(classes & _TOOL_CLASSES)
    return any(isinstance(it, _TOOL_ITEMS) for it in items)


def _fit_rest(out: Transcript, caps: ModelCapabilities, provider: str, stream: bool, name: str, report: Report, origin: list[int], classes: set[type] | None) -> Fitted:
    """The settings and tool-definition repairs of :func:`fit_capabilities` on the item-fitted
    ``out`` (its item classes ``classes`` when known), then the check of what is left."""
    items = out.items
    if classes is None:
        classes = set(map(type, items))
    out = _fit_settings(out, caps, report)
    tools = out.tools if isinstance(out.tools, list) else []
    if caps.tools and caps.requires_tool_definitions and not tools and _has_tool_items(items, classes):
        synthesized = synthesized_tools(items)  # the rule mappers apply too (mapping/tool_definitions.py)
        if synthesized:
            out = msgspec.structs.replace(out, tools=synthesized)
            note_synthesized(synthesized, provider, report)
    left = _check(out, caps, provider, stream, classes)
    if left:
        raise CapabilityError(name, [replace(v, index=origin[v.index]) if v.index is not None else v for v in left])
    return Fitted(out, report, origin)
