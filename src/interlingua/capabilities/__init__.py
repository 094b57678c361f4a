"""Capability preflight: what a target model can take, and refusing what it cannot.

Capabilities (:class:`~interlingua.items.ModelCapabilities`, generated from
``schemas/capabilities.json``) are resolved in this order: a caller's resolver,
then :func:`interlingua.models.lookup` (the user's model table, the shipped overrides in
``interlingua/data/models.json``, the pinned catalogue); a model none of them describes is
*unknown* and refused nothing on a default's capabilities; never from a hostname. :func:`preflight` then raises
:class:`~interlingua.errors.CapabilityError` listing every offending item
before any request is built; :func:`fit` first applies the loss policy (modality
violations left out or marked, missing tool definitions synthesized) and refuses
only what no policy can fix.

Example::

    from interlingua.capabilities import preflight, resolve_capabilities

    caps = resolve_capabilities("anthropic", "claude-sonnet-4-5")
    preflight(transcript, caps, model="claude-sonnet-4-5", provider="anthropic")
"""

from ..items import ModelCapabilities, ModelTable, ModelTableEntry
from ._preflight import PERMISSIVE_PARAMETERS, Fitted, check, fit, preflight
from ._resolve import (
    RESOLVER_ENTRY_POINT_GROUP,
    Resolution,
    Resolver,
    deprecation_warning,
    open_capabilities,
    plugin_resolvers,
    resolve,
    resolve_capabilities,
    unknown_model_warning,
)
from ._table import default_table, load_table, lookup, pattern_matches

__all__ = [
    "PERMISSIVE_PARAMETERS",
    "RESOLVER_ENTRY_POINT_GROUP",
    "Fitted",
    "ModelCapabilities",
    "ModelTable",
    "ModelTableEntry",
    "Resolution",
    "Resolver",
    "check",
    "default_table",
    "deprecation_warning",
    "fit",
    "load_table",
    "lookup",
    "open_capabilities",
    "pattern_matches",
    "plugin_resolvers",
    "preflight",
    "resolve",
    "resolve_capabilities",
    "unknown_model_warning",
]
