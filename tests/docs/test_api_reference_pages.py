"""The API reference (docs/api/, built by mkdocs + mkdocstrings in CI): every public name has a page entry."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import interlingua

ROOT = Path(__file__).resolve().parents[2]


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_api_docs", ROOT / "tools" / "gen_api_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_pages_are_the_generated_ones() -> None:
    files = _generator().render()
    committed = {p.name: p.read_text() for p in (ROOT / "docs" / "api").glob("*.md")}
    assert committed == files


def test_every_public_name_has_an_entry() -> None:
    gen = _generator()
    modules = gen.public_modules()
    for expected in ("interlingua", "interlingua.items", "interlingua.transport", "interlingua.sync", "interlingua.streaming", "interlingua.store"):
        assert expected in modules
    top = (ROOT / "docs" / "api" / "interlingua.md").read_text()
    assert all(f"::: interlingua.{name}\n" in top for name in interlingua.__all__ if not name.startswith("__"))
    for module in modules:
        text = (ROOT / "docs" / "api" / f"{module}.md").read_text()
        names = gen.public_names(module)
        assert all(f"::: {module}.{name}\n" in text for name in names), module
        imported = importlib.import_module(module)
        assert all(hasattr(imported, name) for name in names), module  # the entries name real objects
    items = gen.public_names("interlingua.items")
    assert {"TextItem", "ImageItem", "Base64Source", "InputItem", "Transcript"} <= set(items)
    streaming = gen.public_names("interlingua.streaming")
    assert {"TextDelta", "StreamDone"} <= set(streaming)
