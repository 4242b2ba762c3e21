"""Best response, expected values and exploitability of any strategy profile: the walk of
:mod:`solver.cfr.walk` with ``max`` at the responder's nodes (``MODE_BR``) or the profile's
own mix (``MODE_EVAL``), from the root or from any node.

Exploitability = (BR₀ + BR₁)/2 (NashConv/2) in chips, BR_p the value of player p's best
response to the other's strategy (the games are zero-sum).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.layout import (
    MODE_BR,
    MODE_EVAL,
    NO_DRAWS,
    Leaves,
    PassFlags,
    Scratch,
    Storage,
    check_strategy,
    empty_leaves,
    make_scratch,
    pass_flags,
    placeholder_storage,
)
from solver.cfr.locks import Locks, no_locks
from solver.cfr.parallel import Parallel, parallel_pass
from solver.cfr.pruning.state import RBPState, no_rbp
from solver.cfr.reach import chance_factor, path_reach
from solver.cfr.rules import NUM_COEFFICIENTS
from solver.cfr.walk import AVERAGE, run_pass
from solver.games.model import Boards, Game, Hands, Tree
from solver.jit import inline_kernel, kernel

Array = npt.NDArray[np.float64]

# What a best-response or evaluation pass reads but never writes: made once (a Leduc check is
# a few tens of microseconds, and allocating these per pass cost a third of it).
_NO_STORAGE = placeholder_storage()
_NO_RBP = no_rbp()
_NO_LEAVES = {np.dtype(np.float64): empty_leaves(), np.dtype(np.float32): empty_leaves(np.float32)}
_NO_RULE = np.zeros(NUM_COEFFICIENTS)
_NO_LOCKS = no_locks()
_BR_FLAGS = (pass_flags(0, MODE_BR), pass_flags(1, MODE_BR))


def _profile(game: Game, sigma: Array, storage: Storage | None) -> tuple[Array, Storage]:
    """(σ, storage) a pass reads: :data:`AVERAGE` with the ``storage`` its sums are in, or a
    checked (A,) ``sigma`` with no storage."""
    if sigma is AVERAGE:
        if storage is None:
            raise ValueError("the average strategy needs the storage it is taken from")
        return sigma, storage
    return check_strategy(game, sigma), _NO_STORAGE


def root_player_values(
    game: Game,
    sigma: Array,
    player: int,
    best_response: bool,
    scratch: Scratch | None = None,
    parallel: Parallel | None = None,
    locks: Locks | None = None,
    storage: Storage | None = None,
) -> Array:
    """``player``'s counterfactual values (H[player],) at the root, chance of each deal
    included, when both play ``sigma`` (A,) or ``player`` best-responds to the other's part
    of it — in the game with ``locks`` (a best response keeps a locked infoset on its mix;
    ``sigma`` should hold the locked mixes there). ``sigma`` = :data:`AVERAGE` with a
    ``storage``: the average strategy of its sums, normalised node by node in the walk (the
    locked mixes applied), without building the (A,) array. The player's expected value is
    ``Σ_h weights[player, h] · values[h]``."""
    sigma, st = _profile(game, sigma, storage)
    fl = pass_flags(player, MODE_BR if best_response else MODE_EVAL)
    sc = scratch if scratch is not None else make_scratch(game)
    lk = locks if locks is not None else _NO_LOCKS
    if parallel is not None and parallel.threads > 1 and parallel.split_checks:
        parallel_pass(game, sigma, st, _NO_RBP, lk, _NO_RULE, NO_DRAWS, fl, sc, parallel)
    else:
        g = game
        run_pass(g.tree, g.hands, g.boards, 0, sigma, st, _NO_RBP, lk, _NO_RULE, NO_DRAWS, fl,
                 sc, _NO_LEAVES[sc.value.dtype])  # fmt: skip
    return sc.value[0, : game.num_hands[player]].copy()


def node_values(
    game: Game,
    sigma: Array,
    node: int,
    player: int,
    best_response: bool = False,
    locks: Locks | None = None,
) -> Array:
    """``player``'s counterfactual values (H[player],) at ``node``: chips, weighted by the
    opponent's reach and the chance of the deal, when both play ``sigma`` below the node
    (or ``player`` best-responds). Divide by the compatible opponent reach mass to get
    per-hand expected values."""
    sigma = check_strategy(game, sigma)
    opp = 1 - player
    sc = make_scratch(game)
    r = path_reach(game, sigma, node)[opp]
    sc.reach[0, :] = 0.0
    sc.reach[0, : r.shape[0]] = r * chance_factor(game, node)
    fl = pass_flags(player, MODE_BR if best_response else MODE_EVAL)
    g = game
    lk = locks if locks is not None else _NO_LOCKS
    run_pass(g.tree, g.hands, g.boards, int(node), sigma, _NO_STORAGE, _NO_RBP, lk, _NO_RULE,
             NO_DRAWS, fl, sc, _NO_LEAVES[sc.value.dtype])  # fmt: skip
    return sc.value[0, : game.num_hands[player]].copy()


def expected_values(game: Game, sigma: Array) -> tuple[float, float]:
    """Each player's expected payoff (chips) when both play ``sigma``."""
    out = []
    for p in range(2):
        v = root_player_values(game, sigma, p, best_response=False)
        out.append(float(np.dot(game.hands.weights[p, : v.shape[0]], v)))
    return out[0], out[1]


@inline_kernel
def _unread_pass_state() -> tuple[RBPState, Array, Array]:
    """What a best-response pass is handed but never reads: pruning state, a rule's row
    and chance draws (length-1 placeholders, as :func:`~solver.cfr.pruning.state.no_rbp`)."""
    f1 = np.zeros(1)
    rb = RBPState(
        np.zeros(1, dtype=np.int8), f1, f1.copy(), f1.copy(), f1.copy(),
        np.zeros(1, dtype=np.int32), np.zeros((1, 1)), np.zeros(1, dtype=np.int32),
        np.zeros(1, dtype=np.int64), f1.copy(), f1.copy(), f1.copy(),
    )  # fmt: skip
    return rb, np.zeros(NUM_COEFFICIENTS), np.zeros(4)


@kernel
def best_response_passes(
    tree: Tree, hands: Hands, boards: Boards, sigma: Array, st: Storage, lk: Locks,
    fl0: PassFlags, fl1: PassFlags, sc: Scratch, lv: Leaves, out: Array,
) -> None:  # fmt: skip
    """Both players' best-response passes from the root in one call (``fl0``, ``fl1``
    their flags; ``lv`` leaves with nothing cut): ``out[p, :H[p]]`` ← player p's root
    values, as :func:`root_player_values` gives them one call each. A check on a small game
    is a few dozen microseconds of walk; each call from Python adds ~15 µs."""
    rb, co, u = _unread_pass_state()
    run_pass(tree, hands, boards, 0, sigma, st, rb, lk, co, u, fl0, sc, lv)
    for h in range(hands.num_hands[0]):
        out[0, h] = sc.value[0, h]
    run_pass(tree, hands, boards, 0, sigma, st, rb, lk, co, u, fl1, sc, lv)
    for h in range(hands.num_hands[1]):
        out[1, h] = sc.value[0, h]


def best_response_values(
    game: Game,
    sigma: Array,
    scratch: Scratch | None = None,
    parallel: Parallel | None = None,
    locks: Locks | None = None,
    storage: Storage | None = None,
) -> tuple[float, float]:
    """(BR₀, BR₁): what each player's best response earns against the other's ``sigma``
    (in the game with ``locks``; :data:`AVERAGE` with ``storage``: its average strategy).
    Unsplit, both passes run in one kernel call (:func:`best_response_passes`)."""
    g = game
    if parallel is not None and parallel.threads > 1 and parallel.split_checks:
        values = [
            root_player_values(g, sigma, p, True, scratch, parallel, locks, storage)
            for p in range(2)
        ]
    else:
        sigma, st = _profile(g, sigma, storage)
        sc = scratch if scratch is not None else make_scratch(g)
        lk = locks if locks is not None else _NO_LOCKS
        out = np.empty((2, max(g.num_hands[0], g.num_hands[1])))
        best_response_passes(g.tree, g.hands, g.boards, sigma, st, lk, _BR_FLAGS[0],
                             _BR_FLAGS[1], sc, _NO_LEAVES[sc.value.dtype], out)  # fmt: skip
        values = [out[p, : g.num_hands[p]] for p in range(2)]
    w = g.hands.weights
    return (
        float(np.dot(w[0, : values[0].shape[0]], values[0])),
        float(np.dot(w[1, : values[1].shape[0]], values[1])),
    )


def exploitability(game: Game, sigma: Array, locks: Locks | None = None) -> float:
    """NashConv/2 = (BR₀ + BR₁)/2 in chips (the game, locked or not, is zero-sum)."""
    b0, b1 = best_response_values(game, sigma, locks=locks)
    return 0.5 * (b0 + b1)
