"""The package's import graph has no new circle, and no new module imports codec's private names (issue 30).

Every ``import``/``from ... import`` in ``src/interlingua`` is read (lazy ones inside functions too: a lazy
import hides a circle, it does not remove it), the graph's strongly connected components are computed,
and each must be one of the circles known when this test was written (being removed by the branches
that own those modules). A new circle, or ``session_file`` and ``validation`` importing each other
again, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "interlingua"

KNOWN_CIRCLES: list[frozenset[str]] = []
"""No circle is left (the transport's went with its split: ``_fallback`` needs only a ``RouteClient``
protocol and ``_generation``, ``_calls`` works on the client's ``Connection``). The compat package (its
``__init__`` registering writers that import it back) is checked as one unit, below."""

KNOWN_PRIVATE_CODEC: dict[str, set[str]] = {
}
"""Modules importing ``codec._x`` names: none left; a new one fails the test."""


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _imports(name: str, path: Path, package: bool) -> list[tuple[str, list[str]]]:
    """``(module imported, names imported from it)`` for every import statement of the module."""
    base = name if package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                target = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        deps = set()
        for target, names in _imports(name, path, package):
            for candidate in [target, *(f"{target}.{n}" for n in names)]:
                if candidate in modules and candidate != name:
                    deps.add(candidate)
        graph[name] = deps
    return graph


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.add(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def _is_compat_registry(circle: frozenset[str]) -> bool:
    return all(m == "interlingua.compat" or m.startswith("interlingua.compat._") for m in circle) and "interlingua.compat._upcast" not in circle


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_session_file_and_validation_do_not_import_each_other() -> None:
    graph = _graph()
    assert "interlingua.validation" in graph["interlingua.session_file"]  # the one direction: item checks
    assert not [m for m in graph if (m == "interlingua.validation" or m.startswith("interlingua.validation.")) and "interlingua.session_file" in graph[m]]


def test_no_new_import_circle() -> None:
    new = [sorted(c) for c in _circles(_graph()) if c not in KNOWN_CIRCLES and not _is_compat_registry(c)]
    assert new == []


def test_no_new_import_of_codec_private_names() -> None:
    modules = _modules()
    new = {}
    for module, (path, package) in modules.items():
        if module == "interlingua.codec" or module.startswith("interlingua.codec."):
            continue
        private = {
            n
            for target, names in _imports(module, path, package)
            if target == "interlingua.codec" or target.startswith("interlingua.codec.")
            for n in names
            if n.startswith("_")
        }
        if private - KNOWN_PRIVATE_CODEC.get(module, set()):
            new[module] = sorted(private - KNOWN_PRIVATE_CODEC.get(module, set()))
    assert new == {}


def test_the_codec_split_left_no_circle_through_codec() -> None:
    """codec is a package of one module per job; ``compat._upcast`` (imported lazily by the version check
    to name the registered upcasters) imports only the leaf ``codec._model``, so no circle goes through codec."""
    assert not [sorted(c) for c in _circles(_graph()) if any(m == "interlingua.codec" or m.startswith("interlingua.codec.") for m in c)]
