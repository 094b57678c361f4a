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
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ..errors import ConversionError
from ..items import Settings, Transcript
from .report import Policy, Report

__all__ = [
    "approximated_setting",
    "note_model",
    "own_provider_data",
    "settings_of",
    "unsupported_setting",
]

_SETTINGS = "settings"


def settings_of(transcript: Transcript) -> Settings:
    """The transcript's settings, or empty :class:`~interlingua.items.Settings` when it has none."""
    value = transcript.settings
    return value if isinstance(value, Settings) else Settings()


def own_provider_data(
    provider_data: Any, name: str, report: Report, *, what: str, index: int | None = None, item_type: str | None = None
) -> dict[str, Any]:
    """A deep copy of ``provider_data[name]``; every other provider's entry is reported as dropped.

    Args:
        provider_data: A ``provider_data`` value (``dict`` keyed by mapper name) or ``UNSET``.
        name: The target mapper's name (its key).
        report: Where drops are recorded.
        what: What carries the data, for the report (``"settings"``, ``"tool 'get_weather'"``, ...).
        index, item_type: Where, for item-level data.

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
            fields = ", ".join(sorted(value)) if isinstance(value, dict) else repr(value)
            report.add(
                "dropped",
                f"{key} provider data ({fields}) of {what} is not for {name}",
                index=index,
                item_type=item_type or _SETTINGS,
            )
    return own


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


def note_model(report: Report, model: str | None, settings: Settings, target: str) -> None:
    """Say so when a body is written without a model (nothing is guessed across providers)."""
    if model is not None:
        return
    recorded = f" (the transcript was held with {settings.model!r}; pass it again to keep it)" if isinstance(settings.model, str) else ""
    report.add("changed", f"the {target} body has no 'model': pass model= or --model{recorded}", item_type=_SETTINGS, pointer="/model")


def _pointer(setting: str) -> str:
    return "/settings/" + setting.replace(".", "/")


def _show(value: Any) -> str:
    if isinstance(value, msgspec.Struct):
        value = msgspec.to_builtins(value)
    text = msgspec.json.encode(value).decode() if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
