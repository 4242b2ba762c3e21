"""A solved flop's per-node summary of the whole tree (:class:`~solver.batch.treedata.TreeSummary`):
for every decision and chance node the players reach with non-negligible probability, the
mix as dealt (each hand weighted by its reach and the opponent's reach over the hands it does
not block), each player's EV, equity and EQR, the reach, and the actor's mix per hand
class; turn and river cards per card class under suit isomorphism.

Every number is the one :func:`solver.study.analysis.analyze` and :mod:`solver.study.views`
give at that node (Explore's numbers; the mixes weight each hand as dealt, where Explore's
aggregate weights it by its own reach alone), computed for all kept nodes at once:

- own reach vectors are carried down the tree (the products :func:`solver.cfr.reach.own_reach`
  takes, in the same order), so a node's reach costs O(H) instead of a walk up;
- counterfactual values come from the solver's evaluation walk (``run_pass`` in ``MODE_EVAL``,
  what :func:`solver.cfr.bestresponse.node_values` runs) with one scratch for all nodes and
  its arguments built once (:class:`~solver.batch.evalwalk.EvalWalk`): ``node_values`` builds
  a scratch per call, and sizing it (``Game.max_depth``, a Python loop over the nodes) costs
  60 ms on a srp-flop tree — 100× the walk below a river node;
- the per-hand arithmetic (masses, EV, equity, EQR, range means) runs on (nodes, H) arrays
  of a chunk of nodes; each number is the same operation on the same operands as at one
  node (the range means sum each node's kept hands as a slice, as ``range_summary`` does),
  but the opponent's masses: one gemm per chunk where a node took a gemv (equal bit for bit
  in the tests; a BLAS may round them differently, 1e-16 relative);
- equities are the boards of :func:`solver.study.analysis.final_boards` per group of nodes with the
  same boards, one matrix product per group; on the flop (where ``analyze`` gives NaN past
  its budget or under suit isomorphism) the exact runout equity of
  :func:`solver.games.holdem.runout_equity`, which is the same average over turn and river;
- EV, equity and EQR of a range are :func:`solver.study.views.range_summary` of the per-hand
  numbers; the per-class mix is :func:`solver.poker.handclass.class_table`'s, by one matrix product
  per node (each hand classified once per board, when a node first needs it).

**Kept nodes.** A node is kept when its *line reach* — the probability that both players
take its line given the cards dealt, ``Σ r0·M·r1 / Σ w0·M·w1`` over the hand pairs the board
allows — is at least ``min_line_reach`` (default :data:`MIN_LINE_REACH`); the line reach never
grows down the tree, so a node below the cut has no kept descendant. Terminal nodes are not
stored (their line ends the hand). No new Numba kernel: the walk and the equity kernel are
the solver's own.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.batch.evalwalk import EvalWalk
from solver.batch.treedata import MIX_DEALT, TreeSummary
from solver.cfr.layout import check_strategy
from solver.games.holdem import runout_equity
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.handclass import DRAWS, MADE, classify_hands
from solver.study.analysis import action_frequencies, compatible, investments

Array = npt.NDArray[np.float64]

MIN_LINE_REACH = 0.01
"""Default cut: lines both players take on under 1 % of the deals are not stored."""

CLASS_KEYS: tuple[str, ...] = (*MADE, *DRAWS)
CHUNK_CELLS = 1 << 19  # nodes × hands of one chunk's per-hand arrays (8 bytes each)


def summarize_tree(game: Game, sigma: Array, min_line_reach: float = MIN_LINE_REACH) -> TreeSummary:
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
        self.walker = EvalWalk(game, sigma)
        self.labels: dict[str, int] = {}
        self._base: dict[int, float] = {}
        self._chance: dict[int, int] = {}  # final_boards' memos
        self._below: dict[int, list[tuple[int, float]] | None] = {}
        # per board, per player: (class rows (classes, H[p]) 0/1, which hands are classified)
        self._classes: dict[
            int, tuple[tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]], ...]
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
    def equities(self) -> list[tuple[npt.NDArray, npt.NDArray]]:
        """Per kept node, each player's per-hand equity (:func:`solver.study.analysis.equities`),
        nodes with the same boards in one matrix product."""
        g, t = self.g, self.g.tree
        groups: dict[tuple, list[int]] = {}
        for i, node in enumerate(self.nodes):
            if not self.cards_on[i]:
                key: tuple = ("flop",)
            else:
                fb = self.final_boards(node)
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

    def final_boards(self, node: int) -> list[tuple[int, float]] | None:
        """:func:`solver.study.analysis.final_boards` of ``node``, the same list: its search
        for a chance node below and the boards below a chance node are memoised (the search
        walks a river node's whole subtree, once per kept node there)."""
        g, t = self.g, self.g.tree
        chance = self._first_chance(node)
        if chance < 0:
            return [(int(t.board[node]), 1.0)]
        if chance in self._below:
            return self._below[chance]
        out: list[tuple[int, float]] | None = []
        for c in g.children(chance):
            w = float(t.chance_weight[c])
            below = self.final_boards(c)
            if below is None or out is None:
                out = None
                break
            out.extend((b, w * wb) for b, wb in below)
            iso = range(int(t.iso_start[c]), int(t.iso_start[c] + t.iso_count[c]))
            if len(iso) and (len(below) != 1 or below[0][0] != int(t.board[c])):
                out = None
                break
            out.extend((int(t.iso_board[e]), w) for e in iso)
        self._below[chance] = out
        return out

    def _first_chance(self, node: int) -> int:
        """The chance node analysis.final_boards's search finds below ``node`` (itself if a
        chance node; the search pops the last child first), −1 if none."""
        if node not in self._chance:
            t = self.g.tree
            found = -1
            if t.kind[node] == CHANCE:
                found = node
            else:
                for c in reversed(self.g.children(node)):
                    found = self._first_chance(int(c))
                    if found >= 0:
                        break
            self._chance[node] = found
        return self._chance[node]

    def _flop_matrices(self, board: int) -> tuple[Array, Array]:
        """(Σ share·pair, Σ pair) over the turn and river runouts of the flop: the runout
        equity's mean sign as a pot share, on the pairs the flop allows."""
        h0, h1 = self.nh
        sign = np.zeros((h0, h1))
        runout_equity(np.array(self.flop, dtype=np.int64), self.cards[0], self.cards[1], sign)
        mm = (self.m & self.valid(board, 0)[:, None] & self.valid(board, 1)[None, :]).astype(float)
        return mm * (1.0 + sign) / 2.0, mm

    def class_matrix(
        self, board: int, player: int, dealt: list[int], need: tuple[Array, Array]
    ) -> npt.NDArray[np.float32]:
        """(len(CLASS_KEYS), H[player]) 0/1: which class rows each hand is in on ``board``
        (a hand in its made class and each of its draw flags; none if the board blocks it).
        Hands are classified once per board, when a node first needs them (``need[p]`` > 0:
        both players' hands in one call, whose fixed cost is most of it; a hand's class does
        not depend on the other hands')."""
        if board not in self._classes:
            self._classes[board] = tuple(
                (np.zeros((len(CLASS_KEYS), h), dtype=np.float32), np.zeros(h, dtype=bool))
                for h in self.nh
            )  # 0/1 in float32: exact
        mats = self._classes[board]
        if np.any((need[player] > 0) & ~mats[player][1]):
            todo = [np.flatnonzero((need[p] > 0) & ~mats[p][1]) for p in range(2)]
            hands = np.concatenate([self.cards[p][todo[p]] for p in range(2)])
            made, draws = classify_hands([*self.flop, *dealt], hands)
            ok = made >= 0
            for p, rows in ((0, slice(0, todo[0].size)), (1, slice(todo[0].size, None))):
                c, done = mats[p]
                m, d, k, t = made[rows], draws[rows], ok[rows], todo[p]
                c[m[k], t[k]] = 1.0
                c[len(MADE) :, t] = (d & k[:, None]).T
                done[t] = True
        return mats[player][0]

    def run(self) -> TreeSummary:
        t = self.g.tree
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
        # per decision node: its class rows' (node, class id, combos, mix (rows, widest))
        self.cls: tuple[list[npt.NDArray], ...] = ([], [], [], [])
        # nodes in chunks: the per-hand arrays of a chunk stay tens of MB on a srp-flop tree
        step = max(1, CHUNK_CELLS // (self.nh[0] + self.nh[1]))
        for lo in range(0, n, step):
            self._chunk(range(lo, min(n, lo + step)), eq, arr, widest)
        cls_node, cls_id, cls_combos = (_joined(x, (0,)) for x in self.cls[:3])
        cls_mix = _joined(self.cls[3], (0, widest))
        where = {node: i for i, node in enumerate(self.nodes)}
        labels = [""] * len(self.labels)
        for text, j in self.labels.items():
            labels[j] = text
        arr.update(
            parent=np.array(self.parent), step=np.array(self.step), mult=np.array(self.mult),
            cls_node=cls_node.astype(np.int64), cls_id=cls_id.astype(np.int64),
            cls_combos=cls_combos.astype(np.float64), cls_mix=cls_mix,
            iso_node=np.array([where.get(c, -1) for c, _, _ in self.iso], dtype=np.int64),
            iso_card=np.array([card for _, card, _ in self.iso], dtype=np.int64),
            iso_smap=np.array([sm for _, _, sm in self.iso], dtype=np.int64).reshape(-1, 4),
        )  # fmt: skip
        keep = arr["iso_node"] >= 0  # isomorphic cards of a canonical card below the cut
        for name in ("iso_node", "iso_card", "iso_smap"):
            arr[name] = arr[name][keep]
        return TreeSummary(labels, list(CLASS_KEYS), arr, MIX_DEALT, self.cut)

    def _chunk(
        self, idx: range, eq: list[tuple[npt.NDArray, npt.NDArray]], arr: dict[str, npt.NDArray],
        widest: int,
    ) -> None:  # fmt: skip
        """The numbers of kept nodes ``idx`` into ``arr``: per-hand arithmetic on (nodes, H)
        arrays, one evaluation walk per node and player, the mixes per decision node."""
        g, t = self.g, self.g.tree
        nodes = np.array([self.nodes[i] for i in idx], dtype=np.int64)
        boards = t.board[nodes].astype(np.int64)
        cf = np.array([self.cf[i] for i in idx])
        reach = [np.stack([self.reach[i][p] for i in idx]).astype(np.float64) for p in range(2)]
        valid = [g.boards.valid[boards, p, : self.nh[p]] > 0 for p in range(2)]
        # row i: mf @ reach1[i] and reach0[i] @ mf (one gemm each instead of a gemv per node)
        opp_mass = (reach[1] @ self.mf.T, reach[0] @ self.mf)
        # one dot per node, as the reference takes it (an einsum rounds differently)
        pair = np.array([reach[0][j] @ opp_mass[0][j] for j in range(nodes.shape[0])])
        arr["reach"][idx.start : idx.stop] = cf * pair
        pots = [investments(g, int(node)) for node in nodes]
        pot = np.array([x[0] for x in pots])
        arr["pot"][idx.start : idx.stop] = pot
        masses, own = [], []
        for p in range(2):
            mass = np.where(valid[p], opp_mass[p], 0.0)
            masses.append(mass)
            r = np.where(valid[p], reach[p], 0.0)
            own.append(r)
            cfv = np.empty_like(mass)
            for j, node in enumerate(nodes):
                cfv[j] = self.walker.values(int(node), p, reach[1 - p][j], float(cf[j]))
            mcf = mass * cf[:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                ev = np.where(mass > 0, cfv / np.where(mass > 0, mcf, 1.0), np.nan)
                ev = ev + g.ev_offset
                # float32 as analysis.equities gives it (the mean's products promote)
                equity = np.where(valid[p], np.stack([eq[i][p] for i in idx]), np.nan)
            inv = np.array([x[1 + p] for x in pots])
            ev_m, eq_m = _range_means(r * mass, ev, equity)
            denom = eq_m * pot
            with np.errstate(invalid="ignore"):
                ok = np.isfinite(ev_m) & np.isfinite(denom) & (denom > 0)
                eqr = np.where(ok, (ev_m + inv) / np.where(ok, denom, 1.0), np.nan)
            rows = slice(idx.start, idx.stop)
            arr["ev"][rows, p], arr["equity"][rows, p], arr["eqr"][rows, p] = ev_m, eq_m, eqr
        for j, i in enumerate(idx):
            node = int(nodes[j])
            if t.kind[node] != DECISION:
                arr["kind"][i] = 1
                continue
            p = int(t.player[node])
            arr["player"][i] = p
            off, na, nh = g.block(node)
            s = self.sigma[off : off + na * nh].reshape(na, nh)
            r = own[p][j]
            dealt = r * masses[p][j]  # as dealt: the opponent's range removes hands it blocks
            arr["mix"][i, :na] = action_frequencies(s, dealt)
            arr["actions"][i, :na] = [self.label(lab) for lab in g.action_labels(node)]
            c = self.class_matrix(int(boards[j]), p, self.cards_on[i], (own[0][j], own[1][j]))
            combos = c @ r
            cdealt = c @ dealt
            mixnum = c @ (s * dealt).T  # (classes, actions)
            kk = np.flatnonzero((combos > 0) & (cdealt > 0))  # (never dealt: no mix)
            mix = np.full((kk.size, widest), np.nan)
            mix[:, :na] = mixnum[kk] / cdealt[kk, None]
            self.cls[0].append(np.full(kk.size, i, dtype=np.int64))
            self.cls[1].append(kk.astype(np.int64))
            self.cls[2].append(combos[kk])
            self.cls[3].append(mix)


def _joined(parts: list[npt.NDArray], empty: tuple[int, ...]) -> npt.NDArray:
    """``parts`` end to end (an empty float array of shape ``empty`` when there are none)."""
    return np.concatenate(parts) if parts else np.zeros(empty)


def _range_means(w: Array, ev: Array, equity: npt.NDArray) -> tuple[Array, Array]:
    """Per row (node), :func:`solver.study.views.range_summary`'s EV and equity: the means
    of ``ev`` and ``equity`` (nodes, H) weighted by ``w`` over the hands where the number is
    finite and ``w`` > 0; NaN where no hand has weight. Each row's kept hands are summed as
    range_summary sums them (a slice of the kept products: the same numbers, bit for bit,
    where a masked sum with zeros would round differently)."""
    total = w.sum(axis=1)
    out = []
    for x in (ev, equity):
        ok = np.isfinite(x) & (w > 0)
        count = ok.sum(axis=1)
        ends = np.cumsum(count)
        kept_w = w[ok]
        kept_wx = kept_w * x[ok]
        s = np.zeros(w.shape[0])
        num = np.zeros(w.shape[0])
        for j in np.flatnonzero((count > 0) & (total > 0)):
            lo, hi = int(ends[j] - count[j]), int(ends[j])
            s[j] = kept_w[lo:hi].sum()
            num[j] = kept_wx[lo:hi].sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where((s > 0) & (total > 0), num / np.where(s > 0, s, 1.0), np.nan))
    return out[0], out[1]
