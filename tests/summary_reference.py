"""The tree summarizer as it was before it ran per-node arithmetic on arrays of nodes
(solver/batch/summary.py at fed8dd6, unchanged but for this docstring and the name): the
naive reference tests/test_summary_reference.py compares the summarizer against.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.batch.treedata import MIX_DEALT, TreeSummary
from solver.cfr.bestresponse import _EVAL_STATE, _NO_LEAVES, _NO_RULE
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    MODE_EVAL,
    NO_DRAWS,
    check_strategy,
    game_arrays,
    make_scratch,
    pass_flags,
)
from solver.games.holdem import runout_equity
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.handclass import DRAWS, MADE, classify_hands
from solver.study.analysis import (
    PlayerView,
    action_frequencies,
    compatible,
    final_boards,
    investments,
)
from solver.study.views import range_summary

Array = npt.NDArray[np.float64]

MIN_LINE_REACH = 0.01
"""Default cut: lines both players take on under 1 % of the deals are not stored."""

CLASS_KEYS: tuple[str, ...] = (*MADE, *DRAWS)


def summarize_tree_reference(
    game: Game, sigma: Array, min_line_reach: float = MIN_LINE_REACH
) -> TreeSummary:
    """The per-node summary of a solved hold'em flop under the average strategy ``sigma``
    (action_size,) (module doc)."""
    if not game.is_holdem:
        raise ValueError("a tree summary is for hold'em flops")
    return _Summarizer(game, check_strategy(game, sigma), float(min_line_reach)).run()


class _Summarizer:
    def __init__(self, game: Game, sigma: Array, cut: float) -> None:
        self.g = game
        self.sigma = sigma
        self.cut = cut
        h0, h1 = game.num_hands
        self.nh = (h0, h1)
        self.m = compatible(game)
        self.mf = self.m.astype(np.float64)
        self.cards = [game.hands.cards[p, : self.nh[p]].astype(np.int64) for p in range(2)]
        self.w = [game.hands.weights[p, : self.nh[p]].astype(np.float64) for p in range(2)]
        self.scratch = make_scratch(game)
        self.labels: dict[str, int] = {}
        self._base: dict[int, float] = {}
        self._classes: dict[
            tuple[int, int], tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]
        ] = {}
        self.flop = [int(c) for c in np.asarray(game.meta["board"])]

    def label(self, text: str) -> int:
        return self.labels.setdefault(text, len(self.labels))

    def valid(self, board: int, p: int) -> npt.NDArray[np.bool_]:
        return self.g.boards.valid[board, p, : self.nh[p]] > 0

    def base(self, board: int) -> float:
        """Σ w0·M·w1 over the hand pairs ``board`` allows: the line reach's denominator."""
        if board not in self._base:
            w0 = np.where(self.valid(board, 0), self.w[0], 0.0)
            w1 = np.where(self.valid(board, 1), self.w[1], 0.0)
            self._base[board] = float(w0 @ (self.mf @ w1))
        return self._base[board]

    # ----- pass 1: the kept nodes and their reach vectors, top down -------------------------
    def walk(self) -> None:
        g, t = self.g, self.g.tree
        root_board = int(t.board[0])
        r = [np.where(self.valid(root_board, p), self.w[p], 0.0) for p in range(2)]
        self.nodes: list[int] = []
        self.parent: list[int] = []
        self.step: list[int] = []
        self.mult: list[int] = []
        self.reach: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = []
        self.cf: list[float] = []
        self.cards_on: list[list[int]] = []  # turn/river cards dealt on the way
        self.iso: list[tuple[int, int, list[int]]] = []
        stack: list[tuple[int, int, int, int, tuple[Array, Array], float, list[int]]] = [
            (0, -1, -1, 1, (r[0], r[1]), float(g.hands.norm), [])
        ]
        while stack:
            node, parent, step, mult, reach, cf, dealt = stack.pop()
            kind = int(t.kind[node])
            if kind not in (DECISION, CHANCE):
                continue
            b = int(t.board[node])
            pair = float(reach[0] @ (self.mf @ reach[1]))
            base = self.base(b)
            if node != 0 and (base <= 0 or pair / base < self.cut):
                continue
            me = len(self.nodes)
            self.nodes.append(node)
            self.parent.append(parent)
            self.step.append(step)
            self.mult.append(mult)
            # kept as float32 (products in [0, 1]: 1e-7 relative), half the memory of a
            # big tree's vectors; the walk below carries float64
            self.reach.append((reach[0].astype(np.float32), reach[1].astype(np.float32)))
            self.cf.append(cf)
            self.cards_on.append(dealt)
            kids = []
            if kind == DECISION:
                p = int(t.player[node])
                off, na, nh = g.block(node)
                s = self.sigma[off : off + na * nh].reshape(na, nh)
                for a, child in enumerate(g.children(node)):
                    nr = list(reach)
                    nr[p] = reach[p] * s[a]
                    kids.append(
                        (child, me, self.label(g.labels[child]), 1, (nr[0], nr[1]), cf, dealt)
                    )
            else:
                by_child: dict[int, list[tuple[int, int]]] = {}
                for lab, child, row in g.chance_cards(node):
                    if row >= 0:
                        card = g.card_names.index(lab[2:])
                        by_child.setdefault(child, []).append((card, row))
                for child in g.children(node):
                    cb = int(t.board[child])
                    cr = tuple(reach[q] * self.valid(cb, q) for q in range(2))
                    card = g.card_names.index(g.labels[child][2:])
                    isos = by_child.get(child, [])
                    w = float(t.chance_weight[child])
                    kids.append(
                        (child, me, self.label(g.labels[child]), 1 + len(isos), (cr[0], cr[1]),
                         cf * w, [*dealt, card])
                    )  # fmt: skip
                    for card_i, row in isos:
                        smap = [int(g.card_perms[row][s]) % 4 for s in range(4)]
                        self.iso.append((child, card_i, smap))
            stack.extend(reversed(kids))  # preorder: parents first, children in tree order

    # ----- pass 2: per-node numbers ------------------------------------------------------------
    def values(self, node: int, player: int, opp_reach: Array, cf: float) -> Array:
        """``player``'s counterfactual values (H[player],) at ``node``: what
        :func:`~solver.cfr.bestresponse.node_values` returns, with a shared scratch."""
        g, sc = self.g, self.scratch
        sc.reach[0, :] = 0.0
        sc.reach[0, : opp_reach.shape[0]] = opp_reach * cf
        fl = pass_flags(player, MODE_EVAL)
        lv = _NO_LEAVES[sc.value.dtype]
        run_pass(game_arrays(g), _EVAL_STATE, int(node), self.sigma, _NO_RULE, NO_DRAWS, fl, sc, lv)
        return sc.value[0, : self.nh[player]].copy()

    def equities(self) -> list[tuple[npt.NDArray, npt.NDArray]]:
        """Per kept node, each player's per-hand equity (:func:`solver.study.analysis.equities`),
        nodes with the same boards in one matrix product."""
        g, t = self.g, self.g.tree
        groups: dict[tuple, list[int]] = {}
        for i, node in enumerate(self.nodes):
            if not self.cards_on[i]:
                key: tuple = ("flop",)
            else:
                fb = final_boards(g, node)
                key = tuple(fb) if fb is not None else ("none", i)
            groups.setdefault(key, []).append(i)
        out: list[tuple[npt.NDArray, npt.NDArray]] = [(np.empty(0), np.empty(0))] * len(self.nodes)
        h0, h1 = self.nh
        for key, idx in groups.items():
            if key == ("flop",):
                num, den = self._flop_matrices(int(t.board[0]))
            elif key[0] == "none":
                for i in idx:
                    out[i] = (np.full(h0, np.nan), np.full(h1, np.nan))
                continue
            else:
                num = np.zeros((h0, h1))
                den = np.zeros((h0, h1))
                bd = g.boards
                for b, wb in key:
                    mm = self.m & self.valid(b, 0)[:, None] & self.valid(b, 1)[None, :]
                    k0, k1 = bd.rank[b, 0, :h0], bd.rank[b, 1, :h1]
                    share = (k0[:, None] > k1[None, :]) + 0.5 * (k0[:, None] == k1[None, :])
                    num += wb * share * mm
                    den += wb * mm
            r0 = np.stack([self.reach[i][0] for i in idx], axis=1)
            r1 = np.stack([self.reach[i][1] for i in idx], axis=1)
            n0, d0 = num @ r1, den @ r1
            n1, d1 = (den - num).T @ r0, den.T @ r0
            with np.errstate(invalid="ignore", divide="ignore"):
                e0 = np.where(d0 > 0, n0 / np.where(d0 > 0, d0, 1.0), np.nan)
                e1 = np.where(d1 > 0, n1 / np.where(d1 > 0, d1, 1.0), np.nan)
            for j, i in enumerate(idx):
                out[i] = (e0[:, j].astype(np.float32), e1[:, j].astype(np.float32))
        return out

    def _flop_matrices(self, board: int) -> tuple[Array, Array]:
        """(Σ share·pair, Σ pair) over the turn and river runouts of the flop: the runout
        equity's mean sign as a pot share, on the pairs the flop allows."""
        h0, h1 = self.nh
        sign = np.zeros((h0, h1))
        runout_equity(np.array(self.flop, dtype=np.int64), self.cards[0], self.cards[1], sign)
        mm = (self.m & self.valid(board, 0)[:, None] & self.valid(board, 1)[None, :]).astype(float)
        return mm * (1.0 + sign) / 2.0, mm

    def class_matrix(
        self, board: int, player: int, dealt: list[int], need: Array
    ) -> npt.NDArray[np.float32]:
        """(len(CLASS_KEYS), H[player]) 0/1: which class rows each hand is in on ``board``
        (a hand in its made class and each of its draw flags; none if the board blocks it).
        Hands are classified once per board, when a node first needs them (``need`` > 0)."""
        key = (board, player)
        if key not in self._classes:
            nh = self.nh[player]
            self._classes[key] = (
                np.zeros((len(CLASS_KEYS), nh), dtype=np.float32),  # 0/1: exact
                np.zeros(nh, dtype=bool),
            )
        c, done = self._classes[key]
        todo = np.flatnonzero((need > 0) & ~done)
        if todo.size:
            made, draws = classify_hands([*self.flop, *dealt], self.cards[player][todo])
            ok = made >= 0
            c[made[ok], todo[ok]] = 1.0
            c[len(MADE) :, todo] = (draws & ok[:, None]).T
            done[todo] = True
        return c

    def run(self) -> TreeSummary:
        g, t = self.g, self.g.tree
        self.walk()
        n = len(self.nodes)
        eq = self.equities()
        widest = max([int(t.num_children[x]) for x in self.nodes if t.kind[x] == DECISION] or [1])
        arr = {
            "reach": np.zeros(n), "pot": np.zeros(n), "ev": np.full((n, 2), np.nan),
            "equity": np.full((n, 2), np.nan), "eqr": np.full((n, 2), np.nan),
            "actions": np.full((n, widest), -1, dtype=np.int64),
            "mix": np.full((n, widest), np.nan),
            "kind": np.zeros(n, dtype=np.int64), "player": np.full(n, -1, dtype=np.int64),
        }  # fmt: skip
        cls_node: list[int] = []
        cls_id: list[int] = []
        cls_combos: list[float] = []
        cls_mix: list[Array] = []
        for i, node in enumerate(self.nodes):
            reach = (self.reach[i][0].astype(np.float64), self.reach[i][1].astype(np.float64))
            cf = self.cf[i]
            b = int(t.board[node])
            pot, inv0, inv1 = investments(g, node)
            inv = (inv0, inv1)
            arr["pot"][i] = pot
            arr["reach"][i] = cf * float(reach[0] @ (self.mf @ reach[1]))
            masses = []
            for p in range(2):
                valid = self.valid(b, p)
                r = np.where(valid, reach[p], 0.0)
                opp = reach[1 - p]
                mass = np.where(valid, (self.mf @ opp) if p == 0 else (opp @ self.mf), 0.0)
                masses.append(mass)
                cfv = self.values(node, p, opp, cf)
                with np.errstate(invalid="ignore", divide="ignore"):
                    ev = np.where(mass > 0, cfv / np.where(mass > 0, mass * cf, 1.0), np.nan)
                    ev = ev + g.ev_offset
                    equity = np.where(valid, eq[i][p], np.nan)
                    denom = equity * pot
                    eqr = np.where(
                        denom > 0, (ev + inv[p]) / np.where(denom > 0, denom, 1.0), np.nan
                    )
                view = PlayerView(p, g.hand_names[p], valid, r, mass, ev, equity, eqr, pot,
                                  inv[p])  # fmt: skip
                rs = range_summary(view)
                arr["ev"][i, p], arr["equity"][i, p], arr["eqr"][i, p] = rs.ev, rs.equity, rs.eqr
            if t.kind[node] != DECISION:
                arr["kind"][i] = 1
                continue
            p = int(t.player[node])
            arr["player"][i] = p
            off, na, nh = g.block(node)
            s = self.sigma[off : off + na * nh].reshape(na, nh)
            r = np.where(self.valid(b, p), reach[p], 0.0)
            dealt = r * masses[p]  # as dealt: the opponent's range removes the hands it blocks
            arr["mix"][i, :na] = action_frequencies(s, dealt)
            arr["actions"][i, :na] = [self.label(lab) for lab in g.action_labels(node)]
            c = self.class_matrix(b, p, self.cards_on[i], r)
            combos = c @ r
            cdealt = c @ dealt
            mixnum = c @ (s * dealt).T  # (classes, actions)
            for k in np.flatnonzero((combos > 0) & (cdealt > 0)):  # (never dealt: no mix)
                cls_node.append(i)
                cls_id.append(int(k))
                cls_combos.append(float(combos[k]))
                row = np.full(widest, np.nan)
                row[:na] = mixnum[k] / cdealt[k]
                cls_mix.append(row)
        where = {node: i for i, node in enumerate(self.nodes)}
        labels = [""] * len(self.labels)
        for text, j in self.labels.items():
            labels[j] = text
        arr.update(
            parent=np.array(self.parent), step=np.array(self.step), mult=np.array(self.mult),
            cls_node=np.array(cls_node, dtype=np.int64), cls_id=np.array(cls_id, dtype=np.int64),
            cls_combos=np.array(cls_combos),
            cls_mix=np.array(cls_mix).reshape(len(cls_mix), widest),
            iso_node=np.array([where.get(c, -1) for c, _, _ in self.iso], dtype=np.int64),
            iso_card=np.array([card for _, card, _ in self.iso], dtype=np.int64),
            iso_smap=np.array([sm for _, _, sm in self.iso], dtype=np.int64).reshape(-1, 4),
        )  # fmt: skip
        keep = arr["iso_node"] >= 0  # isomorphic cards of a canonical card below the cut
        for name in ("iso_node", "iso_card", "iso_smap"):
            arr[name] = arr[name][keep]
        return TreeSummary(labels, list(CLASS_KEYS), arr, MIX_DEALT, self.cut)
