"""Claude model ids on Bedrock <-> Anthropic's own ids.

Bedrock names a Claude model ``anthropic.<Anthropic model id>-v<N>:0`` (e.g. ``anthropic.claude-sonnet-4-5-20250929-v1:0``
for Anthropic's ``claude-sonnet-4-5-20250929``), and a cross-region inference profile adds a geography prefix
(``us.``, ``eu.``, ``apac.``, ``global.``, ...): AWS Bedrock user guide, "Supported foundation models in Amazon
Bedrock" and "Supported Regions and models for inference profiles"; Anthropic's models overview lists both ids
side by side. Only dated Anthropic ids (``...-YYYYMMDD``) have a Bedrock id; an alias (``claude-sonnet-4-5``) is
carried as the dated id it points at when the model catalogue knows exactly one (:func:`dated_id`).

Claude models from Claude 3.7 Sonnet (``claude-3-7-sonnet-20250219``) on are served on demand only through a
cross-Region inference profile: invoking the base model id answers 400 "Invocation of model ID
anthropic.claude-sonnet-4-20250514-v1:0 with on-demand throughput isn't supported. Retry your request with the ID
or ARN of an inference profile that contains this model" (AWS Bedrock user guide, "Supported Regions and models
for inference profiles"; each model's card lists its profile ids). So an Anthropic id of such a model becomes the
US geography's profile id (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``: the one geography every such model
has a profile in); the caller reports the rename, and a caller in another geography passes its own profile id
(``eu.``, ``apac.``, ``jp.``, ``au.``, ``global.``) as the model.
"""

from __future__ import annotations

import re

from ...mapping.vendor_models import VendorModels

__all__ = ["CLAUDE_MODELS", "PROFILE_GEOGRAPHY", "PROFILE_SINCE", "VERSION_SUFFIX", "anthropic_id", "bedrock_id", "dated_id", "profile_only"]

_BEDROCK_CLAUDE = re.compile(r"^(?:[a-z]{2,6}\.)?anthropic\.(claude-[a-z0-9-]+-\d{8})-v\d+:\d+$")
_DATED = re.compile(r"^claude-[a-z0-9-]+-\d{8}$")

VERSION_SUFFIX: dict[str, str] = {"claude-3-5-sonnet-20241022": "v2:0"}
"""Anthropic ids whose Bedrock id has a version other than ``v1:0`` (AWS model ids table)."""


PROFILE_SINCE = "20250219"
"""Release date (``YYYYMMDD``, the id's suffix) of the first Claude model Bedrock serves on demand only through an
inference profile (Claude 3.7 Sonnet); every later Claude model is served the same way (module docstring)."""

PROFILE_GEOGRAPHY = "us"
"""The geography prefix of the inference profile written for such a model (module docstring)."""


def profile_only(model: str) -> bool:
    """Whether the dated Anthropic id ``model`` is a Claude model Bedrock serves only through an inference profile."""
    return bool(_DATED.match(model)) and model[-8:] >= PROFILE_SINCE


def anthropic_id(model: str) -> str | None:
    """``[region.]anthropic.claude-...-YYYYMMDD-vN:M`` -> ``claude-...-YYYYMMDD``; ``None`` for any other id."""
    m = _BEDROCK_CLAUDE.match(model)
    return m.group(1) if m else None


def dated_id(alias: str) -> str | None:
    """The dated Anthropic id an alias points at (``claude-sonnet-4-5`` -> ``claude-sonnet-4-5-20250929``),
    when the model catalogue knows exactly one: its Anthropic rows ``<alias>-YYYYMMDD`` and its Bedrock rows
    ``[geo.]anthropic.<alias>-YYYYMMDD-vN:M`` (Anthropic's models overview lists each alias beside the
    dated id it points at, and Bedrock only the dated one). ``None`` for an id that is no such alias, or
    when the catalogue has none or several dates for it."""
    if not re.fullmatch(r"claude-[a-z0-9-]+", alias) or _DATED.match(alias):
        return None
    from ...models import catalogue_models

    # Anthropic's alias spellings of one model: ``claude-3-7-sonnet-latest`` and ``claude-sonnet-4-0``
    # name the dated ``claude-3-7-sonnet-20250219`` and ``claude-sonnet-4-20250514``
    stem = alias.removesuffix("-latest").removesuffix("-0")
    found: set[str] = set()
    for base in dict.fromkeys((alias, stem)):
        own = re.compile(rf"^{re.escape(base)}-(\d{{8}})$")
        hosted = re.compile(rf"^(?:[a-z-]{{2,8}}\.)?anthropic\.{re.escape(base)}-(\d{{8}})-v\d+:\d+$")
        dates = {m.group(1) for name in catalogue_models("anthropic") if (m := own.match(name))}
        dates |= {m.group(1) for name in catalogue_models("bedrock-converse") if (m := hosted.match(name))}
        found |= {f"{base}-{d}" for d in dates}
        if found:
            break
    return found.pop() if len(found) == 1 else None


def bedrock_id(model: str) -> str | None:
    """An Anthropic id -> the id Bedrock invokes it by: the base model id
    (``anthropic.claude-3-5-haiku-20241022-v1:0``), or for a model served only through an inference profile
    (:func:`profile_only`) the US geography's profile id (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``).
    An alias (``claude-sonnet-4-5``) is first read as the dated id it points at (:func:`dated_id`);
    ``None`` for any other id, or an alias the catalogue does not resolve."""
    if not _DATED.match(model):
        model = dated_id(model) or ""
        if not model:
            return None
    base = f"anthropic.{model}-{VERSION_SUFFIX.get(model, 'v1:0')}"
    return f"{PROFILE_GEOGRAPHY}.{base}" if profile_only(model) else base


CLAUDE_MODELS = VendorModels("anthropic", ("*anthropic.claude-*",), to_vendor=anthropic_id, from_vendor=bedrock_id)
"""Bedrock's declaration of the Claude models (see :mod:`interlingua.mapping.vendor_models`)."""
