"""Certified bet-size simplification: from a grid of sizes, keep the ``k`` that matter at
each chosen node of one player and say exactly what the simplified player gives up against
an opponent who keeps every size (docs/sizes.md).

The method (issue 47):

1. **Superset solve** of the spot with the grid at the chosen nodes of both players.
2. **Removal regret** of a size ``s`` at a node of player P: R(s) = P's value with the grid
   minus P's value with ``s`` removed there. Every size is screened with a best-response
   bound — P's strategy with ``s``'s mass moved to a neighbouring size (or to check/call),
   the opponent best-responding — and a size that costs more than the tolerance under that
   bound is confirmed by a warm-started re-solve of the tree without it (regrets carried
   over node by node, :func:`warm_maps`).
3. **Greedy elimination** to ``k`` sizes per node: each round drops, at every node with more
   than ``k`` sizes, the sizes the screen says are free (their joint bound within the
   tolerance), else the confirmed size with the smallest R; the tree without them is
   re-solved warm to the target.
   Optionally (``swap``) one pass then tries each kept size against each removed one.
4. **The certificate.** P's simplified strategy is put back into the full tree (the removed
   sizes at 0 %) and the opponent best-responds there with every size and every response:
   ``loss = value_full − value_kept``, both values *guaranteed* ones (P's strategy against a
   best response, :func:`guaranteed_value`), so nothing removed is a loss of exactly 0.

Units: chips as :attr:`solver.api.SolveResult.ev` counts them (a hold'em player's share of
the final pot minus the chips put in after the start); ``% pot`` of the starting pot.
Error bars: a strategy's guaranteed value is at most its solve's NashConv (2 ×
exploitability) below the equilibrium value, so the true loss of the simplified strategy
is in ``[loss, loss + 2 · exploitability_superset]``, and a confirmed R(s) is at least
``−2 ·`` the exploitability of the solve it was measured from.

Nodes are lines of the card-free betting tree (:mod:`solver.tree.betting`): a line is the
labels from the root with each dealt card written ``d:*`` (on a later street one card-free
node stands for every runout, which keep the same sizes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from solver.algorithms import ALGORITHMS, SolveOptions, default_algorithm
from solver.api import Checkpoint, SolveResult, solve
from solver.cfr.options import OptionError
from solver.games.holdem import HoldemSetup, HoldemSpec, build_holdem, size_notes, validate
from solver.games.model import Game
from solver.games.source import HoldemSource, removed_from_json
from solver.lockspec import line_text
from solver.study.size_trees import (
    ANY_CARD,
    Line,
    chips,
    guaranteed_value,
    in_full_tree,
    line_nodes,
    line_stats,
    pct_names,
    pruner,
    size_labels_at,
    warm_carrier,
    warm_maps,
)
from solver.tree.betting import STREETS, ActionNode, build_betting_tree
from solver.tree.kinds import CHANCE as TREE_CHANCE
from solver.tree.kinds import DECISION as TREE_DECISION
from solver.tree.sizes import SizeError, bet_amount, format_sizes, parse_sizes

Array = npt.NDArray[np.float64]

DEFAULT_GRID = "25%, 33%, 50%, 66%, 75%, 100%, 125%, 150%, a"
PLAYERS = ("oop", "ip")
NODES = ("root", "street", "all")
DEFAULT_TARGET_PCT = 0.05
"""The target of every solve when neither a target nor iterations are given (% pot)."""
FREE_SHARE = 0.1
"""Sizes whose joint screen bound is at most this share of the target are dropped without a
re-solve (each round's free drops together)."""
DEFAULT_MAX_ITERATIONS = 20_000
"""Most iterations of one solve when none are given (a solve stops at its target first)."""

Progress = Callable[[str, Checkpoint], object]


class SizesError(ValueError):
    """Bad input to :func:`simplify_sizes`; ``field`` names the argument."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class SizesResult:
    """What :func:`simplify_sizes` found for one player (chips and % pot as the module says).

    ``kept`` {line: [kept size actions]} and ``removed`` {line: [removed ones]} by the action
    labels of the tree (``b:66`` a bet of 66 chips, ``r:300`` a raise to 300); ``sizes``
    {line: {label: "33%"}} names each bet as a share of the pot there. ``removal_regret``
    {line: {label: chips}}: a removed size's R when it was removed (from the solve of that
    round), a kept size's screen bound in the final solve; ``confirmed`` says which figures
    are re-solves (the others are best-response bounds)."""

    player: str
    keep: int
    nodes: str
    grid: str
    raise_grid: str | None
    kept: dict[str, list[str]]
    removed: dict[str, list[str]]
    sizes: dict[str, dict[str, str]]
    removal_regret: dict[str, dict[str, float]]
    confirmed: dict[str, dict[str, bool]]
    frequency: dict[str, dict[str, float]]  # {line: {action: share of P's range}}, superset
    action_ev: dict[str, dict[str, float]]  # {line: {action: chips}}: the range's EV betting it
    value_full: float  # chips P's superset strategy guarantees in the full tree
    value_kept: float  # chips P's simplified strategy guarantees in the full tree
    loss_chips: float  # value_full − value_kept
    loss_pct_pot: float
    exploitability_superset: float  # % pot (NashConv/2 of the superset solve)
    exploitability_final: float  # % pot, of the final solve of the simplified tree
    superset_seconds: float
    seconds: float
    resolves: int  # warm re-solves run (confirmations and rounds)
    superset: SolveResult = field(repr=False, compare=False)
    final: SolveResult = field(repr=False, compare=False)
    removed_lines: dict[Line, frozenset[str]] = field(repr=False, compare=False)
    spot: HoldemSetup | None = field(default=None, repr=False, compare=False)  # the superset's

    def as_dict(self) -> dict[str, object]:
        """The JSON fields (the CLI's final line without ``"final"``)."""
        return {
            "player": self.player, "keep": self.keep, "nodes": self.nodes, "grid": self.grid,
            "raise_grid": self.raise_grid, "kept": self.kept, "removed": self.removed,
            "sizes": self.sizes, "removal_regret": self.removal_regret,
            "confirmed": self.confirmed, "frequency": self.frequency,
            "action_ev": self.action_ev, "value_full": self.value_full,
            "value_kept": self.value_kept, "loss_chips": self.loss_chips,
            "loss_pct_pot": self.loss_pct_pot,
            "exploitability_superset": self.exploitability_superset,
            "exploitability_final": self.exploitability_final,
            "superset_seconds": self.superset_seconds, "seconds": self.seconds,
            "resolves": self.resolves,
        }  # fmt: skip

    def source(self) -> HoldemSource:
        """The simplified tree as a game source: the superset spot with the removed sizes
        (``source().build()`` is ``final.game``'s tree; ``to_dict()`` is what a save keeps)."""
        if self.spot is None:
            raise ValueError("this result does not hold its spot")
        removed = removed_from_json({k: v for k, v in self.removed_lines.items() if v})
        return HoldemSource(self.spot.spec, self.spot, removed)

    def prune(self) -> Callable[[ActionNode], None]:
        """The edit of the card-free tree that makes the simplified tree
        (``build_holdem(setup, result.prune())``)."""
        return pruner(self.removed_lines)


# ----- the plan: checked input, the superset spot and P's nodes -------------------------------
@dataclass(frozen=True)
class Plan:
    """Checked input: the superset spot and, per player, the lines it may simplify."""

    setup: HoldemSetup  # the spot with the grid at the chosen nodes
    grid: str
    raise_grid: str | None
    nodes: str
    keep: int
    lines: dict[str, list[Line]]  # player → its lines to simplify, root first


def plan(
    spot: HoldemSpec | HoldemSource | HoldemSetup,
    grid: str = DEFAULT_GRID,
    raise_grid: str | None = None,
    nodes: str = "street",
    keep: int = 2,
) -> Plan:
    """Check every argument (:class:`SizesError` naming it; a bad spot :class:`SpecError`)
    and build only the card-free tree: nothing is solved before the input is known good."""
    spec = _spec_of(spot)
    if not isinstance(nodes, str) or nodes not in NODES:
        raise SizesError("nodes", f"{nodes!r} is not one of {', '.join(NODES)}")
    sizes = _grid("grid", grid, raise_sizes=False)
    if isinstance(keep, bool) or not isinstance(keep, (int, np.integer)):
        raise SizesError("keep", f"must be a whole number, got {keep!r}")
    if keep < 1:
        raise SizesError("keep", f"must be at least 1, got {keep}")
    if keep > len(sizes):
        raise SizesError("keep", f"{keep} is more than the grid's {len(sizes)} sizes")
    raises = None
    if raise_grid is not None:
        if nodes == "root":
            raise SizesError(
                "raise_grid", "the root is a bet node: raise sizes are simplified with nodes "
                "street or all"
            )  # fmt: skip
        raises = format_sizes(_grid("raise_grid", raise_grid, raise_sizes=True))
    text = format_sizes(sizes)
    setup = validate(spec)  # the spot as given: SpecError names its field
    first = setup.config.start_street
    streets = STREETS[first:] if nodes == "all" else STREETS[first : first + 1]
    over = {s: {p: dict(k) for p, k in per.items()} for s, per in spec.sizes.items()}
    for street in streets:
        for p in PLAYERS:
            kinds = over.setdefault(street, {}).setdefault(p, {})
            kinds["bets"] = text
            if p == "oop" and street != STREETS[first]:
                kinds["donks"] = text
            if raises is not None:
                kinds["raises"] = raises
    setup = validate(replace(spec, sizes=over))
    _check_playable(setup, sizes)
    tree = build_betting_tree(setup.config)
    lines = {p: _lines(tree, i, nodes, first, raises is not None) for i, p in enumerate(PLAYERS)}
    return Plan(setup, text, raises, nodes, int(keep), lines)


def _spec_of(spot: object) -> HoldemSpec:
    if isinstance(spot, HoldemSource):
        return spot.spec
    if isinstance(spot, HoldemSetup):
        return spot.spec
    if isinstance(spot, HoldemSpec):
        return spot
    raise SizesError("spot", f"a hold'em spot (HoldemSpec) is needed, got {type(spot).__name__}")


def _grid(name: str, text: object, raise_sizes: bool) -> tuple:
    if not isinstance(text, str):
        raise SizesError(name, f"must be size text like '33%, 75%, a', got {type(text).__name__}")
    try:
        sizes = parse_sizes(text, raise_sizes=raise_sizes, field=name)
    except SizeError as exc:
        raise SizesError(name, str(exc).partition(":")[2].strip()) from None
    if not sizes:
        raise SizesError(name, "no sizes: give at least one, e.g. '33%, 75%, a'")
    return sizes


def _check_playable(setup: HoldemSetup, sizes: tuple) -> None:
    """Every grid size is a bet of its own on the first street: none raised to the minimum,
    capped or forced all-in or merged (the tree's size notes), no two the same chips."""
    first = STREETS[setup.config.start_street]
    shown = {str(s) for s in sizes}
    for note in size_notes(setup):
        if note.street == first and note.kind == "bet" and note.size in shown:
            raise SizesError("grid", f"the tree cannot play {note.size} as asked: {note.text()}")
    pot, stack = float(setup.config.pot), float(setup.config.stack)
    seen: dict[int, str] = {}
    for s in sizes:
        chips = int(min(round(bet_amount(s, pot, stack)), stack))
        if chips in seen:
            raise SizesError("grid", f"{seen[chips]} and {s} are the same bet here ({chips} chips)")
        seen[chips] = str(s)


def _size_labels(node: ActionNode) -> list[str]:
    return [c.label for c in node.children if c.label[:2] in ("b:", "r:")]


def _lines(tree: ActionNode, player: int, nodes: str, first: int, raises: bool) -> list[Line]:
    """The card-free lines of ``player``'s nodes to simplify, in tree order."""
    out: list[Line] = []

    def walk(node: ActionNode, line: Line, seen_own: bool) -> None:
        if node.kind == TREE_CHANCE:
            for c in node.children:
                walk(c, (*line, ANY_CARD), seen_own)
            return
        if node.kind != TREE_DECISION:
            return
        own = node.player == player
        labels = _size_labels(node)
        bets = any(x.startswith("b:") for x in labels)
        if own and labels and (bets or raises):
            if nodes == "root":
                if not seen_own and bets:
                    out.append(line)
                return
            if nodes == "all" or node.street == first:
                out.append(line)
        for c in node.children:
            walk(c, (*line, c.label), seen_own or own)

    walk(tree, (), False)
    return out


# ----- the method ---------------------------------------------------------------------------
@dataclass
class _Run:
    """One simplification's running state: its options, counters and progress."""

    setup: HoldemSetup
    player: int
    target: float | None
    iterations: int
    every: int
    opts: SolveOptions
    progress: Progress | None
    resolves: int = 0

    def solve(
        self,
        game: Game,
        stage: str,
        warm: SolveResult | None = None,
        algorithm: str | None = None,
    ) -> SolveResult:
        """A solve of ``game`` to the run's target, warm from ``warm`` (its regrets carried
        cell by cell) or cold with ``algorithm``."""

        def report(cp: Checkpoint) -> None:
            if self.progress is not None:
                self.progress(stage, cp)

        warm_start = None
        rule: object = algorithm
        if warm is not None:
            self.resolves += 1
            warm_start = warm_carrier(game, warm, warm_maps(game, warm.game), self.opts)
            rule = warm.rule
        return solve(game, rule, iterations=self.iterations, target_exploitability=self.target,  # type: ignore[call-overload]
                     check_every=self.every, callback=report, warm_start=warm_start,
                     options=self.opts)  # fmt: skip

    def build(self, removed: Mapping[Line, frozenset[str]]) -> Game:
        return build_holdem(self.setup, pruner(removed))

    def value(self, result: SolveResult) -> float:
        """P's guaranteed value (chips) at the solve's last check."""
        return -result.history[-1].best_response[1 - self.player] + result.game.ev_offset


def _screen(
    game: Game, sigma: Array, player: int, nodes: list[int], drop: list[str], base: float
) -> float:
    """Best-response bound (chips) of dropping the ``drop`` labels at ``nodes``: P's value
    lost when their mass moves to the next larger remaining size, the next smaller, or
    check/call (the least of the three), the opponent best-responding; 0 when they carry
    no mass. ``base`` is the guarantee of ``sigma`` itself."""
    best = np.inf
    for rule in ("up", "down", "passive"):
        moved = sigma.copy()
        for node in nodes:
            off, na, nh = game.block(node)
            labels = game.action_labels(node)
            block = moved[off : off + na * nh].reshape(na, nh)
            rest = sorted((x for x in labels if x[:2] in ("b:", "r:") and x not in drop),
                          key=chips)  # fmt: skip
            passive = next(i for i, x in enumerate(labels) if x in ("k", "c"))
            for label in drop:
                d = labels.index(label)
                to = passive
                up = [x for x in rest if chips(x) > chips(label)]
                down = [x for x in rest if chips(x) < chips(label)]
                if rule == "up" and (up or down):
                    to = labels.index(up[0] if up else down[-1])
                elif rule == "down" and (up or down):
                    to = labels.index(down[-1] if down else up[0])
                block[to] += block[d]
                block[d] = 0.0
        if np.array_equal(moved, sigma):
            return 0.0
        best = min(best, base - guaranteed_value(game, moved, player))
    return float(best)


def simplify_sizes(
    spot: HoldemSpec | HoldemSource | HoldemSetup,
    grid: str = DEFAULT_GRID,
    raise_grid: str | None = None,
    player: str = "oop",
    nodes: str = "street",
    keep: int = 2,
    *,
    target: float | None = None,
    iterations: int | None = None,
    threads: int = 1,
    algorithm: str | None = None,
    check_every: int = 10,
    confirm: int = 3,
    superset: SolveResult | None = None,
    swap: bool = False,
    progress: Progress | None = None,
) -> SizesResult:
    """Keep ``keep`` sizes of ``grid`` at each of ``player``'s ``nodes`` ("root": its first
    decision; "street": every bet or raise node of the first street; "all": every street)
    and certify the loss (the module doc). ``raise_grid``: raise sizes at the raise nodes
    too (street, all). Every solve runs to ``target`` (chips; None: 0.05 % of the pot) or
    ``iterations`` (None: at most 20,000), ``threads`` threads, ``algorithm`` (a full-width
    one; None: the hold'em default). ``confirm``: re-solves per node and round when no
    size is free. ``superset``: a superset solve of the same plan to start from (``both``
    players share one). ``swap``: after greedy, try each kept size against each removed
    one at every node (a warm re-solve each, from the superset) and keep a swap that gains
    more than the target (with iterations alone: the final solve's NashConv).
    ``progress(stage, checkpoint)`` gets every check of every solve.
    Bad input: :class:`SizesError` or :class:`SpecError` naming the field, before any
    solve."""
    started = time.perf_counter()
    the_plan = plan(spot, grid, raise_grid, nodes, keep)
    if player not in PLAYERS:
        raise SizesError("player", f"{player!r} is not oop or ip")
    name = algorithm if algorithm is not None else default_algorithm(True)
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise SizesError("algorithm", f"unknown algorithm {name!r}")
    if ALGORITHMS[name].sampling:
        raise SizesError("algorithm", f"{name} samples: warm re-solves need a full-width one")
    if isinstance(confirm, bool) or not isinstance(confirm, int) or confirm < 1:
        raise SizesError("confirm", f"must be a whole number ≥ 1, got {confirm!r}")
    try:
        SolveOptions(threads=threads).checked(name, None)
    except OptionError as exc:
        raise SizesError(exc.field, exc.message) from None
    for label, number in (("iterations", iterations), ("check_every", check_every)):
        if number is not None and (
            isinstance(number, bool) or not isinstance(number, int) or number < 1
        ):
            raise SizesError(label, f"must be a whole number ≥ 1, got {number!r}")
    if target is not None and (
        isinstance(target, bool)
        or not isinstance(target, (int, float))
        or not 0 < target < float("inf")
    ):
        raise SizesError("target", f"must be a positive number of chips, got {target!r}")
    setup = the_plan.setup
    pot = float(setup.config.pot)
    chips_target = target
    if target is None and iterations is None:
        chips_target = DEFAULT_TARGET_PCT / 100.0 * pot
    if iterations is None:
        iterations = DEFAULT_MAX_ITERATIONS
    p = PLAYERS.index(player)
    opts = SolveOptions(threads=threads)
    run = _Run(setup, p, chips_target, iterations, check_every, opts, progress)
    full = build_holdem(setup)
    if superset is None:
        sup = run.solve(full, "superset", algorithm=name)
    else:
        if superset.game.action_size != full.action_size:
            raise SizesError("superset", "a solve of another tree than this plan's")
        sup = superset
        full = sup.game
    superset_seconds = sup.elapsed_s
    engine_precision = getattr(sup.engine, "precision", "auto")
    run.opts = replace(opts, precision=engine_precision)

    tol = FREE_SHARE * chips_target if chips_target is not None else 0.0
    k = the_plan.keep
    removed: dict[Line, frozenset[str]] = {}
    regret: dict[Line, dict[str, float]] = {}
    confirmed: dict[Line, dict[str, bool]] = {}
    current = sup
    while True:
        game = current.game
        sigma = current.average_strategy()
        base = guaranteed_value(game, sigma, p)
        by_line = line_nodes(game, p)
        todo = {}
        for line in the_plan.lines[player]:
            if line not in by_line:
                continue  # cut off by a removal above it
            live = size_labels_at(game, by_line[line][0])
            if len(live) > k:
                todo[line] = live
        if not todo:
            break
        free: dict[Line, list[str]] = {}
        for line, live in todo.items():
            ns = by_line[line]
            bounds = {s: _screen(game, sigma, p, ns, [s], base) for s in live}
            drop: list[str] = []
            for s in sorted(live, key=lambda x: bounds[x]):
                if len(live) - len(drop) <= k:
                    break
                if _screen(game, sigma, p, ns, [*drop, s], base) > tol:
                    break
                drop.append(s)
            if drop:
                free[line] = drop
                for s in drop:
                    regret.setdefault(line, {})[s] = bounds[s]
                    confirmed.setdefault(line, {})[s] = False
            else:
                todo[line] = sorted(live, key=lambda x: bounds[x])
        if free:  # the free sizes at every node at once, then one warm re-solve
            for line, drop in free.items():
                removed[line] = removed.get(line, frozenset()) | frozenset(drop)
            current = run.solve(run.build(removed), "re-solve", current)
            continue
        picks: dict[Line, tuple[str, float, SolveResult]] = {}
        for line, order in todo.items():
            for s in order[:confirm]:
                trial = dict(removed)
                trial[line] = trial.get(line, frozenset()) | {s}
                res = run.solve(run.build(trial), f"confirm {s} at {line_text(line)}", current)
                r = run.value(current) - run.value(res)
                if line not in picks or r < picks[line][1]:
                    picks[line] = (s, r, res)
        for line, (s, r, _res) in picks.items():
            removed[line] = removed.get(line, frozenset()) | {s}
            regret.setdefault(line, {})[s] = r
            confirmed.setdefault(line, {})[s] = True
        if len(picks) == 1:
            current = next(iter(picks.values()))[2]  # that confirmation is the new tree's solve
        else:
            current = run.solve(run.build(removed), "re-solve", current)

    if swap:  # a swap must gain more than the target (iterations alone: the NashConv)
        margin = chips_target if chips_target is not None else 2.0 * current.exploitability
        removed, current = _swaps(
            run, the_plan.lines[player], removed, current, sup, margin, regret, confirmed
        )
    final = current
    sigma_full = sup.average_strategy()
    value_full = guaranteed_value(full, sigma_full, p)
    if final is sup:
        value_kept = value_full
    else:
        mapped = in_full_tree(full, final.game, final.average_strategy())
        value_kept = guaranteed_value(full, mapped, p)
    # kept sizes: their screen bound in the final solve; the report's words and % pot names
    game = final.game
    sigma = final.average_strategy()
    base = guaranteed_value(game, sigma, p)
    by_line = line_nodes(game, p)
    kept: dict[str, list[str]] = {}
    shown_removed: dict[str, list[str]] = {}
    names: dict[str, dict[str, str]] = {}
    out_regret: dict[str, dict[str, float]] = {}
    out_confirmed: dict[str, dict[str, bool]] = {}
    full_lines = line_nodes(full, p)
    freq: dict[str, dict[str, float]] = {}
    evs: dict[str, dict[str, float]] = {}
    for line in the_plan.lines[player]:
        text = line_text(line)
        if line not in by_line:
            continue
        live = size_labels_at(game, by_line[line][0])
        kept[text] = live
        shown_removed[text] = sorted(removed.get(line, frozenset()), key=chips)
        names[text] = pct_names(full, full_lines[line][0])
        rr = {s: float(v) for s, v in regret.get(line, {}).items()}
        cf = dict(confirmed.get(line, {}))
        for s in live:
            rr[s] = _screen(game, sigma, p, by_line[line], [s], base)
            cf[s] = False
        order = size_labels_at(full, full_lines[line][0])
        freq[text], evs[text] = line_stats(full, sigma_full, full_lines[line][0], order)
        out_regret[text] = {s: rr[s] for s in order if s in rr}
        out_confirmed[text] = {s: cf[s] for s in order if s in cf}
    loss = value_full - value_kept
    return SizesResult(
        player=player,
        keep=k,
        nodes=the_plan.nodes,
        grid=the_plan.grid,
        raise_grid=the_plan.raise_grid,
        kept=kept,
        removed=shown_removed,
        sizes=names,
        removal_regret=out_regret,
        confirmed=out_confirmed,
        frequency=freq,
        action_ev=evs,
        value_full=value_full,
        value_kept=value_kept,
        loss_chips=loss,
        loss_pct_pot=100.0 * loss / full.starting_pot,
        exploitability_superset=100.0 * sup.exploitability / full.starting_pot,
        exploitability_final=100.0 * final.exploitability / full.starting_pot,
        superset_seconds=superset_seconds,
        seconds=time.perf_counter() - started,
        resolves=run.resolves,
        superset=sup,
        final=final,
        removed_lines=dict(removed),
        spot=setup,
    )


def _swaps(
    run: _Run,
    lines: list[Line],
    removed: dict[Line, frozenset[str]],
    current: SolveResult,
    sup: SolveResult,
    margin: float,
    regret: dict[Line, dict[str, float]],
    confirmed: dict[Line, dict[str, bool]],
) -> tuple[dict[Line, frozenset[str]], SolveResult]:
    """One pass of swaps after greedy: at each simplified node, each kept size against each
    removed one (a size with simplified nodes below it stays out: they would come back with
    every size), warm from the superset; the best swap gaining more than ``margin`` chips of
    guaranteed value is kept, and the size swapped out gets minus that gain as its figure
    in ``regret`` (what it was worth over the size that replaced it)."""
    for line in lines:
        gone = removed.get(line, frozenset())
        by_line = line_nodes(current.game, run.player)
        if not gone or line not in by_line:
            continue
        kept = size_labels_at(current.game, by_line[line][0])
        below = {x[len(line)] for x in lines if len(x) > len(line) and x[: len(line)] == line}
        best: tuple[float, frozenset[str], SolveResult] | None = None
        base = run.value(current)
        for s in kept:
            for r in sorted(gone - below, key=chips):
                trial = dict(removed)
                trial[line] = (gone - {r}) | {s}
                res = run.solve(run.build(trial), f"swap {s} for {r} at {line_text(line)}", sup)
                gain = run.value(res) - base
                if gain > margin and (best is None or gain > best[0]):
                    best = (gain, trial[line], res)
        if best is not None:
            (out,) = best[1] - gone
            regret.setdefault(line, {})[out] = -best[0]
            confirmed.setdefault(line, {})[out] = True
            removed = {**removed, line: best[1]}
            current = best[2]
    return removed, current
