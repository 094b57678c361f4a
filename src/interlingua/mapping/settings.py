"""Provider-neutral helpers every mapper uses for generation settings and provider data.

The rules (ADR 0007) are the same for every wire format, so they are written once here; what each
provider calls a setting stays in that provider's request module.

* ``provider_data`` is keyed by mapper name. A mapper reads back only its own key
  (:func:`own_provider_data`); every other key is reported as ``dropped``.
* A setting the target cannot take is reported (:func:`unsupported_setting`); under policy ``error``
  it is refused only when leaving it out changes what the output means (``meaning_changes=True``,
  e.g. a JSON Schema response format the target cannot enforce).
* An approximation is a ``changed`` entry naming both values (:func:`approximated_setting`).
* A body without a model gets one ``changed`` entry (:func:`note_model`).
* Decoding: :func:`valid_setting` says whether a wire value fits a canonical field (anything that
  does not stays in ``provider_data`` as given); :func:`build_settings` makes the value.
* Encoding: :func:`claim_provider_field` reads a "which field did the source use" hint kept in the
  own ``provider_data``; :func:`merge_provider_fields` writes the remaining own fields back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..errors import ConversionError, DocumentError, Problem
from ..items import Settings, Transcript
from .report import Policy, Report

__all__ = [
    "EFFORT_BUDGETS",
    "approximated_setting",
    "build_settings",
    "claim_provider_field",
    "effort_from_budget",
    "merge_provider_fields",
    "merge_settings",
    "note_model",
    "own_provider_data",
    "settings_of",
    "unsupported_setting",
    "valid_setting",
]

_SETTINGS = "settings"


def settings_of(transcript: Transcript) -> Settings:
    """The transcript's settings, or empty :class:`~interlingua.items.Settings` when it has none."""
    value = transcript.settings
    return value if isinstance(value, Settings) else Settings()


def merge_settings(base: Settings | msgspec.UnsetType | None, override: Settings | Mapping[str, Any] | None) -> Settings:
    """``base`` with every field ``override`` sets replacing it (``provider_data`` merged per provider).

    Args:
        base: The settings a conversation was held with (a transcript's or a stored session's).
        override: The caller's settings for this call, a :class:`~interlingua.items.Settings` or a
            mapping of its fields (``{"max_output_tokens": 256, "temperature": 0.2}``).

    Raises:
        DocumentError: ``override`` is not valid settings (unknown field, wrong type), with a pointer.
    """
    merged = base if isinstance(base, Settings) else Settings()
    if override is None:
        return merged
    if not isinstance(override, Settings):
        try:
            override = msgspec.convert(dict(override), Settings)
        except msgspec.ValidationError as exc:
            raise DocumentError(Problem(_path_pointer(str(exc)), f"invalid settings: {exc}")) from exc
    changes: dict[str, Any] = {}
    for name in override.__struct_fields__:
        value = getattr(override, name)
        if value is msgspec.UNSET:
            continue
        if name == "provider_data" and isinstance(merged.provider_data, dict):
            value = {**merged.provider_data, **value}
        changes[name] = value
    return msgspec.structs.replace(merged, **changes)


def _path_pointer(message: str) -> str:
    """``/settings/a/b`` from a msgspec message ending in ``- at `$.a.b```."""
    head, sep, path = message.rpartition("at `$")
    if not sep:
        return "/settings"
    path = path.rstrip("`")
    return "/settings" + path.replace(".", "/").replace("[", "/").replace("]", "") if path else "/settings"


def _fields(value: Any) -> str:
    """The keys of provider data, a nested object's as ``key.sub`` (``systemInstruction.role``): what is
    left out, not the whole ``systemInstruction`` whose text was carried as a system item."""
    if not isinstance(value, dict):
        return repr(value)
    names: list[str] = []
    for key in sorted(value):
        sub = value[key]
        if isinstance(sub, dict) and sub:
            names.extend(f"{key}.{k}" for k in sorted(sub))
        else:
            names.append(key)
    return ", ".join(names)


def own_provider_data(
    provider_data: Any,
    name: str,
    report: Report,
    *,
    what: str,
    index: int | None = None,
    item_type: str | None = None,
    settings: Any = None,
) -> dict[str, Any]:
    """A deep copy of ``provider_data[name]``; every other provider's entry is reported as dropped.

    Args:
        provider_data: A ``provider_data`` value (``dict`` keyed by mapper name) or ``UNSET``.
        name: The target mapper's name (its key).
        report: Where drops are recorded.
        what: What carries the data, for the report (``"settings"``, ``"tool 'get_weather'"``, ...).
        index: Where (the item's index), for item-level data.
        item_type: Where (the item's type), for item-level data.
        settings: For a ``settings.provider_data``, the :class:`~interlingua.items.Settings` it belongs
            to: fields another mapper kept only to spell a value these settings carry (OpenAI Chat's
            ``max_tokens`` beside ``max_output_tokens``; the mapper's ``settings_mirrors``) are not
            reported, as nothing of them is lost.

    Returns:
        The target's own fields (``{}`` when there are none).
    """
    if provider_data is msgspec.UNSET or not provider_data:
        return {}
    own: dict[str, Any] = {}
    for key, value in provider_data.items():
        if key == name and isinstance(value, dict):
            own = copy.deepcopy(value)
        else:
            if settings is not None and isinstance(value, dict):
                mirrors = _mirrors(key, value, settings)
                value = {k: v for k, v in value.items() if k not in mirrors}
                if not value:
                    continue
            fields = _fields(value)
            report.add(
                "dropped",
                f"{key} provider data ({fields}) of {what} is not for {name}",
                index=index,
                item_type=item_type or _SETTINGS,
            )
    return own


def _mirrors(provider: str, data: dict[str, Any], settings: Any) -> frozenset[str]:
    """The keys of ``provider``'s settings provider data that only spell a value ``settings`` carries
    (its mapper's ``settings_mirrors(data, settings)``; none for a mapper without it or unknown)."""
    from .registry import get_mapper, is_known

    try:
        mapper = get_mapper(provider) if is_known(provider) else None
    except Exception:  # noqa: BLE001 - an unknown or broken mapper mirrors nothing: its data is reported
        return frozenset()
    mirrors = getattr(mapper, "settings_mirrors", None)
    return frozenset(mirrors(data, settings)) if callable(mirrors) else frozenset()


def unsupported_setting(
    report: Report, policy: Policy, target: str, setting: str, value: Any, *, meaning_changes: bool = False, why: str = ""
) -> None:
    """Report a setting ``target`` cannot take; refuse it under ``error`` when dropping changes the output's meaning.

    Raises:
        ConversionError: ``policy == "error"`` and ``meaning_changes``.
    """
    reason = f"setting {setting}={_show(value)} has no {target} equivalent" + (f" ({why})" if why else "")
    if meaning_changes and policy == "error":
        raise ConversionError(reason + "; use policy drop to send without it", item_type=_SETTINGS)
    report.add("dropped", reason, item_type=_SETTINGS, pointer=_pointer(setting))


def approximated_setting(report: Report, setting: str, value: Any, target_field: str, target_value: Any, *, why: str = "") -> None:
    """Record that ``setting=value`` was written as ``target_field=target_value`` (a ``changed`` entry)."""
    reason = f"setting {setting}={_show(value)} sent as {target_field}={_show(target_value)}" + (f" ({why})" if why else "")
    report.add("changed", reason, item_type=_SETTINGS, pointer=_pointer(setting))


def note_model(report: Report, model: str | None, settings: Settings, target: str, *, in_body: bool = True) -> None:
    """Say so when a body is written without a model (nothing is guessed across providers).

    ``in_body=False`` for a provider that takes the model in the request URL (the mapper's
    ``model_in_body``): the advice is then about preflight and the call, not the body.
    """
    if model is not None:
        return
    recorded = f" (the transcript's settings name {settings.model!r}, which is not carried over)" if isinstance(settings.model, str) else ""
    if not in_body:
        report.add(
            "changed",
            f"no model given: {target} takes the model in the request URL, not the body; pass model= or --model "
            f"so preflight checks that model's capabilities (and replay can call it){recorded}",
            item_type=_SETTINGS,
            pointer="/model",
        )
        return
    report.add("changed", f"the {target} body has no 'model': pass model= or --model{recorded}", item_type=_SETTINGS, pointer="/model")


def _pointer(setting: str) -> str:
    return "/settings/" + setting.replace(".", "/")


def _show(value: Any) -> str:
    if isinstance(value, msgspec.Struct):
        value = msgspec.to_builtins(value)
    text = msgspec.json.encode(value).decode() if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


EFFORT_BUDGETS: dict[str, int] = {"minimal": 512, "low": 1024, "medium": 2048, "high": 4096, "xhigh": 16384}
"""Thinking budget (tokens) taken as equivalent to each effort level when one must be written as the other.

``low``/``medium``/``high`` follow LiteLLM's defaults for turning ``reasoning_effort`` into an Anthropic
``thinking.budget_tokens`` (1024/2048/4096, ``litellm/constants.py``
``DEFAULT_REASONING_EFFORT_*_THINKING_BUDGET``); ``minimal`` and ``xhigh`` extend the scale.
Every use is reported as ``changed`` naming both values."""

_EFFORT_ORDER = ("minimal", "low", "medium", "high", "xhigh")


def effort_from_budget(budget: int) -> str:
    """The effort level for a thinking budget: ``none`` for 0, else the lowest level whose budget is at least ``budget``.

    So the model is asked to think at least as much as the budget allowed (``xhigh`` above 4096).
    """
    if budget <= 0:
        return "none"
    for level in _EFFORT_ORDER:
        if EFFORT_BUDGETS[level] >= budget:
            return level
    return "xhigh"


def valid_setting(field: str, value: Any) -> bool:
    """Whether ``value`` is a valid value of the canonical :class:`~interlingua.items.Settings` field ``field``.

    A decoder keeps a wire value that is not (``null``, an effort level outside the enum, a negative
    token count) in its own ``provider_data`` instead, so it still goes back to the same provider.
    """
    try:
        msgspec.convert({field: value}, Settings)
    except msgspec.ValidationError:
        return False
    return True


def build_settings(fields: dict[str, Any], provider_data: dict[str, Any], name: str) -> Settings | msgspec.UnsetType:
    """:class:`~interlingua.items.Settings` from validated canonical ``fields`` and the provider's leftover wire fields.

    Returns:
        ``UNSET`` when both are empty.

    Raises:
        msgspec.ValidationError: a field that :func:`valid_setting` would refuse (a mapper bug).
    """
    data = dict(fields)
    if provider_data:
        data["provider_data"] = {name: copy.deepcopy(provider_data)}
    if not data:
        return msgspec.UNSET
    return msgspec.convert(data, Settings)


def claim_provider_field(own: dict[str, Any], path: tuple[str, ...], value: Any) -> bool:
    """Whether ``own`` (a mapper's own ``provider_data``) holds ``value`` at ``path``; if so it is removed.

    Decoders keep the wire field a canonical setting came from there when the provider has several
    (Chat ``max_tokens`` beside ``max_completion_tokens``), with the same value; an encoder that finds
    it writes the setting in that field, so a same-provider round trip writes the same key.
    """
    node: Any = own
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or path[-1] not in node or node[path[-1]] != value or isinstance(node[path[-1]], bool) != isinstance(value, bool):
        return False
    del node[path[-1]]
    _prune(own, path[:-1])
    return True


def _prune(own: dict[str, Any], path: tuple[str, ...]) -> None:
    """Remove objects left empty along ``path`` (deepest first)."""
    for depth in range(len(path), 0, -1):
        parent: Any = own
        for key in path[: depth - 1]:
            parent = parent.get(key)
        if isinstance(parent, dict) and parent.get(path[depth - 1]) == {}:
            del parent[path[depth - 1]]


def merge_provider_fields(body: dict[str, Any], fields: dict[str, Any], report: Report, *, target: str, where: str = "") -> None:
    """Write a mapper's own ``provider_data`` fields into ``body`` (modified in place).

    A key the body does not have is added (a deep copy); where both hold an object the two are merged
    key by key; where the body already holds another value (written from a canonical setting), the
    body keeps it and the provider field is reported as ``dropped``.
    """
    for key, value in fields.items():
        if key not in body:
            body[key] = copy.deepcopy(value)
        elif isinstance(body[key], dict) and isinstance(value, dict):
            merge_provider_fields(body[key], value, report, target=target, where=f"{where}/{key}")
        elif body[key] != value:
            report.add(
                "dropped",
                f"{target} provider data {where}/{key}={_show(value)} left out: the settings already wrote {_show(body[key])}",
                item_type=_SETTINGS,
                pointer=f"/settings/provider_data/{target}{where}/{key}",
            )
