"""Tree-shaped histories: the active branch and the abandoned ones.

Some stores keep every attempt of a conversation: a node points to its parent (Claude Code's
``parentUuid``), and a retry or an edit is a second child of the same parent. The conversation the
user continued is the *active branch*: the path from the root to the active leaf. Every other leaf
ends an *abandoned branch*, which leaves the active branch at the deepest node they share (or never
meets it: a sidechain with its own root).

:func:`split_tree` works on a small index (an id and a parent id per node, in file order), never on
the nodes' content, so a reader can index a large file in one pass and read the nodes it needs in a
second one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Branch", "Tree", "split_tree"]


@dataclass
class Branch:
    """An abandoned branch.

    Attributes:
        leaf: Index (in file order) of its last node.
        joins: Index of the deepest node it shares with the active branch, or ``None``.
        nodes: Indices of its own nodes (after ``joins``), root side first.
    """

    leaf: int
    joins: int | None
    nodes: list[int] = field(default_factory=list)


@dataclass
class Tree:
    """:func:`split_tree`'s answer.

    Attributes:
        active: Indices of the active branch's nodes, root first.
        branches: The abandoned branches, in file order of their leaves.
        dangling: Indices of nodes whose parent id names no node of the input (the chain stops there).
    """

    active: list[int]
    branches: list[Branch]
    dangling: list[int]


def split_tree(ids: Sequence[str | None], parents: Sequence[str | None], active_leaf: int | None) -> Tree:
    """Split nodes ``0..n-1`` (``ids[i]``, parent id ``parents[i]``, in file order) into the active
    branch ending at ``active_leaf`` and the abandoned branches.

    A node without an id is never a parent. A parent id naming no node, or a cycle, ends the chain
    (the node is listed in ``dangling``). When an id appears twice, the later node is the one children
    point to (a record written again). Leaves are nodes no other node names as parent; every leaf off the
    active branch ends one :class:`Branch`.
    """
    n = len(ids)
    by_id: dict[str, int] = {}
    for i, key in enumerate(ids):
        if key is not None:
            by_id[key] = i
    parent_of: list[int | None] = [None] * n
    dangling: list[int] = []
    has_child = [False] * n
    for i, p in enumerate(parents):
        if p is None:
            continue
        j = by_id.get(p)
        if j is None or j == i:
            dangling.append(i)
            continue
        parent_of[i] = j
        has_child[j] = True

    def chain(leaf: int) -> list[int]:
        path: list[int] = []
        seen: set[int] = set()
        node: int | None = leaf
        while node is not None and node not in seen:
            seen.add(node)
            path.append(node)
            node = parent_of[node]
        if node is not None:  # a cycle: stop where it closes
            dangling.append(path[-1])
        path.reverse()
        return path

    active = chain(active_leaf) if active_leaf is not None else []
    on_active = set(active)
    branches: list[Branch] = []
    for i in range(n):
        key = ids[i]
        if has_child[i] or i in on_active or (key is not None and by_id[key] != i):  # a record written again later
            continue
        path = chain(i)
        joins = None
        cut = 0
        for k, node in enumerate(path):
            if node in on_active:
                joins, cut = node, k + 1
        branches.append(Branch(i, joins, path[cut:]))
    return Tree(active, branches, sorted(set(dangling)))
