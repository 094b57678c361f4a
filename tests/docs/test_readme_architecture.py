"""The README's architecture section stays true: the modules it names exist and the arrows it states hold
in the import graph of ``src/interlingua`` (lazy imports inside functions included)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "interlingua"

SHARED = {"items", "codec", "errors", "mapping", "streaming", "capabilities", "models", "hosts"}
"""What the README says a provider package may import."""

ENGINE_USERS = {"mistral", "openai_responses"}
"""Provider packages the README says reuse the OpenAI Chat engine."""


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Architecture\n")
    return text[start : text.index("\n## ", start + 1)]


def _imports_of(path: Path, package: str) -> set[str]:
    """The ``interlingua.*`` modules ``path`` imports (relative imports resolved against ``package``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m == "interlingua" or m.startswith("interlingua.")}


def _package_imports(folder: Path, package: str) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py") if folder.is_dir() else [folder]:
        rel = path.relative_to(SRC.parent).with_suffix("").parts
        pkg = ".".join(rel[:-1])  # a package's __init__ and its modules resolve relative imports alike
        found |= _imports_of(path, pkg)
    return found


def test_every_module_the_section_names_exists() -> None:
    names = set(re.findall(r"interlingua\.[a-z_]+", _section()))
    assert names
    for name in names:
        assert importlib.util.find_spec(name) is not None, name
    for word in re.findall(r"· ([a-z_]+)", _section()):
        assert importlib.util.find_spec(f"interlingua.{word}") is not None, word


def test_items_imports_nothing_else_of_the_package() -> None:
    assert _package_imports(SRC / "items.py", "interlingua") == set()


def test_providers_import_only_the_shared_layers() -> None:
    for folder in sorted(p for p in (SRC / "providers").iterdir() if p.is_dir() and not p.name.startswith("_")):
        own = f"interlingua.providers.{folder.name}"
        for module in _package_imports(folder, own):
            if module.startswith(own) or module in ("interlingua", "interlingua.providers"):
                continue
            if module.startswith("interlingua.providers.openai_chat") and folder.name in ENGINE_USERS:
                continue
            top = module.split(".")[1]
            assert top in SHARED, f"{own} imports {module}"


def test_mapping_never_imports_a_provider() -> None:
    assert not [m for m in _package_imports(SRC / "mapping", "interlingua.mapping") if m.startswith("interlingua.providers")]


def test_nothing_imports_the_cli() -> None:
    for path in SRC.rglob("*.py"):
        if (SRC / "cli") in path.parents or path.name == "__main__.py":
            continue
        rel = path.relative_to(SRC.parent).with_suffix("").parts
        assert not [m for m in _imports_of(path, ".".join(rel[:-1])) if m.startswith("interlingua.cli")], path
