"""Capability preflight: what a target model can take, and refusing what it cannot.

Capabilities (:class:`~interlingua.items.ModelCapabilities`, generated from
``schemas/capabilities.json``) are resolved in this order: a caller's resolver,
the shipped model table (``interlingua/data/models.json``), the mapper's
defaults; never from a hostname. :func:`preflight` then raises
:class:`~interlingua.errors.CapabilityError` listing every offending item
before any request is built.

Example::

    from interlingua.capabilities import preflight, resolve_capabilities

    caps = resolve_capabilities("anthropic", "claude-sonnet-4-5")
    preflight(transcript, caps, model="claude-sonnet-4-5", provider="anthropic")
"""

from ..items import ModelCapabilities, ModelTable, ModelTableEntry
from ._preflight import check, preflight
from ._resolve import RESOLVER_ENTRY_POINT_GROUP, Resolution, Resolver, plugin_resolvers, resolve, resolve_capabilities
from ._table import default_table, load_table, lookup, pattern_matches

__all__ = [
    "RESOLVER_ENTRY_POINT_GROUP",
    "ModelCapabilities",
    "ModelTable",
    "ModelTableEntry",
    "Resolution",
    "Resolver",
    "check",
    "default_table",
    "load_table",
    "lookup",
    "pattern_matches",
    "plugin_resolvers",
    "preflight",
    "resolve",
    "resolve_capabilities",
]
