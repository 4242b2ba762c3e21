"""Regret-based pruning in the vector engine: interval RBP and Total RBP.

Brown & Sandholm, *Regret-Based Pruning in Extensive-Form Games* (NIPS 2015) and *Reduced
Space and Faster Convergence in Imperfect-Information Games via Regret-Based Pruning* (AAAI
2017, the Total RBP seed). Partial pruning (skip what the opponent reaches with probability
zero) lives in the traversal itself (:mod:`solver.cfr.kernels`) and is exact; this module
adds the two forms that also skip what the *traverser* would play with probability zero.

Vector form. An infoset is (decision node, hand); the walk carries every hand at once.
A pruned cell (I, a) plays with probability 0 (regret matching over the hand's other
actions) and holds its pruning bound instead of a regret; the hand is frozen ("dead") in the
subtree below, where its regrets are neither updated nor needed. The walk itself skips an
action's subtree only when it is pruned for **every** hand the board leaves possible at the
node (then the opponent's pass skips it too: the owner's reach into it is zero), so the work
saved is per (node, action) while the pruning, and Total RBP's memory, are per infoset.
Per infoset, with π^t(I) the opponent's reach (chance included, card removal applied),
U(I, a) ≥ 0 the most the owner can win below the action and L(I) ≤ 0 the least it can get
below the node:

* **Interval RBP** (rule ``cfr``). An action whose regret R(I, a) is negative for every hand
  — while another action keeps a positive regret, so regret matching plays it with
  probability 0 anyway — is pruned as long as R^{t₀}(I,a) + Σ_{t₀<t≤t₁} (π^t(I)·U(I,a) −
  v^t(I)) ≤ 0 (the paper's condition). The bound is kept one iteration ahead (π^{t+1} ≤
  π_max, v^{t+1}(I) ≥ π_max·L(I)); when it could fail, the action is *caught up* before the
  next iteration: one CFR update of its subtree against the opponent's reach summed over the
  window (the strategies inside are frozen while pruned, and counterfactual values are linear
  in the opponent's reach, so this is exactly the skipped iterations with those strategies —
  the 2015 paper's "single iteration against the average of the opponent's strategies").
* **Total RBP** (rules ``cfr`` and ``cfr+``). Every ``check_every`` iterations a
  counterfactual best response (CBR) against the opponent's average strategy gives CBV(I, a)
  for every action; a cell (I, a) with W_T·CBV(I,a) ≤ Σ_t w_t·v^t(I) (eq. 5; never the
  hand's best action; optionally with a slack of ``margin`` iterations at the opponent's
  average reach, 0 by default) is pruned, its bound starting at W_T·CBV(I,a) and growing by
  w_t·π^t(I)·U(I,a) (eq. 9). Its subtree's regrets are then not needed any more — they are
  rebuilt from scratch when pruning ends: R(I',a') = W_T·(CBV(I',a') − CBV(I')) inside the
  subtree and R(I,a) = W_T·CBV(I,a) − Σ_t w_t·v^t(I) (eqs. 7–8, with an exact CBR) — so
  their memory counts as released. The weights w_t are the average strategy's (W_T =
  Σ_{t≤T} w_t): 1 for CFR, which is the seed's T; t for CFR+, whose average is linear.
  Counterfactual values are linear in the opponent's strategy only under the weights its
  average was taken with, so the seed's unweighted sums compared CFR+'s values with a CBR
  to the wrong average (CFR+ then did not converge on Leduc-5; weighted, it follows plain
  CFR+). With ``threshold`` C > 0 the strategy sums of a pruned action are released too
  once its average reach π_i^{σ̄}(I)·σ̄(I, a) ≤ C/√T (T iterations): σ̄(I, a) becomes 0 and
  the hand's sums below it are dropped (the paper's space experiment). Catch-ups run in one
  kernel call per batch (:func:`_total_rebuild`).

Freeing the other player's regrets (``free_opponent``; our extension, off by default). Where
every hand the pruning player p can hold at a node is frozen above it, p never comes there:
the other player q's counterfactual values there are 0, so q's regrets are frozen too and
need not be held. When a catch-up lets p come again, q's regrets below the topmost such
node are rebuilt as eqs. (7)–(8) rebuild p's: from a CBR against p's average strategy
(R(J, b) = W_T·(CBV(J, b) − CBV(J)), Σ_t w_t·v^t(J) = W_T·CBV(J)), the warm start the seed
uses for p, here applied to q; q's regrets above are untouched, as the seed leaves the
pruning player's other actions. For CFR+ that restart at a pure best response stalls the
solve (floored regrets follow it), so its regrets there instead resume q's average strategy
at the size RM+ regrets reach (√T·π̄(J)·(U − L)), a heuristic measured in BENCHMARKS.md.
Leduc-5's CFR then holds a tenth of the regrets Total RBP alone holds, CFR+ a sixth, both
at a cost in convergence (BENCHMARKS.md, "Regret-based pruning").

Memory. Storage blocks are laid out in depth-first preorder (each subtree contiguous);
:meth:`RegretPruning.held_bytes` counts the regret and strategy-sum bytes the solver still
needs — every block minus the owner's regret blocks inside Total-RBP-pruned subtrees (and,
with ``free_opponent``, the other player's where the owner never comes) and the owner's sum
blocks released by the threshold — plus this module's own bookkeeping. The flat
arrays themselves stay allocated; the count is what a solver allocating blocks on demand
would hold, as the paper reports.

Deviations, stated: interval RBP prunes per (node, action) for all hands, not per infoset,
so it prunes less than the paper's scalar CFR (Total RBP is per infoset); when every
unpruned action has non-positive regret for a hand, regret matching plays uniformly over the
unpruned actions only; interval RBP is offered for plain CFR only (CFR+'s floor does not
commute with a batched catch-up); Total RBP's sums threshold drops only the pruning player's
sums (the opponent's, below a pruned action, are frozen but kept, as the exploitability of
its average still needs them). Both forms need one solver thread.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from solver.cfr.kernels import (
    MODE_BR,
    MODE_UPDATE,
    Scratch,
    Storage,
    _fold_values,
    _traverse,
    no_leaves,
    normalize_strategy,
)
from solver.cfr.rules import (
    AVG_WEIGHT,
    DECAY,
    NOSTART,
    NUM_COEFFICIENTS,
    PRUNE_INTERVAL,
    PRUNE_TOTAL,
    RECORD,
    REGRET_WEIGHT,
)
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Boards, Game, Hands, Tree
from solver.jit import kernel

if TYPE_CHECKING:
    from solver.cfr.engine import Engine

Array = npt.NDArray[np.float64]

INTERVAL_RULES = ("cfr",)
TOTAL_RULES = ("cfr", "cfr+")
LEAF_OFF = 0


# ----- bounds of the game: U(I, a), L(I), π_max(I) ---------------------------------------
def payoff_bounds(game: Game) -> tuple[Array, Array]:
    """(umax, lmin), both (N,): ``umax[c]`` = max(0, the most the player acting at ``c``'s
    parent can win in ``c``'s subtree); ``lmin[n]`` = min(0, the least the player acting at
    decision node ``n`` can get below it). Chips, per deal (counterfactual values are these
    times the opponent's reach)."""
    t = game.tree
    n = game.num_nodes
    hi = np.full((n, 2), -math.inf)
    lo = np.full((n, 2), math.inf)
    for node in range(n - 1, -1, -1):  # children have larger indices than their parent
        kind = t.kind[node]
        if kind == FIXED:
            x = float(t.payoff[node])
            hi[node] = lo[node] = (x, -x)
        elif kind in (SHOWDOWN, RUNOUT):
            x = float(t.payoff[node])
            hi[node] = (x, x)
            lo[node] = (-x, -x)
        else:
            kids = game.children(node)
            hi[node] = hi[kids.start : kids.stop].max(axis=0)
            lo[node] = lo[kids.start : kids.stop].min(axis=0)
    umax = np.zeros(n)
    lmin = np.zeros(n)
    parents = game.parents
    for node in range(1, n):
        p = int(t.player[parents[node]])
        if p >= 0:
            umax[node] = max(hi[node, p], 0.0)
    for node in game.decision_nodes():
        lmin[node] = min(lo[node, int(t.player[node])], 0.0)
    return umax, lmin


def chance_factors(game: Game) -> Array:
    """(N,): the deal normaliser times the chance weights on the path to each node."""
    t = game.tree
    out = np.empty(game.num_nodes)
    out[0] = game.hands.norm
    parents = game.parents
    for node in range(1, game.num_nodes):
        par = parents[node]
        out[node] = out[par] * (t.chance_weight[node] if t.kind[par] == CHANCE else 1.0)
    return out


@kernel
def _pimax_kernel(
    tree: Tree, hands: Hands, boards: Boards, cf: Array, out: Array, cs: Array, buf: Array
) -> None:
    """out[ioffset(n) + h] = the opponent reach infoset (n, h) gets when the opponent plays
    every hand of its range to n: cf[n] × Σ compatible weights (``buf`` (2, H) scratch)."""
    for node in range(tree.kind.shape[0]):
        if tree.kind[node] != DECISION:
            continue
        p = tree.player[node]
        opp = 1 - p
        b = tree.board[node]
        for j in range(hands.num_hands[opp]):
            buf[0, j] = hands.weights[opp, j] * boards.valid[b, opp, j]
        _fold_values(hands, boards, b, p, cf[node], buf, np.int64(0), buf, np.int64(1), cs)
        ioff = tree.ioffset[node]
        for h in range(hands.num_hands[p]):
            out[ioff + h] = buf[1, h]


def max_opponent_reach(game: Game) -> Array:
    """(info_size,): π_max(I), the largest opponent reach (chance included) each infoset
    can have: an upper bound on π^t(I) whatever the opponent plays."""
    out = np.zeros(max(game.info_size, 1))
    h = int(max(game.hands.cards.shape[1], 1))
    _pimax_kernel(
        game.tree,
        game.hands,
        game.boards,
        chance_factors(game),
        out,
        np.zeros(2 * max(game.hands.num_cards, 1)),
        np.zeros((2, h)),
    )
    return out


@kernel
def _subtree_ranges(tree: Tree, hands: Hands) -> npt.NDArray[np.int64]:
    """(N, 4): per node, the ``[action, hand]`` cells (columns 0–1, start and end) and the
    infosets (columns 2–3) of the decision nodes in its subtree, as the smallest ranges
    holding them all (empty when none; ranges may also hold other cells)."""
    n = tree.kind.shape[0]
    big = np.iinfo(np.int64).max
    out = np.empty((n, 4), dtype=np.int64)
    out[:, 0] = big
    out[:, 1] = 0
    out[:, 2] = big
    out[:, 3] = 0
    for node in range(n - 1, -1, -1):  # children have larger indices than their parent
        if tree.kind[node] == DECISION:
            nh = hands.num_hands[tree.player[node]]
            na = tree.num_children[node]
            off = tree.offset[node]
            ioff = tree.ioffset[node]
            out[node, 0] = min(out[node, 0], off)
            out[node, 1] = max(out[node, 1], off + na * nh)
            out[node, 2] = min(out[node, 2], ioff)
            out[node, 3] = max(out[node, 3], ioff + nh)
        fc = tree.first_child[node]
        if fc < 0:
            continue
        for c in range(fc, fc + tree.num_children[node]):
            out[node, 0] = min(out[node, 0], out[c, 0])
            out[node, 1] = max(out[node, 1], out[c, 1])
            out[node, 2] = min(out[node, 2], out[c, 2])
            out[node, 3] = max(out[node, 3], out[c, 3])
    for node in range(n):
        if out[node, 0] == big:
            out[node, 0] = 0
            out[node, 2] = 0
    return out


# ----- kernels -------------------------------------------------------------------------------
@kernel
def _walk(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    node: int,
    trav: int,
    mode: int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    opp_reach: Array,
) -> int:
    """A pass for ``trav`` over the subtree of ``node`` given the opponent's reach there;
    values at ``node`` land in ``sc.value[0]``; returns the nodes visited. (Regret-based
    pruning reads the traverser's live hands from ``sc.live[0]``.)"""
    for j in range(hands.num_hands[1 - trav]):
        sc.reach[0, j] = opp_reach[j]
    return _traverse(
        tree, hands, boards, node, trav, mode, sigma, st, co, sc, no_leaves(), np.int64(LEAF_OFF)
    )


@kernel
def _compatible_mass(
    hands: Hands, boards: Boards, b: int, trav: int, reach: Array, cs: Array, buf: Array
) -> Array:
    """Per ``trav`` hand: the opponent reach (``reach``, (H,)) of the hands it can meet on
    board ``b``."""
    for j in range(reach.shape[0]):
        buf[0, j] = reach[j]
    _fold_values(hands, boards, b, trav, 1.0, buf, np.int64(0), buf, np.int64(1), cs)
    return buf[1, : hands.num_hands[trav]].copy()


@kernel
def _dead_hands(
    tree: Tree, hands: Hands, pruned: npt.NDArray[np.int8], player: int
) -> npt.NDArray[np.int8]:
    """(N, H): 1 where ``player``'s hand h is inside a subtree pruned for it higher up (an
    ancestor ``player`` cell (action, h) is pruned)."""
    n = tree.kind.shape[0]
    nh = hands.num_hands[player]
    dead = np.zeros((n, max(nh, 1)), dtype=np.int8)
    for node in range(n):  # parents come first
        fc = tree.first_child[node]
        if fc < 0:
            continue
        own = tree.kind[node] == DECISION and tree.player[node] == player
        off = tree.offset[node]
        for k in range(tree.num_children[node]):
            c = fc + k
            for h in range(nh):
                x = dead[node, h]
                if own and pruned[off + k * nh + h] != 0:
                    x = 1
                dead[c, h] = x
    return dead


@kernel
def _blocked_nodes(
    tree: Tree, hands: Hands, boards: Boards, pruned: npt.NDArray[np.int8], player: int
) -> npt.NDArray[np.int8]:
    """(N,): 1 at the nodes ``player`` never reaches while pruned — every hand the board
    leaves possible there is inside a subtree pruned for it higher up (at least one such
    hand; the root never). The other player's regrets there are frozen (its counterfactual
    values are 0) and, under Total RBP, rebuilt when the node is reached again."""
    n = tree.kind.shape[0]
    dead = _dead_hands(tree, hands, pruned, player)
    nh = hands.num_hands[player]
    out = np.zeros(n, dtype=np.int8)
    for node in range(1, n):
        valid = boards.valid[tree.board[node], player]
        seen = False
        alive = False
        for h in range(nh):
            if valid[h] != 0.0:
                seen = True
                if dead[node, h] == 0:
                    alive = True
                    break
        if seen and not alive:
            out[node] = 1
    return out


@kernel
def _total_starts(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    st: Storage,
    T: float,
    player: int,
    margin: float,
    floor: bool,
) -> int:
    """Total RBP, eq. (5), per infoset: prune cell (I, a) of ``player`` when
    T·CBV(I,a) ≤ Σ_t v^t(I), a is not the hand's best action, the bound holds one iteration
    ahead and the hand is not inside a subtree already pruned for it; the cell then holds the
    bound T·CBV(I,a). With ``margin`` > 0 the bound must keep a slack of that many
    iterations at the opponent's average reach (T·CBV + margin·π̄(I)·(U − L) < Σ_t v^t(I)).
    Reads ``st.cbv`` (a RECORD best-response pass); returns the cells pruned."""
    n = tree.kind.shape[0]
    dead = _dead_hands(tree, hands, st.pruned, player)
    count = 0
    nh = hands.num_hands[player]
    for node in range(n):
        if tree.kind[node] != DECISION or tree.player[node] != player:
            continue
        fc = tree.first_child[node]
        na = tree.num_children[node]
        off = tree.offset[node]
        ioff = tree.ioffset[node]
        valid = boards.valid[tree.board[node], player]
        low = st.lmin[node]
        for h in range(nh):
            if valid[h] == 0.0 or dead[node, h] != 0:
                continue
            vs = st.vsum[ioff + h]
            pm = st.reach_mass[ioff + h]
            best = st.cbv[off + h]
            for a in range(1, na):
                best = max(best, st.cbv[off + a * nh + h])
            for k in range(na):
                i = off + k * nh + h
                if st.pruned[i] != 0 or st.cbv[i] >= best:
                    continue
                if floor and st.regrets[i] > 0.0:
                    continue  # CFR+ plays it now: pruning would change what it plays
                x = T * st.cbv[i]
                if x + margin * pm * (st.umax[fc + k] - low) < vs:
                    st.pruned[i] = 1
                    st.regrets[i] = x
                    count += 1
    return count


@kernel
def _total_reset(
    tree: Tree,
    hands: Hands,
    st: Storage,
    child: int,
    player: int,
    T: float,
    floor: bool,
    mask: Array,
    avg: Array,
    scale: float,
    stack: npt.NDArray[np.int64],
    nodes: npt.NDArray[np.int64],
) -> None:
    """Total RBP, eqs. (7)–(8), inside the subtree of ``child`` for the hands with
    ``mask[h]`` = 1: each ``player`` infoset's regrets become T·(CBV(I',a') − CBV(I')) and
    Σ_t v^t(I') = T·CBV(I') (from ``st.cbv``, ``st.cbv_node``); their pruned cells inside
    are released. With ``scale`` > 0 the regrets instead resume the average strategy
    ``avg`` at scale·π̄(I')·(U − L) — π̄ the opponent reach of the RECORD pass
    (``st.reach_mass``), U − L the infoset's payoff range: CFR+'s restart where the
    free-opponent option reopens a region, the size RM+ regrets have after about scale²
    iterations (the value sums still come from the CBR). ``stack`` and ``nodes`` are (N,)
    scratch."""
    nh = hands.num_hands[player]
    for q in range(_player_nodes(tree, child, player, stack, nodes)):
        node = nodes[q]
        na = tree.num_children[node]
        off = tree.offset[node]
        ioff = tree.ioffset[node]
        fc = tree.first_child[node]
        top = 0.0
        for k in range(na):
            top = max(top, st.umax[fc + k])
        width = top - st.lmin[node]
        for h in range(nh):
            if mask[h] == 0.0:
                continue
            st.vsum[ioff + h] = T * st.cbv_node[ioff + h]
            if scale > 0.0:
                size = scale * st.reach_mass[ioff + h] * width
                for a in range(na):
                    i = off + a * nh + h
                    st.pruned[i] = 0
                    st.regrets[i] = avg[i] * size
                continue
            best = 0
            for a in range(na):
                i = off + a * nh + h
                st.pruned[i] = 0
                x = T * (st.cbv[i] - st.cbv_node[ioff + h])
                st.regrets[i] = max(x, 0.0) if floor else x
                if st.cbv[i] > st.cbv[off + best * nh + h]:
                    best = a
            # the CBR itself, not uniform play: its action gets a regret just above 0
            # (the paper allows a near-CBR; a regret of exactly 0 everywhere would make
            # regret matching play uniformly until the next update)
            i = off + best * nh + h
            st.regrets[i] = max(st.regrets[i], 1e-9 * abs(T * st.cbv_node[ioff + h]))


@kernel
def _player_nodes(
    tree: Tree,
    root: int,
    player: int,
    stack: npt.NDArray[np.int64],
    out: npt.NDArray[np.int64],
) -> int:
    """``player``'s decision nodes in the subtree of ``root`` (root included) into ``out``;
    returns how many. ``stack`` and ``out`` hold (N,)."""
    count = 0
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        fc = tree.first_child[node]
        if fc < 0:
            continue
        if tree.kind[node] == DECISION and tree.player[node] == player:
            out[count] = node
            count += 1
        for k in range(tree.num_children[node]):
            stack[top] = fc + k
            top += 1
    return count


@kernel
def _release_sums(
    tree: Tree,
    hands: Hands,
    st: Storage,
    avg: Array,
    player: int,
    limit: float,
    freed: npt.NDArray[np.int8],
) -> int:
    """Total RBP's space for the average: for every pruned ``player`` cell (I, a) (hand not
    pruned higher up) whose average reach π_i^{σ̄}(I)·σ̄(I,a) ≤ ``limit``, set σ̄(I,a) ← 0 and
    drop the hand's sums inside the action's subtree (``freed`` (A,) marks the cell).
    Returns the cells released."""
    n = tree.kind.shape[0]
    nh = hands.num_hands[player]
    reach = np.ones((n, max(nh, 1)))  # own reach of each hand under the average
    dead = _dead_hands(tree, hands, st.pruned, player)
    stack = np.empty(n, dtype=np.int64)
    nodes = np.empty(n, dtype=np.int64)
    count = 0
    for node in range(n):
        fc = tree.first_child[node]
        if fc < 0:
            continue
        na = tree.num_children[node]
        own = tree.kind[node] == DECISION and tree.player[node] == player
        off = tree.offset[node]
        for k in range(na):
            c = fc + k
            for h in range(nh):
                x = reach[node, h]
                if own:
                    x *= avg[off + k * nh + h]
                reach[c, h] = x
            if not own:
                continue
            for h in range(nh):
                i = off + k * nh + h
                if st.pruned[i] == 0 or freed[i] != 0 or dead[node, h] != 0:
                    continue
                if reach[c, h] > limit:
                    continue
                freed[i] = 1
                count += 1
                st.cumulative[i] = 0
                for q in range(_player_nodes(tree, c, player, stack, nodes)):
                    nd = nodes[q]
                    o = tree.offset[nd]
                    for a in range(tree.num_children[nd]):
                        st.cumulative[o + a * nh + h] = 0
    return count


@kernel
def _held_blocks(
    tree: Tree,
    hands: Hands,
    st: Storage,
    regrets_freed: bool,
    sums_freed: npt.NDArray[np.int8],
    blocked: npt.NDArray[np.int8],
) -> tuple[int, int]:
    """(regret entries, sum entries) still needed: every ``[action, hand]`` cell, less the
    cells of a hand inside a subtree pruned for it (``regrets_freed``: Total RBP rebuilds
    them), every cell of a player at the nodes ``blocked`` (2, N) marks for the other one
    (also only with ``regrets_freed``) and the cells whose sums were released
    (``sums_freed`` (A,) at the pruned cell)."""
    n = tree.kind.shape[0]
    r_held = 0
    s_held = 0
    for p in range(2):
        nh = hands.num_hands[p]
        dead_r = np.zeros((n, max(nh, 1)), dtype=np.int8)
        dead_s = np.zeros((n, max(nh, 1)), dtype=np.int8)
        for node in range(n):
            fc = tree.first_child[node]
            own = tree.kind[node] == DECISION and tree.player[node] == p
            if own:
                na = tree.num_children[node]
                gone = regrets_freed and blocked[1 - p, node] != 0
                for h in range(nh):
                    if dead_r[node, h] == 0 and not gone:
                        r_held += na
                    if dead_s[node, h] == 0:
                        s_held += na
            if fc < 0:
                continue
            off = tree.offset[node]
            for k in range(tree.num_children[node]):
                c = fc + k
                for h in range(nh):
                    xr = dead_r[node, h]
                    xs = dead_s[node, h]
                    if own:
                        i = off + k * nh + h
                        if regrets_freed and st.pruned[i] != 0:
                            xr = 1
                        if sums_freed[i] != 0:
                            xs = 1
                    dead_r[c, h] = xr
                    dead_s[c, h] = xs
    return r_held, s_held


@kernel
def _own_reach(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    parents: npt.NDArray[np.int64],
    sigma: Array,
    node: int,
    player: int,
    out: Array,
) -> None:
    """out[:H[player]] ← ``player``'s reach at ``node`` under ``sigma``: range weights times
    the player's action probabilities on the path, zeroed where a dealt card blocks the
    hand (chance probabilities not included; :func:`solver.cfr.engine.path_reach`)."""
    nh = hands.num_hands[player]
    for h in range(nh):
        out[h] = hands.weights[player, h]
    c = node
    while c > 0:
        par = parents[c]
        if tree.kind[par] == DECISION and tree.player[par] == player:
            base = tree.offset[par] + (c - tree.first_child[par]) * nh
            for h in range(nh):
                out[h] *= sigma[base + h]
        elif tree.kind[par] == CHANCE:
            b = tree.board[c]
            for h in range(nh):
                out[h] *= boards.valid[b, player, h]
        c = par


@kernel
def _total_rebuild(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    parents: npt.NDArray[np.int64],
    st: Storage,
    sc: Scratch,
    co: Array,
    avg: Array,
    cf: Array,
    ranges: npt.NDArray[np.int64],
    children: npt.NDArray[np.int64],
    masks: Array,
    T: float,
    floor: bool,
    sums_freed: npt.NDArray[np.int8],
) -> int:
    """Total RBP's catch-up, eqs. (7)–(8), for each requested child (parents first: an
    enclosing catch-up releases nested ones) and the hands of its row of ``masks`` still
    pruned there: a counterfactual best response against the average ``avg`` inside the
    child's subtree (``co`` has RECORD set), whose values rebuild every regret below; the
    action's own regret becomes T·CBV(I, a) − Σ_t v^t(I) (CFR+: 0, where its floor held it
    while pruned). Releases the cells and forgets their released-sums marks. Returns the
    nodes touched."""
    n = tree.kind.shape[0]
    stack = np.empty(n, dtype=np.int64)
    nodes = np.empty(n, dtype=np.int64)
    hmax = sc.reach.shape[1]
    mask = np.zeros(hmax)
    touched = 0
    for q in range(children.shape[0]):
        child = children[q]
        node = parents[child]
        p = tree.player[node]
        opp = 1 - p
        nh = hands.num_hands[p]
        k = child - tree.first_child[node]
        base = tree.offset[node] + k * nh
        any_on = False
        for h in range(nh):
            on = masks[q, h] != 0.0 and st.pruned[base + h] != 0
            mask[h] = 1.0 if on else 0.0
            any_on |= on
        if not any_on:
            continue
        _own_reach(tree, hands, boards, parents, avg, node, opp, sc.reach[0])
        for j in range(hands.num_hands[opp]):
            sc.reach[0, j] *= cf[node]
        st.cbv[ranges[child, 0] : ranges[child, 1]] = 0.0  # the walk writes what it visits
        st.cbv_node[ranges[child, 2] : ranges[child, 3]] = 0.0
        touched += _traverse(tree, hands, boards, child, p, MODE_BR, avg, st, co, sc,
                             no_leaves(), np.int64(LEAF_OFF))  # fmt: skip
        _total_reset(tree, hands, st, child, p, T, floor, mask, avg, 0.0, stack, nodes)
        ioff = tree.ioffset[node]
        count = _player_nodes(tree, child, p, stack, nodes)
        for h in range(nh):
            if mask[h] == 0.0:
                continue
            st.regrets[base + h] = 0.0 if floor else T * sc.value[0, h] - st.vsum[ioff + h]
            st.pruned[base + h] = 0
            sums_freed[base + h] = 0
            for r in range(count):  # the released-sums marks below (rebuilt)
                nd = nodes[r]
                o = tree.offset[nd]
                for a in range(tree.num_children[nd]):
                    sums_freed[o + a * nh + h] = 0
    return touched


# ----- the engine's side -------------------------------------------------------------------
class RegretPruning:
    """The interval or Total RBP state of one :class:`~solver.cfr.engine.Engine` and the
    work it does between iterations (catch-ups, Total RBP's checks).

    ``check_every``: iterations between Total RBP's prune checks (each costs a best-response
    pass per player, counted in nodes touched); ``threshold``: the constant C of the sums
    release (0 keeps every sum); ``max_windows``: interval RBP's window slots (each holds one
    opponent-reach vector; a new window waits for a free slot); ``margin``: the iterations a
    pruning must be able to last when it starts (default: ``check_every`` for interval RBP,
    0 — the seed's eq. (5) — for Total RBP); ``free_opponent``: Total RBP also frees the
    other player's regrets at the nodes the pruning player never reaches while pruned, and
    rebuilds them from a CBR when it comes back (our extension; see the module notes)."""

    def __init__(
        self,
        engine: Engine,
        mode: str,
        check_every: int = 10,
        threshold: float = 0.0,
        max_windows: int | None = None,
        margin: float | None = None,
        free_opponent: bool = False,
    ) -> None:
        game = engine.game
        rule = engine.rule.name
        allowed = INTERVAL_RULES if mode == "interval" else TOTAL_RULES
        if rule not in allowed:
            raise ValueError(
                f"pruning {mode!r} works with {' or '.join(allowed)} (regret matching on "
                f"summed regrets), not {rule!r}; use pruning 'partial'"
            )
        if engine.threads != 1:
            raise ValueError(f"pruning {mode!r} needs threads=1")
        if engine.precision == "compressed":
            raise ValueError(f"pruning {mode!r} needs float32 or float64 storage")
        if check_every < 1:
            raise ValueError("check_every must be ≥ 1")
        if not threshold >= 0:
            raise ValueError("threshold must be ≥ 0")
        if free_opponent and mode != "total":
            raise ValueError("freeing the opponent's regrets needs pruning 'total'")
        h = int(max(game.hands.cards.shape[1], 1))
        if threshold > 0 and game.num_nodes * h * 8 > 512 * 2**20:
            raise ValueError("threshold > 0 needs nodes × hands × 8 bytes ≤ 512 MiB; use 0")
        self.engine = engine
        self.mode = mode
        self.code = PRUNE_INTERVAL if mode == "interval" else PRUNE_TOTAL
        self.check_every = check_every
        # interval RBP starts a window only when it can last ``check_every`` iterations;
        # Total RBP prunes on eq. (5) as the seed states it (slack 0): a slack of 10
        # iterations held Leduc-5's CFR at 66 % of the regrets after 10,000 iterations
        # against 40 % without, at the same exploitability (BENCHMARKS.md)
        if margin is None:
            margin = float(check_every) if mode == "interval" else 0.0
        self.margin = float(margin)
        self.threshold = threshold
        n = game.num_nodes
        umax, lmin = payoff_bounds(game)
        if max_windows is None:
            max_windows = max(1, min(n, (game.action_size // h) // 4 + 8))
        slots = max_windows if mode == "interval" else 1
        free = np.zeros(slots + 1, dtype=np.int32)
        if mode == "interval":
            free[0] = slots
            free[1:] = np.arange(slots, dtype=np.int32)
        total = mode == "total"
        self.sums_freed = np.zeros(game.action_size if total else 1, dtype=np.int8)
        engine.storage = engine.storage._replace(
            pruned=np.zeros(game.action_size, dtype=np.int8),
            vsum=np.zeros(game.info_size if total else 1),
            umax=umax,
            lmin=lmin,
            pimax=max_opponent_reach(game) if not total else np.zeros(1),
            win_slot=np.full(n, -1, dtype=np.int32),
            win=np.zeros((slots, h)),
            free=free,
            ctl=np.zeros(2 * game.action_size + 2 * n + 1, dtype=np.int64),
        )
        self.catchups = 0
        self.starts = 0
        self.released = 0
        self._wsum = (0, 0.0)  # (T, W_T): the average's weights summed to iteration T
        self.free_opponent = bool(free_opponent)
        self._blocked = np.zeros((2, n), dtype=np.int8)  # _blocked_nodes per player
        self._cf = chance_factors(game)  # per node, for the catch-ups' opponent reach
        self._ranges = _subtree_ranges(game.tree, game.hands)

    # --- hooks called by the engine ---------------------------------------------------------
    def chunk(self, iteration: int, n: int) -> int:
        """How many of the next ``n`` iterations to run before the next Total RBP check."""
        if self.mode != "total":
            return n
        to_check = self.check_every - iteration % self.check_every
        return min(n, to_check)

    def after(self, iteration: int) -> int:
        """Work after a chunk ending at ``iteration``: catch-ups the kernel asked for, then
        (Total RBP, on its schedule) a prune check. Returns the nodes touched doing it."""
        touched = self._catch_up(iteration)
        if self.mode == "total" and iteration % self.check_every == 0:
            touched += self._check(iteration)
            if self.free_opponent:
                self.sync_blocked()
        return touched

    # --- work -------------------------------------------------------------------------------
    def _requests(self) -> dict[int, set[int]]:
        """The catch-ups the kernel asked for: child → hands (-1: every hand)."""
        st = self.engine.storage
        count = int(st.ctl[0])
        out: dict[int, set[int]] = {}
        for r in range(count):
            out.setdefault(int(st.ctl[2 * r + 1]), set()).add(int(st.ctl[2 * r + 2]))
        st.ctl[0] = 0
        return out

    def _catch_up(self, iteration: int) -> int:
        touched = 0
        while True:  # an interval catch-up walk can ask for nested catch-ups
            req = self._requests()
            if not req:
                return touched
            self.catchups += sum(len(v) for v in req.values())
            if self.mode == "interval":
                touched += sum(self._interval_catchup(c, iteration) for c in sorted(req))
            else:
                touched += self._total_catchup(req, iteration)

    def _interval_catchup(self, child: int, iteration: int) -> int:
        """One CFR update of the child's subtree against the opponent reach summed over its
        window; the action's regret R = bound − U·Σπ + Σ v(I, a)."""
        eng = self.engine
        g = eng.game
        t = g.tree
        st = eng.storage
        slot = int(st.win_slot[child])
        if slot < 0:
            return 0
        node = int(g.parents[child])
        p = int(t.player[node])
        k = child - int(t.first_child[node])
        window = st.win[slot].copy()
        co = eng.coefficients(np.array([float(iteration + 1)]))[0].copy()
        co[REGRET_WEIGHT] = 1.0  # the window's reach already carries each iteration's weight
        co[AVG_WEIGHT] = 1.0
        co[DECAY] = 1.0
        co[NOSTART] = 1.0
        sc = eng.scratch
        sc.live[0, :] = 1.0
        touched = int(
            _walk(t, g.hands, g.boards, child, p, MODE_UPDATE, st.strategy, st, co, sc, window)
        )
        values = sc.value[0, : g.num_hands[p]].copy()
        mass = self._mass(node, p, window)
        off, _na, nh = g.block(node)
        cells = slice(off + k * nh, off + (k + 1) * nh)
        valid = g.valid_hands(node, p)
        bound = np.asarray(st.regrets[cells], dtype=np.float64)
        st.regrets[cells] = np.where(valid, bound - st.umax[child] * mass + values, 0.0)
        st.pruned[cells] = 0
        st.win_slot[child] = -1
        st.free[0] += 1
        st.free[st.free[0]] = slot
        return touched

    def _mass(self, node: int, player: int, reach: Array) -> Array:
        g = self.engine.game
        h = int(max(g.hands.cards.shape[1], 1))
        full = np.zeros(h)
        full[: reach.shape[0]] = reach
        return _compatible_mass(
            g.hands,
            g.boards,
            int(g.tree.board[node]),
            player,
            full,
            np.zeros(2 * max(g.hands.num_cards, 1)),
            np.zeros((2, h)),
        )

    def _open_record(self) -> Storage:
        """Give the storage the arrays a RECORD pass fills (held only during Total RBP's
        checks and catch-ups, so they add nothing to the memory the solve holds)."""
        g = self.engine.game
        st = self.engine.storage._replace(
            cbv=np.zeros(g.action_size),
            cbv_node=np.zeros(g.info_size),
            reach_mass=np.zeros(g.info_size),
        )
        self.engine.storage = st
        return st

    def _close_record(self) -> None:
        one = np.zeros(1)
        self.engine.storage = self.engine.storage._replace(
            cbv=one, cbv_node=one.copy(), reach_mass=one.copy()
        )

    def _record(self, sigma: Array, player: int, node: int, opp_reach: Array) -> int:
        """A best-response pass for ``player`` from ``node`` recording CBVs into the
        storage's ``cbv`` arrays (zeroed first: what the walk skips has CBV 0)."""
        eng = self.engine
        g = eng.game
        co = np.zeros(NUM_COEFFICIENTS)
        co[RECORD] = 1.0
        full = np.zeros(int(max(g.hands.cards.shape[1], 1)))
        full[: opp_reach.shape[0]] = opp_reach
        st = eng.storage
        a0, a1, i0, i1 = (int(x) for x in self._ranges[node])
        st.cbv[a0:a1] = 0.0  # the walk writes what it visits; the rest of the subtree is 0
        st.cbv_node[i0:i1] = 0.0
        sc = eng._eval_scratch
        return int(_walk(g.tree, g.hands, g.boards, node, player, MODE_BR, sigma, st, co, sc, full))

    def _average(self) -> Array:
        g = self.engine.game
        out = np.empty(g.action_size)
        normalize_strategy(g.tree, g.hands, self.engine.storage.cumulative, out)
        return out

    def weight_sum(self, iteration: int) -> float:
        """W_T = Σ_{t≤T} w_t, the average strategy's weights (w_t = 1 for CFR, t for CFR+):
        Total RBP's sums Σ_t w_t·v^t(I) and bounds are in these units, and eqs. (5)–(8) use
        W_T where the seed (uniform weights) has T."""
        done, total = self._wsum
        if iteration < done:
            done, total = 0, 0.0
        if iteration > done:
            t = np.arange(done + 1, iteration + 1, dtype=np.float64)
            total += float(self.engine.rule.coefficients(t)[:, AVG_WEIGHT].sum())
        self._wsum = (iteration, total)
        return total

    def _total_catchup(self, req: dict[int, set[int]], iteration: int) -> int:
        """Eqs. (7)–(8): rebuild each requested (action, hand)'s subtree from a CBR against
        the opponent's average strategy, with W_T (:meth:`weight_sum`) for T."""
        eng = self.engine
        avg = self._average()
        cf = self._cf
        floor = eng.rule.name == "cfr+"
        T = self.weight_sum(iteration)
        touched = 0
        st = self._open_record()
        try:
            touched = self._rebuild(req, avg, cf, floor, T, st)
            if self.free_opponent:
                touched += self._reopen(avg, cf, floor, T, st)
        finally:
            self._close_record()
        return touched

    def sync_blocked(self) -> npt.NDArray[np.int8]:
        """Recompute the nodes each player never reaches (:func:`_blocked_nodes`, from the
        pruned flags); returns the previous state."""
        g = self.engine.game
        before = self._blocked.copy()
        for p in range(2):
            self._blocked[p] = _blocked_nodes(
                g.tree, g.hands, g.boards, self.engine.storage.pruned, p
            )
        return before

    def _reopen(self, avg: Array, cf: Array, floor: bool, T: float, st: Storage) -> int:
        """After catch-ups: where player p reaches a node again, the other player's
        regrets below it (not held while p never came) are rebuilt as eqs. (7)–(8) do for
        the pruning player: from a CBR against p's average strategy (value sums, and the
        regrets for CFR); for CFR+ the regrets instead resume the other player's average
        strategy (:func:`_total_reset` with a scale), which its floored, short-memory regrets
        need."""
        g = self.engine.game
        t = g.tree
        before = self.sync_blocked()
        touched = 0
        n = g.num_nodes
        stack = np.empty(n, dtype=np.int64)
        nodes = np.empty(n, dtype=np.int64)
        h = int(max(g.hands.cards.shape[1], 1))
        ones = np.ones(h)
        reach = np.zeros(h)
        # CFR+ resumes q's average instead of the CBR there (BENCHMARKS.md)
        scale = math.sqrt(self.engine.iteration) if floor else 0.0
        for p in range(2):
            opened = (before[p] != 0) & (self._blocked[p] == 0)
            if not opened.any():
                continue
            q = 1 - p
            for node in np.flatnonzero(opened):
                par = int(g.parents[node])
                if par >= 0 and opened[par]:
                    continue  # rebuilt from the top of the reopened region
                reach[:] = 0.0
                _own_reach(t, g.hands, g.boards, g.parents, avg, int(node), p, reach)
                reach *= cf[node]
                touched += self._record(avg, q, int(node), reach[: g.num_hands[p]])
                _total_reset(t, g.hands, st, int(node), q, T, floor, ones, avg, scale,
                             stack, nodes)  # fmt: skip
        return touched

    def _rebuild(
        self,
        req: dict[int, set[int]],
        avg: Array,
        cf: Array,
        floor: bool,
        T: float,
        st: Storage,
    ) -> int:
        eng = self.engine
        g = eng.game
        children = np.array(sorted(req), dtype=np.int64)
        masks = np.zeros((max(children.size, 1), int(max(g.hands.cards.shape[1], 1))))
        for q, child in enumerate(children):
            hands = req[int(child)]
            if -1 in hands:
                masks[q, :] = 1.0
            else:
                masks[q, sorted(hands)] = 1.0
        co = np.zeros(NUM_COEFFICIENTS)
        co[RECORD] = 1.0
        return int(
            _total_rebuild(g.tree, g.hands, g.boards, g.parents, st, eng._eval_scratch, co, avg,
                           cf, self._ranges, children, masks, T, floor, self.sums_freed)
        )  # fmt: skip

    def _check(self, iteration: int) -> int:
        """Eq. (5) for every unpruned cell of both players, then the sums release."""
        eng = self.engine
        g = eng.game
        T = self.weight_sum(iteration)
        if T <= 0.0:  # nothing averaged yet (CFR+ with a delay): nothing to compare with
            return 0
        avg = self._average()
        floor = eng.rule.name == "cfr+"
        # a slack of ``margin`` iterations, each weighing what iteration T does
        margin = self.margin * float(
            self.engine.rule.coefficients(np.array([float(iteration)]))[0, AVG_WEIGHT]
        )
        touched = 0
        st = self._open_record()
        try:
            for p in range(2):  # (a record pass keeps only its own player's values)
                root = g.hands.norm * g.hands.weights[1 - p, : g.num_hands[1 - p]]
                touched += self._record(avg, p, 0, root)
                self.starts += int(
                    _total_starts(g.tree, g.hands, g.boards, st, T, p, margin, floor)
                )
        finally:
            self._close_record()
        st = eng.storage
        if self.threshold > 0:
            limit = self.threshold / math.sqrt(iteration)
            for p in range(2):
                self.released += int(
                    _release_sums(g.tree, g.hands, st, avg, p, limit, self.sums_freed)
                )
        return touched

    def held_bytes(self) -> int:
        """Bytes of regrets and strategy sums still needed plus the pruning bookkeeping."""
        st = self.engine.storage
        r, s = self.held_entries()
        extra = sum(
            int(a.nbytes)
            for a in (st.pruned, st.vsum, st.umax, st.lmin, st.pimax, st.win_slot, st.win)
        )
        if self.free_opponent:
            extra += int(self._blocked.nbytes)
        return int(r * st.regrets.itemsize + s * st.cumulative.itemsize) + extra

    def held_entries(self) -> tuple[int, int]:
        """(regret entries, strategy-sum entries) still needed (each of ``action_size``)."""
        eng = self.engine
        freed = self.sums_freed
        if freed.shape[0] != eng.storage.pruned.shape[0]:
            freed = np.zeros(eng.storage.pruned.shape[0], dtype=np.int8)
        blocked = self._blocked if self.free_opponent else np.zeros_like(self._blocked)
        r, s = _held_blocks(
            eng.game.tree, eng.game.hands, eng.storage, self.mode == "total", freed, blocked
        )
        return int(r), int(s)

    def stats(self) -> dict[str, int]:
        st = self.engine.storage
        r, s = self.held_entries()
        return {
            "pruned_cells": int(np.count_nonzero(st.pruned)),
            "catchups": self.catchups,
            "starts": self.starts,
            "released": self.released,
            "regrets_held": r,
            "sums_held": s,
        }
