"""One-call conversion between wire formats: the path ``interlingua convert`` and the Python API share.

:func:`convert_request` takes a provider request body (or a canonical transcript) and returns the
body for another format, after every check a request needs::

    import interlingua as il

    out = il.convert_request(body, source="anthropic", target="openai-chat", model="gpt-4.1", policy="drop")
    out.value            # the OpenAI Chat request body (a dict, ready to send)
    for entry in out.report:
        print(entry)     # every loss or change, decode and encode alike

The steps, in order:

1. **Format check.** When the ``source`` mapper's ``kind_of`` rejects the body and another
   registered mapper's accepts it, :class:`~interlingua.errors.FormatMismatchError` names that
   format (``force=True`` decodes it as ``source`` anyway).
2. **Decode** to a canonical :class:`~interlingua.items.Transcript` (the ``source`` mapper, or the
   codec for ``canonical``). What a mapper made is held to the canonical limits
   (:func:`check_limits`: ``max_item_bytes``, nesting, inline base64), as the codec holds a file.
3. **Model.** The ``model`` argument; else the model the request was made with (``settings.model``)
   when it is ``target``'s: ``source`` and ``target`` are the same provider, or a canonical
   transcript's items were all made by ``target`` (``origin.provider``) or the model table lists
   that model for ``target``; or the same vendor's model as ``target`` names it (the mappers'
   ``vendor_models`` declarations, :mod:`interlingua.mapping.vendor_models`: OpenAI Chat <-> Responses,
   Anthropic <-> Bedrock Claude ids; a renamed id is reported); else none, and the report says the
   body has no model (pass ``model=``).
4. **Preflight with the policy** (:func:`interlingua.capabilities.fit`) against the capabilities
   resolved for that model (``resolver``, installed resolvers, the model table, the mapper's
   defaults). Under ``error`` every violation refuses; under ``drop``/``degrade`` media the model
   cannot take is left out or replaced by a short text marker, and a tool history without
   definitions (which e.g. Anthropic refuses) gets definitions synthesized from its calls, each
   reported; what no policy can fix (tool calls for a model without tools, parallel calls for a
   model that makes one per turn, ...) raises :class:`~interlingua.errors.CapabilityError`
   listing every violation.
5. **Encode** for ``target`` with the policy.

:func:`convert_response` and :func:`convert_stream` do the same for a response body and for a
recorded stream (no preflight or model rules: nothing is sent). ``canonical`` as ``target``
gives the transcript document as a JSON-ready dict (what :func:`~interlingua.codec.encode_transcript`
writes).

Every refusal is an :class:`~interlingua.errors.InterlinguaError`; the input is never mutated.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import msgspec

from ._gc import with_gc_paused
from .capabilities import Resolver, deprecation_warning, fit, lookup, resolve, unknown_model_warning
from .codec import DEFAULT_LIMITS, UnknownItem, check_item_limits, check_json_safe, decode_transcript, encode_transcript
from ._item_limits import check_limits
from .errors import ConversionError, DocumentError, FormatMismatchError, InterlinguaError, MappingError, Problem, StreamFailedError, UnknownFormatError
from .items import Origin, Settings, TextItem, Transcript
from .mapping.company import keep_company, keep_company_items
from .mapping.protocol import Conversion, Mapper, ModelResponse
from .mapping.registry import BUILTIN, available, get_mapper, is_known
from .mapping.report import POLICIES, Policy, Report
from .mapping.settings import note_model
from .mapping.spelling import spelling_unused
from .mapping.vendor_models import carried_model
from .mapping.wire import a_json_type

__all__ = [
    "CANONICAL",
    "Kind",
    "convert_request",
    "convert_response",
    "check_limits",
    "convert_stream",
    "detect_kind",
]

CANONICAL = "canonical"
"""The format name of interlingua's own transcript document (beside the mapper names)."""

Kind: TypeAlias = Literal["request", "response"]

Input: TypeAlias = Mapping[str, Any] | Transcript | bytes | str
"""A provider body (parsed, or its JSON text), or for ``canonical`` a transcript, its document dict or JSON."""

_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, msgspec.ValidationError)


# --------------------------------------------------------------------------- formats and kinds


def _mapper(name: str) -> Mapper | None:
    """``None`` for canonical, else the registered mapper.

    Raises:
        UnknownFormatError: no such format (the message lists the known ones, canonical included).
    """
    if name == CANONICAL:
        return None
    known = ", ".join([CANONICAL, *available()])
    if not is_known(name):
        raise UnknownFormatError(f"unknown format {name!r}; known: {known}")
    try:
        return get_mapper(name)
    except UnknownFormatError as exc:
        raise UnknownFormatError(f"{exc}; known: {known}") from exc


def _article(name: str) -> str:
    return "an" if name[:1] in "aeiou" else "a"


def _claimants(body: Mapping[str, Any], exclude: str) -> list[tuple[str, Kind]]:
    """Registered formats (other than ``exclude``) whose ``kind_of`` accepts ``body`` and whose decoder
    reads it, with the kind.

    A plugin that fails to load is skipped: this only feeds a hint.
    """
    found: list[tuple[str, Kind]] = []
    for name in available():
        if name == exclude:
            continue
        try:
            other = get_mapper(name)
            kind = other.kind_of(body)
            # a shape is not enough: the other format must also read it (``"messages": "hi"`` has the
            # keys of an Ollama request and is no more one than it is a Chat request)
            if kind == "request":
                other.decode_request(body)
            elif kind == "response":
                other.decode_response(body)
        except Exception:  # noqa: BLE001 - a broken plugin, or a format that does not read the body either, gives no hint
            continue
        if kind in ("request", "response"):
            found.append((name, kind))
    return found


def _best(body: Mapping[str, Any], candidates: list[tuple[str, Kind]]) -> tuple[str, Kind]:
    """The candidate the shape detector names, else the first (registry names are sorted)."""
    from .compat import detect_format

    try:
        guess = detect_format(body)
    except InterlinguaError:
        guess = None
    for name, kind in candidates:
        if name == guess:
            return name, kind
    return candidates[0]


def _mismatch(mapper: Mapper, body: Mapping[str, Any], kind: Kind | None) -> FormatMismatchError | None:
    """The error to raise when ``body`` plainly belongs to another format than ``mapper``'s."""
    candidates = [(n, k) for n, k in _claimants(body, mapper.name) if kind is None or k == kind]
    if not candidates:
        return None
    likely, found = _best(body, candidates)
    return FormatMismatchError(mapper.name, likely, found, sorted(body)[:8])


def detect_kind(body: Mapping[str, Any], *, source: str, force: bool = False) -> Kind:
    """Whether ``body`` is a ``source`` request or response body.

    Args:
        body: A parsed provider body.
        source: Registered mapper name.
        force: When ``source``'s ``kind_of`` rejects the body but another format's accepts it,
            take the kind that format found instead of raising.

    Returns:
        ``"request"`` or ``"response"``.

    Raises:
        FormatMismatchError: ``source``'s ``kind_of`` rejects ``body`` and another registered
            format's accepts it (without ``force``).
        MappingError: no registered format takes ``body`` for a request or a response (the
            message lists its top-level keys).
        UnknownFormatError: ``source`` is not a registered mapper.
    """
    mapper = _mapper(source)
    if mapper is None:
        raise MappingError("detect_kind needs a provider format; a canonical document is a request or a response as you use it")
    found = mapper.kind_of(body)
    if found in ("request", "response"):
        return found
    mismatch = _mismatch(mapper, body, None)
    if mismatch is not None:
        if force:
            return mismatch.kind  # type: ignore[return-value]
        raise mismatch
    keys = ", ".join(sorted(body)[:8])
    raise MappingError(f"not {_article(mapper.name)} {mapper.name} request or response body (top-level keys: {keys})")


def _check_format(mapper: Mapper, body: Mapping[str, Any], kind: Kind, force: bool) -> None:
    """Refuse a body that plainly is another format's, or this format's other kind."""
    found = mapper.kind_of(body)
    if found == kind or force:
        return
    mismatch = _mismatch(mapper, body, kind)
    if mismatch is not None:
        raise mismatch
    if found is not None:
        raise MappingError(f"this is {_article(mapper.name)} {mapper.name} {found} body, not a {kind} (convert it as a {found}: `--kind {found}` on the command line, `convert_{found}()` in Python)")
    # Nobody claims it: decode as asked; the decoder says what is malformed.


# --------------------------------------------------------------------------- decoding


def _parse(data: bytes | str, what: str) -> Any:
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DocumentError(Problem("", f"{what} is not JSON: {exc}")) from exc
    except RecursionError as exc:
        raise DocumentError(Problem("", f"{what}: nesting too deep")) from exc


_READ_SIZE: contextvars.ContextVar[int | None] = contextvars.ContextVar("interlingua_read_size", default=None)
"""The size of the bytes a body given as a dict was read from, set by a reader that read them
(``interlingua convert``); ``None`` when unknown."""


@contextlib.contextmanager
def read_size(nbytes: int) -> Iterator[None]:
    """Tell the conversions in the block that the body they get was read from ``nbytes`` bytes
    (so the limits check knows whether any string in it can be over ``max_item_bytes``)."""
    token = _READ_SIZE.set(nbytes)
    try:
        yield
    finally:
        _READ_SIZE.reset(token)


def _measure_strings(value: Input) -> bool:
    """Whether a string of ``value`` can be over ``max_item_bytes``: no string is longer than the
    bytes it was read from (JSON escapes only lengthen the text). A dict read elsewhere: no
    (an over-limit item then costs one transient encoded copy before it is refused)."""
    size = len(value) if isinstance(value, (bytes, bytearray, memoryview, str)) else _READ_SIZE.get()
    return size is not None and size > DEFAULT_LIMITS.max_item_bytes


def _body(value: Input, mapper: Mapper, kind: Kind) -> Mapping[str, Any]:
    if isinstance(value, Transcript):
        raise MappingError(f"a Transcript is canonical input: pass source={CANONICAL!r}, not {mapper.name!r}")
    body = _parse(value, f"the {mapper.name} {kind} body") if isinstance(value, (bytes, bytearray, memoryview, str)) else value
    if not isinstance(body, Mapping):
        raise MappingError(f"malformed {mapper.name} {kind} body: expected a JSON object, got {a_json_type(body)}")
    return body


def _canonical(value: Input, *, repairable: bool = False) -> Transcript:
    """A transcript from canonical input, validated like a file: the schema and the semantic checks
    of ``interlingua validate`` (JSON pointers on every problem). ``repairable``: a request for a
    provider, where results without an earlier call and reused call ids are left to the integrity
    rules, which refuse (``error``) or repair and report them (:func:`interlingua.capabilities.fit`)."""
    if isinstance(value, Transcript):
        transcript = value
    elif isinstance(value, (bytes, bytearray, memoryview, str)):
        transcript = decode_transcript(bytes(value) if not isinstance(value, str) else value)
    elif isinstance(value, Mapping):
        try:
            data = msgspec.json.encode(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise DocumentError(Problem("", f"the transcript document is not JSON-safe: {exc}")) from exc
        transcript = decode_transcript(data)
    else:
        raise DocumentError(Problem("", f"expected a transcript document, got {a_json_type(value)}"))
    from .validation import check_transcript

    problems = check_transcript(transcript)
    if repairable:
        problems = [p for p in problems if not _integrity_problem(transcript, p)]
    if problems:
        raise DocumentError(problems)
    return transcript


def _decode(mapper: Mapper, body: Mapping[str, Any], kind: Kind, report: Report, measure_strings: bool) -> Any:
    try:
        conv = mapper.decode_request(body) if kind == "request" else mapper.decode_response(body)
    except InterlinguaError:
        raise
    except RecursionError as exc:
        raise MappingError(f"malformed {mapper.name} {kind} body: nesting too deep") from exc
    except _MALFORMED as exc:
        raise MappingError(f"malformed {mapper.name} {kind} body: {type(exc).__name__}: {exc}") from exc
    report.extend(conv.report)
    value = _company(conv.value, report)
    items = value.items if isinstance(value, (Transcript, ModelResponse)) else None
    if items is not None:
        check_limits(items, what=f"the {mapper.name} {kind}", measure_strings=measure_strings)
    return value


if TYPE_CHECKING:
    from .history._integrity import Rule

_REUSED_IDS: tuple[Rule, ...] = ("duplicate_call_id",)
"""The reader rule a decoded request history goes through here (orphan results: the company rule)."""


def _company(value: Any, report: Report) -> Any:
    """A call that could not be decoded keeps its results company (:mod:`interlingua.mapping.company`).

    A request's history first goes through the readers' rule for reused call ids
    (:func:`~interlingua.history._integrity.read_history`): two calls given one id, each answered in
    its own turn, keep both calls and results under unique ids (the company rule alone would drop the
    later call and leave its result a second result of the earlier one)."""
    if isinstance(value, Transcript):
        from .history._integrity import read_history, reuses_call_ids

        if reuses_call_ids(value.items):
            value = read_history(value, report, rules=_REUSED_IDS)
        return keep_company(value, report)
    if isinstance(value, ModelResponse):
        kept = keep_company_items(value.items, report)
        if kept is not None:
            return dataclasses.replace(value, items=kept)
    return value


def _hint(mapper: Mapper, body: Mapping[str, Any], report: Report) -> None:
    """When decoding lost something and the shape says another built-in format, say so (a warning)."""
    if not report or mapper.name not in BUILTIN:
        return
    from .compat import detect_format

    try:
        guess = detect_format(body)
    except InterlinguaError:
        return
    if guess != mapper.name and guess in BUILTIN and get_mapper(guess).kind_of(body) is not None:
        report.add("changed", f"the input looks like {_article(guess)} {guess} request, decoded as {mapper.name} as asked; check the source format")


def _check_policy(policy: str) -> Policy:
    if policy not in POLICIES:
        raise MappingError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    return policy


def _document(transcript: Transcript, report: Report | None = None) -> dict[str, Any]:
    """The transcript document, after the limits every reader applies (what is written must read back).

    With ``report`` (a provider's body read to canonical), every item is held to the canonical schema
    as ``validate`` reads it: ids out of its limits renamed and reported, anything else refused
    (one rule with the stored-format readers, :mod:`interlingua.compat._conform`).

    Raises:
        DocumentError: an item the canonical schema refuses (pointer ``/items/<i>/...``).
    """
    if report is None:
        for i, item in enumerate(transcript.items):
            check_item_limits(item, _item_json.encode(item), pointer=f"/items/{i}")
    else:
        from .compat._conform import conform_items

        fixed = conform_items(list(transcript.items), report, what="the reader")
        if fixed is not None:
            transcript = msgspec.structs.replace(transcript, items=fixed)
            from .validation._semantic import check_items

            problems = check_items(fixed)
            if problems:
                raise DocumentError(problems)
    for name in ("tools", "metadata", "tool_choice", "settings", "response"):
        part = getattr(transcript, name)
        if part is not msgspec.UNSET:
            check_json_safe(part, f"/{name}")  # the readers' depth limit, as for a session header
    value: dict[str, Any] = msgspec.json.decode(encode_transcript(transcript))
    return value


_item_json = msgspec.json.Encoder(enc_hook=lambda obj: msgspec.Raw(obj.raw) if isinstance(obj, UnknownItem) else obj)


# --------------------------------------------------------------------------- the calls


def _integrity_problem(transcript: Transcript, problem: Problem) -> bool:
    """Whether a semantic problem is one the integrity rules repair: a result whose call is not
    earlier, or a tool/handoff call reusing an id."""
    parts = problem.pointer.split("/")
    if len(parts) != 4 or parts[1] != "items" or not parts[2].isdigit():
        return False
    item = transcript.items[int(parts[2])]
    tag = getattr(getattr(item, "__struct_config__", None), "tag", None)
    return (parts[3] == "call_id" and tag in ("tool_result", "handoff_result")) or (parts[3] == "id" and tag in ("tool_call", "handoff_call"))


def _read_request(request: Input, source: str, force: bool, report: Report, *, repairable: bool = False) -> Transcript:
    mapper = _mapper(source)
    if mapper is None:
        return _canonical(request, repairable=repairable)
    body = _body(request, mapper, "request")
    _check_format(mapper, body, "request", force)
    transcript: Transcript = _decode(mapper, body, "request", report, _measure_strings(request))
    _hint(mapper, body, report)
    return transcript


@with_gc_paused
def convert_request(
    request: Input,
    *,
    source: str,
    target: str,
    model: str | None = None,
    policy: Policy = "error",
    resolver: Resolver | None = None,
    force: bool = False,
    report: Report | None = None,
) -> Conversion[dict[str, Any]]:
    """Convert a request (a conversation and its settings) from ``source`` to ``target``, ready to send.

    Args:
        request: A ``source`` request body (a dict, or its JSON text), or for ``source="canonical"``
            a :class:`~interlingua.items.Transcript`, its document dict or JSON.
        source: ``"canonical"`` or a registered mapper name (``anthropic``, ``openai-chat``, ...).
        target: ``"canonical"`` or a registered mapper name.
        model: Target model: written into the body and used to resolve capabilities. Without it,
            a same-provider conversion keeps the source's model (``settings.model``), and so does one
            between two APIs of one vendor (renamed where the ids differ, reported); across vendors
            the body has no model and the report says so.
        policy: Content the target (wire format or model) cannot carry: ``error`` refuses,
            ``drop`` leaves it out, ``degrade`` puts a short text marker in its place; each reported.
        resolver: Capability lookup asked first, ``(provider, model) -> ModelCapabilities | None``
            (see :func:`interlingua.capabilities.resolve`).
        force: Decode as ``source`` even when the body plainly belongs to another format.
        report: A report to append to as the steps go (so what was reported before a refusal is
            kept, e.g. for printing); a new one when ``None``. It is the returned ``report``.

    Returns:
        A :class:`~interlingua.mapping.Conversion`: ``value`` is the ``target`` request body (for
        ``canonical``, the transcript document as a dict); ``report`` holds the decode entries,
        then the preflight repairs, then the encode entries (item indices of the decoded transcript).

    Raises:
        UnknownFormatError: ``source`` or ``target`` is not a known format.
        FormatMismatchError: the body plainly belongs to another format (without ``force``).
        DocumentError: invalid canonical input (with JSON pointers), or JSON text that does not parse.
        MappingError: a malformed provider body (the message names the exception), or a response body.
        CapabilityError: the target model cannot take the conversation, listing every violation
            (under ``drop``/``degrade`` only those no policy can fix).
        ConversionError: under ``error``, content the target wire format cannot carry; under any
            policy, a request with no conversation item left to send (``nothing to send``).
    """
    policy = _check_policy(policy)
    dst = _mapper(target)
    report = Report() if report is None else report
    # a request to a provider goes through the integrity rules (fit), which repair or refuse what a
    # canonical document would be refused for here; to canonical nothing is repaired, so it is refused
    # the source's spelling is kept only for its own mapper (mapping/spelling.py): for another target
    # recording it would cost an encode and a walk of the body for entries that target ignores
    with contextlib.nullcontext() if dst is None or dst.name == source else spelling_unused():
        transcript = _read_request(request, source, force, report, repairable=dst is not None)
    if dst is None:
        return Conversion(_document(transcript, report), report)
    settings = transcript.settings if isinstance(transcript.settings, Settings) else Settings()
    chosen = model if model is not None else _recorded_model(transcript, settings, source, target, report)
    resolution = resolve(target, chosen, mapper=dst, resolver=resolver)
    unknown = unknown_model_warning(resolution, transcript, provider=target, model=chosen)
    if unknown is not None:
        report.add("changed", unknown)
    elif (past := deprecation_warning(target, chosen)) is not None:
        report.add("changed", past, pointer="/model")
    fitted = fit(transcript, resolution.capabilities, model=chosen, provider=target, policy=policy)
    report.extend(fitted.report)
    conv = dst.encode_request(fitted.transcript, model=chosen, policy=policy)
    encoded = fitted.translate(conv.report)
    report.extend(encoded)
    if (not fitted.transcript.items or any(e.action == "dropped" for e in conv.report)) and _sends_nothing(dst, conv.value):
        given = len(transcript.items)
        raise ConversionError(
            f"nothing to send: no conversation item is left in the {target} request "
            + (f"(the {given} item(s) read were all dropped)" if given else "(the request holds no messages)")
            + "; a model call needs at least one message"
        )
    if chosen is None and not any(e.pointer == "/model" for e in encoded):
        note_model(report, None, settings, target, in_body=getattr(dst, "model_in_body", True) is not False)
    return Conversion(conv.value, report)


def _sends_nothing(dst: Any, body: dict[str, Any]) -> bool:
    """Whether the encoded request ``body`` holds no conversation item: it is read back by its own
    mapper (any wire format, no field names of one provider here) and has no item."""
    try:
        with spelling_unused():
            return not dst.decode_request(body).value.items
    except Exception:  # noqa: BLE001 - a body its mapper cannot read back is judged by the provider, not here
        return False


def _recorded_model(transcript: Transcript, settings: Settings, source: str, target: str, report: Report) -> str | None:
    """The model the transcript was made with (``settings.model``) when it is ``target``'s own: the
    source is ``target`` itself, or a canonical transcript whose items were all made by ``target``
    (their ``origin.provider``) or whose model the model table lists for ``target``; or the same
    vendor's model as ``target`` names it (the mappers' ``vendor_models`` declarations: OpenAI Chat and
    Responses, Anthropic and Bedrock's Claude ids; a renamed id is reported). ``None`` otherwise: a
    model name is never carried to another vendor."""
    origins = (getattr(it, "origin", None) for it in transcript.items) if source == "canonical" else ()
    return _recorded_model_of({o.provider for o in origins if isinstance(o, Origin)}, settings, source, target, report)


def _recorded_model_of(made_by: set[str], settings: Settings, source: str, target: str, report: Report) -> str | None:
    """:func:`_recorded_model` given the providers of a canonical transcript's items' origins
    (``made_by``, ignored for another source): the whole conversion and the windowed one
    (:mod:`interlingua._windowed`, which collects them in its first pass) both call it."""
    recorded = settings.model
    if not isinstance(recorded, str) or not recorded:
        return None
    if source == target:
        return recorded
    if source != "canonical":
        made_by = {source}
    else:
        if made_by == {target} or lookup(target, recorded) is not None:
            return recorded
    if len(made_by) != 1 or not is_known(next(iter(made_by))):
        return None
    carried = carried_model(get_mapper(next(iter(made_by))), get_mapper(target), recorded)
    if carried is not None and carried != recorded:
        report.add("changed", f"model {recorded!r} written as {carried!r}: the same model as {target} names it", item_type="settings", pointer="/model")
    return carried


def _read_response(response: Input, source: str, force: bool, report: Report) -> ModelResponse:
    mapper = _mapper(source)
    if mapper is None:
        # items, usage, stop reason and the response metadata (ADR 0009) the document holds
        return ModelResponse.from_transcript(_canonical(response))
    body = _body(response, mapper, "response")
    _check_format(mapper, body, "response", force)
    value: ModelResponse = _decode(mapper, body, "response", report, _measure_strings(response))
    return value


def without_empty_texts(value: ModelResponse, report: Report) -> ModelResponse:
    """``value`` without its top-level text items holding no visible text (empty or whitespace only),
    each reported as dropped; ``value`` itself when it has none (it is never changed).

    A provider may open a text block and close it empty (Anthropic's refusal stream: an empty text block,
    then ``stop_reason: refusal``); a transcript holding it would fail ``validate --strict``
    (``empty_text``), so what is written as a canonical document leaves it out."""
    keep: list[Any] = []
    for i, item in enumerate(value.items):
        if isinstance(item, TextItem) and not item.text.strip():
            report.add("dropped", "an empty text block of the response (no visible text) is left out: a transcript holds no empty text", index=i, item_type="text")
        else:
            keep.append(item)
    return value if len(keep) == len(value.items) else dataclasses.replace(value, items=keep)


def _encode_response(value: ModelResponse, source: str, target: str, model: str | None, policy: Policy, report: Report) -> Conversion[dict[str, Any]]:
    dst = _mapper(target)
    if dst is None:
        return Conversion(_document(without_empty_texts(value, report).to_transcript(), report), report)
    chosen = model if model is not None else (value.model if source == target else None)
    conv = dst.encode_response(value, model=chosen, policy=policy)
    report.extend(conv.report)
    return Conversion(conv.value, report)


@with_gc_paused
def convert_response(
    response: Input,
    *,
    source: str,
    target: str,
    model: str | None = None,
    policy: Policy = "error",
    force: bool = False,
    report: Report | None = None,
) -> Conversion[dict[str, Any]]:
    """Convert a response body from ``source`` to ``target`` (for mock servers and round-trip tests).

    ``canonical`` input is a transcript (or its document) holding the output items, ``usage`` and
    ``stop_reason``; ``canonical`` to ``canonical`` returns the whole document unchanged.

    Args:
        response: A ``source`` response body (dict or JSON text), or canonical input as for
            :func:`convert_request`.
        source: ``"canonical"`` or a registered mapper name.
        target: ``"canonical"`` or a registered mapper name.
        model: Model written into the body; without it a same-provider conversion keeps the
            response's model.
        policy: As for :func:`convert_request`.
        force: Decode as ``source`` even when the body plainly belongs to another format.
        report: As for :func:`convert_request`.

    Returns:
        The ``target`` response body (for ``canonical``, the transcript document) and the report.

    Raises:
        UnknownFormatError, FormatMismatchError, DocumentError, MappingError, ConversionError:
            as for :func:`convert_request` (a request body given here is a MappingError).
    """
    policy = _check_policy(policy)
    report = Report() if report is None else report
    if source == CANONICAL and target == CANONICAL:
        return Conversion(_document(_canonical(response)), report)
    dst = _mapper(target)
    # the source's spelling is kept only for its own mapper (as in convert_request)
    with contextlib.nullcontext() if dst is None or dst.name == source else spelling_unused():
        value = _read_response(response, source, force, report)
    return _encode_response(value, source, target, model, policy, report)


def convert_stream(
    stream: bytes | Iterable[bytes],
    *,
    source: str,
    target: str,
    model: str | None = None,
    policy: Policy = "error",
    report: Report | None = None,
) -> Conversion[dict[str, Any]]:
    """Replay a recorded ``source`` stream and convert its final response to ``target``.

    Args:
        stream: The recorded bytes (SSE or NDJSON, as ``source`` frames it), or an iterable of chunks.
        source: A registered mapper name (a canonical document is not a stream).
        target: ``"canonical"`` (the final transcript document) or a registered mapper name (a
            response body).
        model: As for :func:`convert_response`.
        policy: As for :func:`convert_response`.
        report: As for :func:`convert_response`.

    Returns:
        The converted final response and the report (stream entries first).

    Raises:
        StreamFailedError: the stream ended in an error event; a stream cut before its end marker
            is ``truncated``.
        UnknownFormatError, MappingError, ConversionError: as for :func:`convert_response`.
    """
    from .streaming import RawEvent, StreamDone, StreamError, UsageUpdate, iter_stream

    policy = _check_policy(policy)
    mapper = _mapper(source)
    _mapper(target)
    if mapper is None:
        raise MappingError(f"a {CANONICAL} transcript is not a stream: name the provider whose stream it is")
    report = Report() if report is None else report
    last = None
    count = 0  # content events (text, reasoning, a tool call, ...): the stream was read as this format
    for last in iter_stream(mapper, stream):
        if not isinstance(last, (UsageUpdate, RawEvent, StreamDone, StreamError)):
            count += 1
    before = count
    if isinstance(last, StreamError):
        pointer = getattr(last, "pointer", None)  # set on a malformed event by stream decoders that locate it
        raise StreamFailedError(mapper.name, str(last.error.code), last.error.message, pointer=pointer if isinstance(pointer, str) else None, events=before)
    if not isinstance(last, StreamDone) or not isinstance(last.response, ModelResponse):
        raise StreamFailedError(mapper.name, "truncated", "the stream ended without a result", events=before)
    report.extend(last.report)
    response = _company(last.response, report)
    check_limits(response.items, what=f"the {mapper.name} stream")
    return _encode_response(response, source, target, model, policy, report)
