"""The model catalogue: what interlingua knows about a model, where each fact came from, and prices.

Facts come in layers, each beating the one before field by field (see :mod:`interlingua.models._info`):
the wire format's defaults, the pinned catalogue snapshot (LiteLLM's model list, ``interlingua
models --source``), interlingua's hand-written overrides (``interlingua/data/models.json``, each with
its public source), the user's own table (``INTERLINGUA_MODELS`` or :func:`use_models_file`). A model
nobody describes has *unknown* capabilities: preflight warns that it could not check it and refuses
nothing on a guess.

Example::

    from interlingua.models import lookup

    info = lookup("anthropic", "claude-sonnet-4-5")
    info.context_window, info.max_output_tokens   # 200000, 64000
    info.capabilities.reasoning                   # True
    info.why("reasoning")                         # "override (models.json pattern 'claude-sonnet-4-5*': ...)"

Nothing is read at import: the snapshot is loaded on the first lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._catalogue import CatalogueSource, source
    from ._cost import Cost, cost
    from ._info import MODEL_LEVEL, Fact, ModelFacts, Prices, ReasoningControl, catalogue_models, lookup, use_models_file

__all__ = [
    "MODEL_LEVEL",
    "CatalogueSource",
    "Cost",
    "Fact",
    "ModelFacts",
    "Prices",
    "ReasoningControl",
    "catalogue_models",
    "cost",
    "lookup",
    "source",
    "use_models_file",
]

_WHERE = {
    "CatalogueSource": "_catalogue",
    "source": "_catalogue",
    "Cost": "_cost",
    "cost": "_cost",
}


def __getattr__(name: str) -> object:
    """Public names, imported on first use (the CLI lists ``interlingua models`` without loading them)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{_WHERE.get(name, '_info')}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
