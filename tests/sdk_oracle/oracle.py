"""The providers' own SDK types as strict test oracles for the bodies the mappers write.

``check_request(target, body)`` / ``check_response(target, body)`` return a list of problems
(empty: the body is accepted), each ``"<json path>: <pydantic error type>: <message>"``.

Strict means three things, whatever the SDK's own leniency:

- **Unknown keys are refused.** Request TypedDicts (openai, anthropic) are rebuilt as copies whose
  every nested TypedDict carries ``extra='forbid'``; response models (pydantic ``BaseModel``, most
  with ``extra='allow'`` or ``'ignore'``) are validated, then walked: every key of the body must be a
  field of the model the SDK chose for it.
- **``Required`` keys are required.** The SDK modules use ``from __future__ import annotations``,
  so ``TypedDict.__required_keys__`` does not see ``Required[...]`` (it reports every key of
  ``CompletionCreateParamsNonStreaming`` optional). Required-ness is computed from the evaluated
  annotations (``typing.get_type_hints(..., include_extras=True)``); ``tests/sdk_oracle/test_oracle.py``
  checks it on known cases (``messages``/``model`` of Chat, ``FunctionToolParam.strict``).
- **Types are checked strictly and eagerly**: validation runs in pydantic strict JSON mode, and
  ``Iterable[...]``/``Sequence[...]`` fields (validated lazily by pydantic, i.e. not at all) are
  rebuilt as ``list[...]``. Response-model branches of request unions (anthropic lets Python callers
  pass a ``ToolUseBlock`` back; it has ``extra='allow'``) are left out: a JSON body is checked
  against the ``*Param`` TypedDicts.

Google: ``google.genai.types`` models accept both the REST camelCase aliases and the Python
snake_case names; a body must use the REST names (the alias), checked on every nested model. The
request envelope (``contents``, ``systemInstruction``, ``tools``, ``toolConfig``,
``safetySettings``, ``generationConfig``, ``cachedContent``) has no public SDK type; it is declared
here from the REST reference (``models.generateContent`` request body) over the SDK's part types.

Anthropic: a body the stable types refuse is accepted when the beta types
(``anthropic.types.beta``: ``MessageCreateParams*``, ``BetaMessage``) take it (beta blocks such as
``compaction`` round-trip from beta streams).

Cohere: the v2 chat request has no SDK model: its fields are the parameters of
``cohere.V2Client.chat`` (evaluated annotations), gathered into one model that forbids unknown keys
(plus ``stream``, which ``chat``/``chat_stream`` put in the body), with ``Sequence`` read as ``list``
and the open ``Union[Literal[...], Any]`` enums (``tool_choice``, ``safety_mode``) closed to their
literals. The SDK models allow extra keys; the walk refuses them as for the others.

Ollama: ``ollama._types.ChatRequest.messages`` is ``Sequence[Mapping[str, Any] | Message]`` and
``options`` is ``Mapping | Options``; both are checked against ``Message`` and ``Options`` (the
typed branches). ``images`` on the wire are base64 strings (the SDK's ``Image`` is its input
helper). A tool's ``parameters`` is a JSON Schema: the SDK models only a few keywords of it
(``Tool.Function.Parameters``), so keys inside it are not refused. ``Message.tool_call_id`` and
``ToolCall.id`` are accepted: they are in the server's own types (``api/types.go``), not yet in the
SDK's (see ``OLLAMA_SERVER_KEYS``). The error body ``{"error": "..."}`` is accepted as a response.
"""

from __future__ import annotations

import base64
import binascii
import collections.abc
import json
import types
import typing
from functools import cache
from collections.abc import Mapping
from typing import Any, Literal, Union

import pydantic
import typing_extensions
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

Target = Literal["openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "cohere"]
TARGETS: tuple[Target, ...] = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "cohere")

_FORBID = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)


# --- request TypedDicts: strict rebuilt copies -------------------------------------------------


def _unwrap_required(tp: Any) -> tuple[Any, bool | None]:
    """``Required[X]`` -> (X, True), ``NotRequired[X]`` -> (X, False), else (tp, None)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Required, typing_extensions.Required):
        return typing.get_args(tp)[0], True
    if origin in (typing.NotRequired, typing_extensions.NotRequired):
        return typing.get_args(tp)[0], False
    if origin is typing.Annotated:
        inner, req = _unwrap_required(typing.get_args(tp)[0])
        if req is not None:
            return typing.Annotated[(inner, *tp.__metadata__)], req
    return tp, None


def required_keys(td: type) -> frozenset[str]:
    """The keys of TypedDict ``td`` that are required, from its evaluated annotations.

    A key is required when its annotation is ``Required[...]``, optional when ``NotRequired[...]``,
    else by the totality of the class that declared it (which ``__required_keys__`` gets right for
    unmarked keys even under postponed annotations).
    """
    hints = typing.get_type_hints(td, include_extras=True)
    out = set()
    for key, tp in hints.items():
        _, req = _unwrap_required(tp)
        if req is True or (req is None and key in td.__required_keys__):  # type: ignore[attr-defined]
            out.add(key)
    return frozenset(out)


_SEQUENCE_ORIGINS = {
    list,
    collections.abc.Iterable,
    collections.abc.Sequence,
    collections.abc.Collection,
    collections.abc.MutableSequence,
}


def _is_models(tp: Any) -> bool:
    """Whether ``tp`` is a pydantic model class or an (annotated) union of them."""
    if isinstance(tp, type):
        return issubclass(tp, BaseModel)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _is_models(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return all(_is_models(a) for a in typing.get_args(tp))
    return False


class _Strict:
    """Rebuilds a type with every TypedDict strict (extra forbidden, required keys from annotations)."""

    def __init__(self) -> None:
        self.done: dict[type, Any] = {}
        self.busy: set[type] = set()

    def __call__(self, tp: Any) -> Any:
        if typing_extensions.is_typeddict(tp):
            return self.typeddict(tp)
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is None:
            return tp
        if origin is typing.Annotated:
            return typing.Annotated[(self(args[0]), *tp.__metadata__)]
        if origin in (typing.Union, types.UnionType):
            # Request unions also take the SDK's response models (pass a response block back from
            # Python, ``extra='allow'``); a JSON body is checked against the ``*Param`` TypedDicts.
            kept = [a for a in args if not _is_models(a)] or list(args)
            return Union[tuple(self(a) for a in kept)]  # noqa: UP007
        if origin is Literal:
            return tp
        if origin in _SEQUENCE_ORIGINS or getattr(origin, "__name__", "") == "SequenceNotStr":
            return list[self(args[0])] if args else list  # type: ignore[misc]
        if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
            return dict[self(args[0]), self(args[1])] if args else dict  # type: ignore[misc]
        if origin in (typing.Required, typing.NotRequired):
            return self(args[0])
        if args:
            try:
                return origin[tuple(self(a) for a in args)]
            except TypeError:
                return tp
        return tp

    def typeddict(self, td: type) -> Any:
        if td in self.done:
            return self.done[td]
        if td in self.busy:
            raise RuntimeError(f"recursive TypedDict {td.__qualname__} is not supported by the oracle")
        self.busy.add(td)
        req = required_keys(td)
        fields: dict[str, Any] = {}
        for key, tp in typing.get_type_hints(td, include_extras=True).items():
            inner, _ = _unwrap_required(tp)
            new = self(inner)
            fields[key] = typing_extensions.Required[new] if key in req else typing_extensions.NotRequired[new]
        strict = typing_extensions.TypedDict(f"Strict{td.__name__}", fields, total=False)  # type: ignore[operator]
        strict.__pydantic_config__ = _FORBID  # type: ignore[attr-defined]
        self.busy.discard(td)
        self.done[td] = strict
        return strict


@cache
def strict_adapter(tp: Any) -> TypeAdapter[Any]:
    """A pydantic ``TypeAdapter`` over the strict copy of ``tp`` (a TypedDict or a union of them)."""
    return TypeAdapter(_Strict()(tp))


_SCALAR_TAGS = {"str", "int", "float", "bool", "none", "bytes", "any"}


def _is_tag(part: object) -> bool:
    """Whether a pydantic error ``loc`` element names a union branch (not a key or an index)."""
    return isinstance(part, str) and bool(part) and (part[0].isupper() or "[" in part or part in _SCALAR_TAGS)


def _prune(errors: list[dict[str, Any]], depth: int = 0) -> list[dict[str, Any]]:
    """Keep, for every union in ``errors``, only the branch the body meant.

    A union failure lists every branch's errors. The branch meant is one of the right kind (an
    object for an object, a list for a list) whose discriminator (``type`` or ``role`` right inside
    it) matched; among those, the one with the fewest errors.
    """
    groups: dict[tuple[Any, ...], dict[str, list[dict[str, Any]]]] = {}
    plain: list[dict[str, Any]] = []
    for e in errors:
        loc = e["loc"]
        at = next((i for i in range(depth, len(loc)) if _is_tag(loc[i])), None)
        if at is None:
            plain.append(e)
            continue
        groups.setdefault(tuple(loc[:at]), {}).setdefault(str(loc[at]), []).append(e)
    out = list(plain)
    for prefix, branches in groups.items():
        n = len(prefix)

        def mismatched(errs: list[dict[str, Any]], n: int = n) -> bool:
            for x in errs:
                if len(x["loc"]) == n + 1 and (x["type"].endswith("_type") or x["type"] in ("literal_error", "is_instance_of")):
                    return True  # the value is not of this branch's kind at all
                if len(x["loc"]) == n + 2 and x["loc"][n + 1] in ("type", "role") and x["type"] == "literal_error":
                    return True
            return False

        candidates = {k: v for k, v in branches.items() if not mismatched(v)} or branches
        best = min(candidates.values(), key=len)
        out.extend(_prune(best, n + 1))
    return out


def _problems(err: ValidationError, prefix: str = "") -> list[str]:
    out = []
    for e in _prune(err.errors(include_url=False)):
        loc = "/".join(str(p) for p in e["loc"] if not _is_tag(p))
        out.append(f"{prefix}/{loc}: {e['type']}: {e['msg']}")
    return sorted(set(out))


def check_typeddict(tp: Any, body: Any) -> list[str]:
    """Problems validating ``body`` against the strict copy of TypedDict ``tp``."""
    try:
        strict_adapter(tp).validate_json(json.dumps(body), strict=True)
    except ValidationError as err:
        return _problems(err)
    return []


# --- response models: validate, then refuse every key the chosen model does not declare ---------


def _field_for(model: type[BaseModel], key: str, *, aliases_only: bool) -> tuple[str | None, str | None]:
    """(field name, problem) for body key ``key`` of ``model``."""
    for name, info in model.model_fields.items():
        alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
        if key == alias:
            return name, None
        if key == name:
            if aliases_only and alias and alias != name:
                return name, f"snake_case key {key!r}: the REST name is {alias!r}"
            return name, None
    return None, f"unknown key {key!r} for {model.__name__}"


def walk_model(
    data: Any, value: Any, path: str, *, aliases_only: bool, open_paths: tuple[str, ...] = (), extra_keys: Mapping[str, frozenset[str]] | None = None
) -> list[str]:
    """Every key of ``data`` that is no field of the model instance ``value`` chosen for it (recursively).

    ``open_paths``: subtrees whose keys are not checked. ``extra_keys``: model class name -> keys the
    wire format documents beyond the SDK's model (refused everywhere else).
    """
    if any(path.startswith(p) for p in open_paths):
        return []
    out: list[str] = []
    kw: dict[str, Any] = {"aliases_only": aliases_only, "open_paths": open_paths, "extra_keys": extra_keys}
    if isinstance(value, BaseModel) and isinstance(data, dict):
        allowed = (extra_keys or {}).get(type(value).__name__, frozenset())
        for key, sub in data.items():
            name, problem = _field_for(type(value), key, aliases_only=aliases_only)
            if problem and key not in allowed:
                out.append(f"{path}/{key}: extra_forbidden: {problem}")
            if name is not None:
                out.extend(walk_model(sub, getattr(value, name, None), f"{path}/{key}", **kw))
    elif isinstance(data, list) and isinstance(value, (list, tuple)):
        for i, (d, v) in enumerate(zip(data, value, strict=False)):
            out.extend(walk_model(d, v, f"{path}/{i}", **kw))
    elif isinstance(data, dict) and isinstance(value, dict):
        for key, sub in data.items():
            if key in value:
                out.extend(walk_model(sub, value[key], f"{path}/{key}", **kw))
    return out


@cache
def _adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def check_model(
    model: Any, body: Any, *, aliases_only: bool = False, open_paths: tuple[str, ...] = (), extra_keys: Mapping[str, frozenset[str]] | None = None
) -> list[str]:
    """Problems validating ``body`` against pydantic model (or type) ``model``, strictly."""
    adapter = _adapter(model)
    try:
        value = adapter.validate_json(json.dumps(body), strict=True)
    except ValidationError as err:
        return _problems(err)
    return walk_model(body, value, "", aliases_only=aliases_only, open_paths=open_paths, extra_keys=extra_keys)


# Keys of Ollama's own wire types (ollama/ollama ``api/types.go``: ``Message.ToolCallID``,
# ``ToolCall.ID``) that the Python SDK's models (``ollama._types.Message``/``Message.ToolCall``) lag behind.
OLLAMA_SERVER_KEYS: dict[str, frozenset[str]] = {"Message": frozenset({"tool_call_id"}), "ToolCall": frozenset({"id"})}


# --- per target ---------------------------------------------------------------------------------


@cache
def _gemini_request_model() -> type[BaseModel]:
    """The ``models.generateContent`` REST request body over ``google.genai.types`` part types."""
    from google.genai import _common, types as g

    class GenerateContentRequest(_common.BaseModel):
        contents: list[g.Content]
        system_instruction: g.Content | None = None
        tools: list[g.Tool] | None = None
        tool_config: g.ToolConfig | None = None
        safety_settings: list[g.SafetySetting] | None = None
        generation_config: g.GenerationConfig | None = None
        cached_content: str | None = None
        labels: dict[str, str] | None = None

    return GenerateContentRequest


def _ollama_request(body: Any) -> list[str]:
    import ollama._types

    if not isinstance(body, dict):
        return [f": not an object: {type(body).__name__}"]
    out = check_model(ollama._types.ChatRequest, {k: v for k, v in body.items() if k not in ("messages", "options")},
                      open_paths=tuple(f"/tools/{i}/function/parameters" for i in range(len(body.get("tools") or []))))
    messages = body.get("messages")
    if messages is not None:
        if not isinstance(messages, list):
            out.append("/messages: list_type: not a list")
        else:
            for i, m in enumerate(messages):
                out.extend(_ollama_message(m, f"/messages/{i}"))
    if "options" in body:
        out.extend(p if p.startswith("/options") else "/options" + p for p in check_model(ollama._types.Options, body["options"]))
    return out


def _ollama_message(m: Any, path: str) -> list[str]:
    import ollama._types

    if not isinstance(m, dict):
        return [f"{path}: model_type: not an object"]
    out = _images(m.get("images"), path)
    rest = {k: v for k, v in m.items() if k != "images"}
    out.extend(path + p for p in check_model(ollama._types.Message, rest, extra_keys=OLLAMA_SERVER_KEYS))
    return out


def _images(images: Any, path: str) -> list[str]:
    """Ollama ``images``: a list of base64 strings on the wire."""
    if images is None:
        return []
    if not isinstance(images, list):
        return [f"{path}/images: list_type: not a list"]
    out = []
    for j, img in enumerate(images):
        try:
            if not isinstance(img, str):
                raise TypeError
            base64.b64decode(img, validate=True)
        except (TypeError, binascii.Error):
            out.append(f"{path}/images/{j}: image: not a base64 string")
    return out


def _closed(tp: Any) -> Any:
    """``Sequence[X]`` -> ``list[X]``; ``Union[Literal[...], Any, None]`` -> ``Union[Literal[...], None]``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is collections.abc.Sequence:
        return list[_closed(args[0])]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        kept = tuple(_closed(a) for a in args if a is not Any)
        return Union[kept] if len(kept) > 1 else kept[0]  # type: ignore[return-value]
    return tp


@cache
def _cohere_request_model() -> type[BaseModel]:
    """The v2 chat request body: ``cohere.V2Client.chat``'s parameters as one closed model."""
    from cohere.v2.client import V2Client

    hints = typing.get_type_hints(V2Client.chat)
    fields: dict[str, Any] = {}
    for name, tp in hints.items():
        if name in ("return", "request_options"):
            continue
        fields[name] = (_closed(tp), ... if name in ("model", "messages") else None)
    fields["stream"] = (bool | None, None)
    return pydantic.create_model("V2ChatRequest", __config__=ConfigDict(extra="forbid"), **fields)  # type: ignore[call-overload, no-any-return]


def _request_type(target: Target, body: Any) -> Any:
    streaming = isinstance(body, dict) and body.get("stream") is True
    if target == "openai-chat":
        from openai.types.chat import completion_create_params as p

        return p.CompletionCreateParamsStreaming if streaming else p.CompletionCreateParamsNonStreaming
    if target == "openai-responses":
        from openai.types.responses import response_create_params as r

        return r.ResponseCreateParamsStreaming if streaming else r.ResponseCreateParamsNonStreaming
    if target == "anthropic":
        from anthropic.types import message_create_params as m

        return m.MessageCreateParamsStreaming if streaming else m.MessageCreateParamsNonStreaming
    raise ValueError(target)


def _anthropic_beta_request_type(body: Any) -> Any:
    from anthropic.types.beta import message_create_params as b

    return b.MessageCreateParamsStreaming if isinstance(body, dict) and body.get("stream") is True else b.MessageCreateParamsNonStreaming


def check_request(target: Target, body: Any) -> list[str]:
    """Problems with request ``body`` for ``target`` under its SDK's types (empty list: accepted).

    Types: openai ``CompletionCreateParams{Non,}Streaming``, ``ResponseCreateParams{Non,}Streaming``;
    anthropic ``MessageCreateParams{Non,}Streaming``; gemini ``Content``/``Tool``/``ToolConfig``/
    ``GenerationConfig`` in the REST envelope; ollama ``ChatRequest``/``Message``/``Options``.
    """
    if target in ("openai-chat", "openai-responses", "anthropic"):
        problems = check_typeddict(_request_type(target, body), body)
        if problems and target == "anthropic":
            beta = check_typeddict(_anthropic_beta_request_type(body), body)
            return min(problems, beta, key=len)  # beta blocks (e.g. compaction) the beta Messages API takes
        return problems
    if target == "gemini":
        return check_model(_gemini_request_model(), body, aliases_only=True)
    if target == "ollama":
        return _ollama_request(body)
    if target == "cohere":
        return check_model(_cohere_request_model(), body)
    raise ValueError(target)


def _gemini_error(body: dict[str, Any]) -> list[str]:
    """Problems with a Gemini error body ``{"error": {code, message, status, details?}}`` (``google.rpc.Status`` in
    JSON, AIP-193): the fields must have their types, and google-genai's ``errors.APIError`` (what the SDK raises on
    such an answer) must read the code, status and message from it."""
    from google.genai import errors

    err = body["error"]
    if not isinstance(err, dict):
        return ["/error: not an object"]
    types_ = {"code": int, "message": str, "status": str, "details": list}
    out = [f"/error/{k}: unknown key" for k in err if k not in types_]
    out += [f"/error/{k}: not a {t.__name__}" for k, t in types_.items() if k in err and not isinstance(err[k], t)]
    out += [f"/error/{k}: missing" for k in ("code", "message", "status") if k not in err]
    if not out:
        read = errors.APIError(0, body)
        if (read.code, read.status, read.message) != (err["code"], err["status"], err["message"]):
            out.append(f"/error: google-genai APIError reads {(read.code, read.status, read.message)!r}")
    return out


def check_response(target: Target, body: Any) -> list[str]:
    """Problems with response ``body`` for ``target`` under its SDK's response model (empty: accepted).

    Models: openai ``ChatCompletion``, ``responses.Response``; anthropic ``Message``; google-genai
    ``GenerateContentResponse`` (REST names only), or the API's error body (:func:`_gemini_error`); ollama
    ``ChatResponse``; cohere ``V2ChatResponse``.
    """
    if target == "openai-chat":
        from openai.types.chat import ChatCompletion

        return check_model(ChatCompletion, body)
    if target == "openai-responses":
        from openai.types.responses import Response

        return check_model(Response, body)
    if target == "anthropic":
        from anthropic.types import Message
        from anthropic.types.beta import BetaMessage

        problems = check_model(Message, body)
        return [] if problems and not check_model(BetaMessage, body) else problems
    if target == "gemini":
        from google.genai import types as g

        if isinstance(body, dict) and set(body) == {"error"}:
            return _gemini_error(body)
        return check_model(g.GenerateContentResponse, body, aliases_only=True)
    if target == "ollama":
        import ollama._types

        if not isinstance(body, dict):
            return [": not an object"]
        if set(body) == {"error"}:  # the error body (ollama/ollama docs/api/errors.mdx): {"error": "<message>"}
            return [] if isinstance(body["error"], str) else ["/error: string_type: not a string"]
        message = body.get("message")
        if not isinstance(message, dict) or "images" not in message:
            return check_model(ollama._types.ChatResponse, body, extra_keys=OLLAMA_SERVER_KEYS)
        out = check_model(ollama._types.ChatResponse, {**body, "message": {k: v for k, v in message.items() if k != "images"}}, extra_keys=OLLAMA_SERVER_KEYS)
        return out + _images(message.get("images"), "/message")
    if target == "cohere":
        from cohere import V2ChatResponse

        return check_model(V2ChatResponse, body)
    raise ValueError(target)


__all__ = ["TARGETS", "Target", "check_model", "check_request", "check_response", "check_typeddict", "required_keys", "walk_model"]
_ = pydantic
