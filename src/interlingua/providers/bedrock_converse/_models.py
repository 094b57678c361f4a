"""Claude model ids on Bedrock <-> Anthropic's own ids.

Bedrock names a Claude model ``anthropic.<Anthropic model id>-v<N>:0`` (e.g. ``anthropic.claude-sonnet-4-5-20250929-v1:0``
for Anthropic's ``claude-sonnet-4-5-20250929``), and a cross-region inference profile adds a geography prefix
(``us.``, ``eu.``, ``apac.``, ``global.``, ...): AWS Bedrock user guide, "Supported foundation models in Amazon
Bedrock" and "Supported Regions and models for inference profiles"; Anthropic's models overview lists both ids
side by side. Only dated Anthropic ids (``...-YYYYMMDD``) have a Bedrock id; aliases (``claude-sonnet-4-5``) do not.
"""

from __future__ import annotations

import re

from ...mapping.vendor_models import VendorModels

__all__ = ["CLAUDE_MODELS", "VERSION_SUFFIX", "anthropic_id", "bedrock_id"]

_BEDROCK_CLAUDE = re.compile(r"^(?:[a-z]{2,6}\.)?anthropic\.(claude-[a-z0-9-]+-\d{8})-v\d+:\d+$")
_DATED = re.compile(r"^claude-[a-z0-9-]+-\d{8}$")

VERSION_SUFFIX: dict[str, str] = {"claude-3-5-sonnet-20241022": "v2:0"}
"""Anthropic ids whose Bedrock id has a version other than ``v1:0`` (AWS model ids table)."""


def anthropic_id(model: str) -> str | None:
    """``[region.]anthropic.claude-...-YYYYMMDD-vN:M`` -> ``claude-...-YYYYMMDD``; ``None`` for any other id."""
    m = _BEDROCK_CLAUDE.match(model)
    return m.group(1) if m else None


def bedrock_id(model: str) -> str | None:
    """A dated Anthropic id -> its Bedrock base model id (no inference-profile prefix); ``None`` otherwise."""
    if not _DATED.match(model):
        return None
    return f"anthropic.{model}-{VERSION_SUFFIX.get(model, 'v1:0')}"


CLAUDE_MODELS = VendorModels("anthropic", ("*anthropic.claude-*",), to_vendor=anthropic_id, from_vendor=bedrock_id)
"""Bedrock's declaration of the Claude models (see :mod:`interlingua.mapping.vendor_models`)."""
