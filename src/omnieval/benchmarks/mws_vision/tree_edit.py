"""Ordered tree edit distance (Zhang & Shasha, 1989) for the document-parsing score.

MWS-Vision-Bench scores Markdown structure with ``zss.simple_distance``; this is the same
algorithm, written here so the scorer needs no extra package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["LabelTree", "tree_edit_distance"]


@dataclass
class LabelTree:
    """A node with a label and ordered children."""

    label: str
    children: list[LabelTree] = field(default_factory=list)

    def size(self) -> int:
        return 1 + sum(child.size() for child in self.children)

    def first(self, label: str) -> LabelTree | None:
        """The first node carrying ``label`` in pre-order (``zss.Node.get``)."""
        if self.label == label:
            return self
        for child in self.children:
            found = child.first(label)
            if found is not None:
                return found
        return None


def _postorder(root: LabelTree) -> tuple[list[str], list[int]]:
    """Post-order labels and, for each node, the post-order index of its leftmost leaf."""
    labels: list[str] = []
    leftmost: list[int] = []

    def visit(node: LabelTree) -> int:
        first_leaf = -1
        for child in node.children:
            leaf = visit(child)
            if first_leaf < 0:
                first_leaf = leaf
        labels.append(node.label)
        here = len(labels) - 1
        leftmost.append(here if first_leaf < 0 else first_leaf)
        return leftmost[here]

    visit(root)
    return labels, leftmost


def _keyroots(leftmost: list[int]) -> list[int]:
    seen: dict[int, int] = {}
    for index, leaf in enumerate(leftmost):
        seen[leaf] = index  # the highest node sharing a leftmost leaf
    return sorted(seen.values())


def tree_edit_distance(a: LabelTree, b: LabelTree, label_cost: Callable[[str, str], float]) -> float:
    """Minimum cost to edit ``a`` into ``b``: inserting or removing a node costs
    ``label_cost("", label)`` / ``label_cost(label, "")``, relabelling ``label_cost(x, y)``."""
    la, ra = _postorder(a)
    lb, rb = _postorder(b)
    treedist = [[0.0] * len(lb) for _ in la]
    for i in _keyroots(ra):
        for j in _keyroots(rb):
            _forest(i, j, la, ra, lb, rb, treedist, label_cost)
    return treedist[len(la) - 1][len(lb) - 1]


def _forest(
    i: int,
    j: int,
    la: list[str],
    ra: list[int],
    lb: list[str],
    rb: list[int],
    treedist: list[list[float]],
    cost: Callable[[str, str], float],
) -> None:
    a0, b0 = ra[i], rb[j]
    rows, cols = i - a0 + 2, j - b0 + 2
    fd = [[0.0] * cols for _ in range(rows)]
    for x in range(1, rows):
        fd[x][0] = fd[x - 1][0] + cost(la[a0 + x - 1], "")
    for y in range(1, cols):
        fd[0][y] = fd[0][y - 1] + cost("", lb[b0 + y - 1])
    for x in range(1, rows):
        p = a0 + x - 1
        for y in range(1, cols):
            q = b0 + y - 1
            remove = fd[x - 1][y] + cost(la[p], "")
            insert = fd[x][y - 1] + cost("", lb[q])
            if ra[p] == a0 and rb[q] == b0:
                fd[x][y] = min(remove, insert, fd[x - 1][y - 1] + cost(la[p], lb[q]))
                treedist[p][q] = fd[x][y]
            else:
                fd[x][y] = min(remove, insert, fd[ra[p] - a0][rb[q] - b0] + treedist[p][q])
