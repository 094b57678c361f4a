"""Make the worked Perplexity plugin importable (its src and tests on sys.path) and its entry point."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

from interlingua.mapping import registry

EXAMPLE = Path(__file__).parents[2] / "examples" / "plugin_perplexity"
for _p in (EXAMPLE / "src", EXAMPLE / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

PERPLEXITY_EP = importlib.metadata.EntryPoint(name="perplexity", value="interlingua_perplexity:mapper", group=registry.ENTRY_POINT_GROUP)
