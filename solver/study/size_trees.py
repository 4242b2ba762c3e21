"""The trees of :mod:`solver.study.sizes`: a hold'em spot's tree without some bet sizes at
single nodes (:func:`pruner`, what :func:`~solver.games.holdem.build_holdem` takes), where a
smaller tree's pieces sit in a larger one (:func:`warm_maps`), a solve's regrets carried into
the smaller tree (:func:`warm_carrier`), a smaller tree's strategy put back into the full one
(:func:`in_full_tree`), what a strategy guarantees (:func:`guaranteed_value`), and each size's
frequency and EV at a node (:func:`line_stats`).

A line is the labels from the root of the card-free betting tree, each dealt card written
:data:`ANY_CARD` (one card-free node stands for every runout)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.algorithms import SolveOptions, make_solver
from solver.api import SolveResult
from solver.cfr.bestresponse import root_player_values
from solver.cfr.layout import uniform_strategy
from solver.games.model import DECISION, Game
from solver.tree.betting import ActionNode
from solver.tree.kinds import CHANCE as TREE_CHANCE

Array = npt.NDArray[np.float64]
Line = tuple[str, ...]
ANY_CARD = "d:*"


# ----- trees without some sizes, and regrets carried between them -----------------------------
def pruner(removed: Mapping[Line, frozenset[str]]) -> Callable[[ActionNode], None]:
    """What :func:`~solver.games.holdem.build_holdem` takes to drop ``removed`` {line:
    action labels} from the card-free tree (lines that a removal above cut off are
    skipped)."""

    def prune(root: ActionNode) -> None:
        for line in sorted(removed, key=len):
            node: ActionNode | None = root
            for label in line:
                assert node is not None
                if label == ANY_CARD:
                    node = node.children[0] if node.kind == TREE_CHANCE else None
                else:
                    node = next((c for c in node.children if c.label == label), None)
                if node is None:
                    break
            if node is not None:
                node.children = [c for c in node.children if c.label not in removed[line]]

    return prune


class Maps(NamedTuple):
    """Where each piece of a smaller tree ``new`` sits in a larger one ``old`` that holds it
    (the same spot with more sizes): node (N_new,), ``[action, hand]`` cell (A_new,) and
    infoset (I_new,) indices into ``old``'s arrays, and the decision nodes of ``new`` that
    lost actions."""

    nodes: npt.NDArray[np.int64]
    cells: npt.NDArray[np.int64]
    infos: npt.NDArray[np.int64]
    fewer: list[int]


def warm_maps(new: Game, old: Game) -> Maps:
    """:class:`Maps` of ``new`` into ``old``, matching children by label from the root
    (KeyError when ``new`` has a line ``old`` has not)."""
    t_new, t_old = new.tree, old.tree
    nodes = np.full(new.num_nodes, -1, dtype=np.int64)
    cells = np.full(new.action_size, -1, dtype=np.int64)
    infos = np.full(new.info_size, -1, dtype=np.int64)
    fewer: list[int] = []
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        nodes[a] = b
        kids_b = {old.labels[c]: i for i, c in enumerate(old.children(b))}
        kids_old = list(old.children(b))
        kids_a = list(new.children(a))
        if int(t_new.kind[a]) == DECISION:
            off_a, na, nh = new.block(a)
            off_b, nb, _ = old.block(b)
            ia, ib = int(t_new.ioffset[a]), int(t_old.ioffset[b])
            infos[ia : ia + nh] = ib + np.arange(nh)
            if na < nb:
                fewer.append(a)
            for i, c in enumerate(kids_a):
                j = kids_b[new.labels[c]]
                cells[off_a + i * nh : off_a + (i + 1) * nh] = off_b + j * nh + np.arange(nh)
        for c in kids_a:
            stack.append((c, kids_old[kids_b[new.labels[c]]]))
    return Maps(nodes, cells, infos, fewer)


def warm_carrier(game: Game, old: SolveResult, maps: Maps, opts: SolveOptions) -> SolveResult:
    """A solver of ``game`` holding what ``old`` learnt, cell by cell through ``maps``, as
    :func:`solver.api.solve`'s ``warm_start`` takes it (the schedule going on)."""
    from solver.cfr.engine import Engine

    engine = make_solver(game, old.rule, None, opts)
    if not isinstance(engine, Engine) or not isinstance(old.engine, Engine):
        raise ValueError("warm re-solves need full-width solves")
    st_old, st = old.engine.storage, engine.storage
    sizes_old = {"cells": old.game.action_size, "infos": old.game.info_size,
                 "nodes": old.game.num_nodes}  # fmt: skip
    copies = {}
    fields = (("regrets", "cells"), ("strategy", "cells"), ("last_regret", "cells"),
              ("step_num", "infos"), ("step_den", "infos"), ("rscale", "nodes"))  # fmt: skip
    for name, kind in fields:
        src = getattr(st_old, name)
        index = getattr(maps, kind)
        if src.shape[0] == sizes_old[kind] and getattr(st, name).shape[0] == index.shape[0]:
            copies[name] = np.array(src[index], dtype=src.dtype)
    if "strategy" in copies:  # a stored strategy renormalised where actions went
        sigma = copies["strategy"]
        for node in maps.fewer:
            off, na, nh = game.block(node)
            block = sigma[off : off + na * nh].reshape(na, nh)
            total = block.sum(axis=0)
            block[:] = np.where(total > 0, block / np.where(total > 0, total, 1), 1.0 / na)
    # the carrier is never iterated: its sums would only hold memory while the re-solve runs
    copies["cumulative"] = np.zeros(1, dtype=st.cumulative.dtype)
    engine.storage = st._replace(**copies)  # type: ignore[arg-type]
    engine.schedule_start = old.engine.schedule_start + old.engine.iteration
    return SolveResult(game, old.rule, engine)


def in_full_tree(full: Game, game: Game, sigma: Array, maps: Maps | None = None) -> Array:
    """A strategy profile (A,) of ``game`` (a tree with fewer sizes) as one of ``full``:
    the same mix where the line exists, 0 on the removed actions, uniform below them (no
    one reaches there)."""
    m = maps if maps is not None else warm_maps(game, full)
    out = uniform_strategy(full).astype(np.float64)
    for node in m.fewer:
        b = int(m.nodes[node])
        off, na, nh = full.block(b)
        out[off : off + na * nh] = 0.0
    out[m.cells] = sigma
    return out


def guaranteed_value(game: Game, sigma: Array, player: int) -> float:
    """Chips ``player``'s part of ``sigma`` (A,) guarantees: its value when the other player
    best-responds (zero-sum: minus the responder's best-response value, plus
    :attr:`Game.ev_offset`)."""
    opp = 1 - player
    values = root_player_values(game, sigma, opp, best_response=True)
    br = float(np.dot(game.hands.weights[opp, : values.shape[0]], values))
    return -br + game.ev_offset


def line_nodes(game: Game, player: int) -> dict[Line, list[int]]:
    """Card-free line → ``player``'s decision nodes of ``game`` on it."""
    out: dict[Line, list[int]] = {}
    keys: dict[int, Line] = {0: ()}
    t = game.tree
    for node in range(game.num_nodes):  # parents come before children
        key = keys[node]
        for c in game.children(node):
            label = game.labels[c]
            keys[c] = (*key, ANY_CARD if label.startswith("d:") else label)
        if int(t.kind[node]) == DECISION and int(t.player[node]) == player:
            out.setdefault(key, []).append(node)
    return out


def chips(label: str) -> int:
    return int(label.split(":")[1])


def line_stats(
    game: Game, sigma: Array, node: int, labels: list[str]
) -> tuple[dict[str, float], dict[str, float]]:
    """At decision ``node`` under ``sigma``: each action of ``labels``' frequency (a share of
    the actor's range there, reach-weighted) and the range's EV when it takes that action
    (chips, :func:`solver.study.views.action_evs` averaged over the hands that take it, each
    weighted by its reach, its probability of the action and its compatible opponent mass;
    NaN when no hand takes it). On a later street, the node is the line's first runout."""
    from solver.cfr.reach import path_reach
    from solver.study.analysis import compatible
    from solver.study.views import action_evs

    p = int(game.tree.player[node])
    off, na, nh = game.block(node)
    table = sigma[off : off + na * nh].reshape(na, nh)
    reach = path_reach(game, sigma, node)
    valid = game.valid_hands(node, p)
    own = np.where(valid, reach[p], 0.0)
    m = compatible(game)
    mass = (m @ reach[1]) if p == 0 else (m.T @ reach[0])
    ev = action_evs(game, sigma, node, m)
    actions = game.action_labels(node)
    total = float(own.sum())
    freq, out = {}, {}
    for label in labels:
        a = actions.index(label)
        freq[label] = float(table[a] @ own) / total if total > 0 else 0.0
        w = own * table[a] * mass
        ok = w > 0
        out[label] = float(np.dot(w[ok], ev[a][ok]) / w[ok].sum()) if ok.any() else float("nan")
    return freq, out


def size_labels_at(game: Game, node: int) -> list[str]:
    return [x for x in game.action_labels(node) if x[:2] in ("b:", "r:")]


def pct_names(game: Game, node: int) -> dict[str, str]:
    """Each bet at ``node`` as a share of the pot there ("33%"; the all-in "a (450%)");
    raises by their label."""
    from solver.study.analysis import investments

    pot, *put_in = investments(game, node)
    behind = float(game.meta["stack"]) - put_in[int(game.tree.player[node])]  # type: ignore[arg-type]
    out = {}
    for label in size_labels_at(game, node):
        if not label.startswith("b:"):
            out[label] = label
            continue
        pct = f"{100.0 * chips(label) / pot:.0f}%"
        out[label] = f"a ({pct})" if chips(label) >= behind else pct
    return out
