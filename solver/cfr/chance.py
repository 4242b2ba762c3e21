"""The walk's steps at a chance node (:mod:`solver.cfr.walk`): draw the one child walked
(chance sampling), the opponent's reach into a child (the card's probability, hands it blocks
zeroed), and a child's values added to the node's — for each card the child stands for by
suit isomorphism, with hands mapped. Helpers marked ``node_kernel`` are inlined into the walk.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import deref
from solver.cfr.layout import Scratch, SlotRef
from solver.games.model import Boards, Hands, Tree
from solver.jit import called_kernel, node_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


@called_kernel
def draw_child(
    first_child: I32, num_children: I32, iso_count: I32, weight: Array, node: Int, u: float
) -> tuple[int, float]:
    """Chance sampling: the child of chance node ``node`` that the uniform draw ``u`` picks,
    with probability ∝ its chance weight × the cards it stands for (itself and its suit
    isomorphic images); returns (child index, probability). Arrays: the ``Tree``'s."""
    fc = first_child[node]
    na = num_children[node]
    total = 0.0
    for k in range(na):
        c = fc + k
        total += (1.0 + iso_count[c]) * weight[c]
    target = u * total
    acc = 0.0
    pick = na - 1
    for k in range(na):
        c = fc + k
        acc += (1.0 + iso_count[c]) * weight[c]
        if target < acc:
            pick = k
            break
    c = fc + pick
    return pick, (1.0 + iso_count[c]) * weight[c] / total


@node_kernel
def chance_child(tree: Tree, boards: Boards, child: Int, d: Int, no: Int, opp: Int,
                 sc: Scratch) -> bool:  # fmt: skip
    """The opponent's reach into a chance child (``sc.reach[d + 1]``): its card's probability
    (times 1/probability of the draw when sampling, ``sc.cq[d]``), hands the card blocks
    zeroed. Whether any is left (an or-reduction, which vectorizes where a float sum would
    not)."""
    RE = sc.reach
    rrow = sc.reach_row
    r0 = rrow[d]
    cb = tree.board[child]
    w = tree.chance_weight[child] * sc.cq[d]
    nz = False
    for j in range(no):
        x = RE[r0, j] * w * boards.valid[cb, opp, j]
        RE[d + 1, j] = x
        nz |= x != 0.0
    rrow[d + 1] = d + 1
    return nz


@node_kernel
def free_chance_child(tree: Tree, boards: Boards, child: Int, d: Int, no: Int, opp: Int,
                      sc: Scratch) -> None:  # fmt: skip
    """A restricted Nash response's free reach into a chance child (row ``ofs + d + 1`` of
    ``sc.reach``, from row ``ofs + reach_row[d]``; ``ofs`` the depth rows), scaled and zeroed
    as :func:`chance_child` (called first) scales and zeroes the mixture."""
    RE = sc.reach
    ofs = sc.stack.shape[0]
    r0 = ofs + sc.reach_row[d]
    cb = tree.board[child]
    w = tree.chance_weight[child] * sc.cq[d]
    for j in range(no):
        RE[ofs + d + 1, j] = RE[r0, j] * w * boards.valid[cb, opp, j]


@node_kernel
def add_chance_rows(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    child: Int,
    trav: Int,
    nt: Int,
    value2: Array,
    vrow: Int,
    out2: Array,
    orow: Int,
) -> None:
    """out2[orow] += a chance child's values value2[vrow] (H[trav],), hands its card blocks
    zeroed, plus, for every card it stands for by suit isomorphism, the same values with
    hands mapped."""
    iso_board, iso_perm, perm, valid = tree.iso_board, tree.iso_perm, hands.perm, boards.valid
    cb = tree.board[child]
    for h in range(nt):
        out2[orow, h] += valid[cb, trav, h] * value2[vrow, h]
    for e in range(tree.iso_start[child], tree.iso_start[child] + tree.iso_count[child]):
        ib = iso_board[e]
        pe = iso_perm[e]
        for h in range(nt):
            out2[orow, h] += valid[ib, trav, h] * value2[vrow, perm[pe, trav, h]]


@called_kernel
def add_chance_child(
    refs: SlotRef, child: Int, trav: Int, nt: Int, value: Array, out: Array
) -> None:
    """out (H,) += a chance child's values (H,) as :func:`add_chance_rows` adds them (the
    tables by reference: :class:`~solver.cfr.layout.SlotTables`)."""
    tree, hands, boards = deref(refs)[:3]
    value2 = value.reshape((1, value.shape[0]))
    out2 = out.reshape((1, out.shape[0]))
    add_chance_rows(tree, hands, boards, child, trav, nt, value2, 0, out2, 0)
