"""Best response, expected values and exploitability of any strategy profile: the walk of
:mod:`solver.cfr.walk` with ``max`` at the responder's nodes (``MODE_BR``) or the profile's
own mix (``MODE_EVAL``), from the root or from any node.

Exploitability = NashConv/2 = Σ_p [BR_p − u_p(σ)] / 2 in chips, BR_p the value of player
p's best response to the other's strategy and u_p(σ) p's value when both play σ. A game
without rake is zero-sum (u₀ + u₁ = 0), so that is (BR₀ + BR₁)/2 and the u_p are not computed
(the same numbers, bit for bit, as before rake); with a rake u₀ + u₁ = −(expected rake) and
both are computed (two evaluation passes more per check): :func:`distance`.
"""

from __future__ import annotations

from concurrent.futures import wait

import numpy as np
import numpy.typing as npt

from solver.cfr.drive import best_response_passes, run_pass
from solver.cfr.layout import (
    MODE_BR,
    MODE_EVAL,
    NO_DRAWS,
    Scratch,
    Storage,
    check_strategy,
    empty_leaves,
    game_arrays,
    make_scratch,
    pass_flags,
    placeholder_storage,
)
from solver.cfr.locks import Locks, no_locks
from solver.cfr.parallel import Parallel, beside, parallel_pass
from solver.cfr.protocol import Solver
from solver.cfr.pruning.state import no_rbp
from solver.cfr.reach import chance_factor, path_reach
from solver.cfr.rules import NUM_COEFFICIENTS
from solver.cfr.walk import AVERAGE, SolveState
from solver.games.model import Game

Array = npt.NDArray[np.float64]

# What a best-response or evaluation pass reads but never writes: made once (a Leduc check is
# a few tens of microseconds, and allocating these per pass cost a third of it).
_NO_STORAGE = placeholder_storage()
_NO_RBP = no_rbp()
_NO_LEAVES = {np.dtype(np.float64): empty_leaves(), np.dtype(np.float32): empty_leaves(np.float32)}
_NO_RULE = np.zeros(NUM_COEFFICIENTS)
_NO_LOCKS = no_locks()
_EVAL_STATE = SolveState(_NO_STORAGE, _NO_RBP, _NO_LOCKS)  # a pass against a given profile
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
        state = SolveState(st, _NO_RBP, lk)
        lv = _NO_LEAVES[sc.value.dtype]
        run_pass(game_arrays(game), state, 0, sigma, _NO_RULE, NO_DRAWS, fl, sc, lv)
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
    lk = locks if locks is not None else _NO_LOCKS
    state = SolveState(_NO_STORAGE, _NO_RBP, lk)
    lv = _NO_LEAVES[sc.value.dtype]
    run_pass(game_arrays(game), state, int(node), sigma, _NO_RULE, NO_DRAWS, fl, sc, lv)
    return sc.value[0, : game.num_hands[player]].copy()


def expected_values(game: Game, sigma: Array, locks: Locks | None = None) -> tuple[float, float]:
    """Each player's expected payoff (chips) when both play ``sigma`` (in the game with
    ``locks``: ``sigma`` should hold the locked mixes)."""
    out = []
    for p in range(2):
        v = root_player_values(game, sigma, p, best_response=False, locks=locks)
        out.append(float(np.dot(game.hands.weights[p, : v.shape[0]], v)))
    return out[0], out[1]


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
    Unsplit, both passes run in one kernel call (:func:`best_response_passes`); on two
    threads one pass each, side by side; on more, each pass split over them."""
    g = game
    if parallel is not None and parallel.threads == 2 and parallel.split_checks:
        # two passes on two threads: one each, unsplit, side by side (a split pass's task
        # claims and slot copies cost a small turn's check a sixth more work); the numbers
        # are the serial walk's either way
        sc = scratch if scratch is not None else make_scratch(g)
        other = parallel.scratches[1]
        if other.value.dtype != sc.value.dtype:
            other = make_scratch(g, sc.value.dtype.type)
        second = beside(root_player_values, g, sigma, 1, True, other, None, locks, storage)
        try:
            first = root_player_values(g, sigma, 0, True, sc, None, locks, storage)
        finally:
            wait([second])  # never leave a pass running on the scratch the next check takes
        values = [first, second.result()]
    elif parallel is not None and parallel.threads > 1 and parallel.split_checks:
        values = [
            root_player_values(g, sigma, p, True, scratch, parallel, locks, storage)
            for p in range(2)
        ]
    else:
        sigma, st = _profile(g, sigma, storage)
        sc = scratch if scratch is not None else make_scratch(g)
        lk = locks if locks is not None else _NO_LOCKS
        out = np.empty((2, max(g.num_hands[0], g.num_hands[1])))
        state = SolveState(st, _NO_RBP, lk)
        lv = _NO_LEAVES[sc.value.dtype]
        best_response_passes(game_arrays(g), state, sigma, _NO_RULE, NO_DRAWS, _BR_FLAGS[0], sc,
                             lv, out)  # fmt: skip
        values = [out[p, : g.num_hands[p]] for p in range(2)]
    w = g.hands.weights
    return (
        float(np.dot(w[0, : values[0].shape[0]], values[0])),
        float(np.dot(w[1, : values[1].shape[0]], values[1])),
    )


def distance(game: Game, br: tuple[float, float], ev: tuple[float, float] | None = None) -> float:
    """NashConv/2 in chips from (BR₀, BR₁) and, in a raked game, each player's value
    ``ev`` = (u₀, u₁) under the same profile: Σ_p [BR_p − u_p] / 2. Unraked (zero-sum):
    (BR₀ + BR₁)/2, ``ev`` unused."""
    if not game.has_rake:
        return 0.5 * (br[0] + br[1])
    if ev is None:
        raise ValueError("a raked game's exploitability needs the players' values")
    return 0.5 * ((br[0] - ev[0]) + (br[1] - ev[1]))


def measure(engine: Solver) -> tuple[float, tuple[float, float]]:
    """(NashConv/2, (BR₀, BR₁)) of ``engine``'s average strategy, in chips: its best
    responses, and in a raked game its players' values too (:func:`distance`)."""
    br = engine.best_response_values()
    ev = engine.expected_values() if engine.game.has_rake else None
    return distance(engine.game, br, ev), br


def exploitability(game: Game, sigma: Array, locks: Locks | None = None) -> float:
    """NashConv/2 in chips (:func:`distance`): (BR₀ + BR₁)/2 in a game without rake, locked
    or not (zero-sum); with a rake Σ_p [BR_p − u_p(σ)] / 2."""
    br = best_response_values(game, sigma, locks=locks)
    ev = expected_values(game, sigma, locks) if game.has_rake else None
    return distance(game, br, ev)
