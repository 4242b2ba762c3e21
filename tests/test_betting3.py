"""The three-player betting tree of one street (solver/tree/betting3.py, issue 49): every line
equals an independent recursive enumeration written here (Leduc-style counting of calls since
the last bet, its own size arithmetic), a hand-counted small tree, and every terminal's chips
are consistent (matched bets at a showdown, the pot conserved)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.betting3 import Betting3Config, Betting3Tree, build_betting3
from solver.tree.kinds import DECISION, FIXED, SHOWDOWN
from solver.tree.sizes import parse_sizes

Line = tuple[str, ...]
Record = tuple[int, int, tuple[float, ...], tuple[bool, ...]]


def config(
    pot: int,
    stack: int,
    bets: str,
    raises: str,
    cap: int,
    bb: float = 10.0,
    per: dict | None = None,
) -> Betting3Config:
    """One set of sizes for all three players, ``per[p] = (bets, raises)`` overriding."""
    sizes = []
    for p in range(3):
        b, r = (per or {}).get(p, (bets, raises))
        sizes.append(
            PlayerSizes(parse_sizes(b, raise_sizes=False), parse_sizes(r, raise_sizes=True))
        )
    return Betting3Config(pot, stack, (sizes[0], sizes[1], sizes[2]), big_blind=bb, raise_cap=cap)


def _tokens(text: str) -> list[tuple[str, float]]:
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if tok:
            out.append(("a", 0.0) if tok == "a" else (tok[-1], float(tok[:-1])))
    return out


def enumerate_lines(
    pot: int,
    stack: int,
    bets: str,
    raises: str,
    cap: int,
    bb: float = 10.0,
    per: dict | None = None,
) -> dict[Line, Record]:
    """Every line of the street by plain recursion: line → (kind, actor, chips in, who is in).
    The round closes when, after the last bet, every other player still in has called or
    folded, or when all three checked (counts of calls, as OpenSpiel's Leduc closes rounds)."""
    ante = pot / 3
    out: dict[Line, Record] = {}

    def sizes_of(p: int) -> tuple[str, str]:
        return (per or {}).get(p, (bets, raises))

    def walk(
        line: Line, put: list[float], live: list[bool], actor: int, aggr: int, calls: int,
        inc: float,
    ) -> None:  # fmt: skip
        chips = tuple(ante + x for x in put)
        in_ = tuple(live)
        n_in = sum(live)
        if n_in == 1:
            out[line] = (FIXED, -1, chips, in_)
            return
        if (aggr == 0 and calls == 3) or (aggr > 0 and calls == n_in - 1):
            out[line] = (SHOWDOWN, -1, chips, in_)
            return
        out[line] = (DECISION, actor, chips, in_)
        nxt = next(q for q in ((actor + 1) % 3, (actor + 2) % 3) if live[q])
        top = max(put)
        own = put[actor]
        middle = pot + sum(put)
        if top > own:
            folded = list(live)
            folded[actor] = False
            walk((*line, "f"), put, folded, nxt, aggr, calls, inc)
            called = list(put)
            called[actor] = top
            walk((*line, "c"), called, live, nxt, aggr, calls + 1, inc)
        else:
            walk((*line, "k"), put, live, nxt, aggr, calls + 1, inc)
        allin_someone = any(live[q] and put[q] >= stack for q in range(3))
        targets: set[float] = set()
        if top > own:
            if aggr - 1 < cap and not allin_someone and stack - own > top - own:
                floor = top + max(inc, bb)
                for kind, v in _tokens(sizes_of(actor)[1]):
                    if kind == "a":
                        to = float(stack)
                    elif kind == "%":
                        to = round(top + v / 100 * (middle + top - own))
                    elif kind == "x":
                        to = round(v * top)
                    else:  # chips over the bet faced
                        to = round(top + v)
                    targets.add(min(max(to, floor), float(stack)))
        else:
            for kind, v in _tokens(sizes_of(actor)[0]):
                if kind == "a":
                    to = float(stack)
                elif kind == "%":
                    to = round(v / 100 * middle)
                else:
                    to = round(v)
                targets.add(min(max(to, bb), float(stack)))
        for to in sorted(targets):
            raised = list(put)
            raised[actor] = to
            label = f"{'r' if top > own else 'b'}:{int(to)}"
            walk((*line, label), raised, live, nxt, aggr + 1, 0, max(inc, to - top))

    walk((), [0.0, 0.0, 0.0], [True, True, True], 0, 0, 0, 0.0)
    return out


def lines_of(tree: Betting3Tree) -> dict[Line, Record]:
    return {
        tree.history(n): (
            int(tree.kind[n]),
            int(tree.player[n]),
            tuple(tree.contrib[n].tolist()),
            tuple(bool(x) for x in tree.active[n]),
        )
        for n in range(tree.num_nodes)
    }


CASES = [
    (30, 100, "50%, a", "100%", 1),
    (30, 100, "50%, a", "100%", 2),
    (60, 200, "33%, 75%", "2.5x, a", 2),
    (100, 250, "33%, 75%, a", "50%, a", 3),
    (90, 1000, "10%, 100%", "100%", 3),  # min bet and min-raise floors at work
    (40, 35, "50%, 100%, a", "100%, a", 3),  # sizes merge into all-in
    (30, 100, "a", "", 5),
    (50, 300, "50%", "120c, a", 2),
]


@pytest.mark.parametrize("case", CASES)
def test_every_line_equals_the_recursive_enumeration(case: tuple) -> None:
    tree = build_betting3(config(*case))
    ref = enumerate_lines(*case)
    got = lines_of(tree)
    assert len(got) == tree.num_nodes  # no line twice
    assert got.keys() == ref.keys()
    for line, rec in ref.items():
        kind, actor, chips, in_ = got[line]
        assert (kind, actor, in_) == (rec[0], rec[1], rec[3]), line
        np.testing.assert_allclose(chips, rec[2], rtol=0, atol=1e-12, err_msg=str(line))


def test_per_player_sizes() -> None:
    per = {1: ("a", ""), 2: ("33%", "3x")}
    case = (60, 400, "50%, 100%", "100%", 2)
    ref = enumerate_lines(*case, per=per)
    tree = build_betting3(config(*case, per=per))
    assert lines_of(tree).keys() == ref.keys()
    # player 1 only shoves, player 2 bets 33 %
    kids = [tree.labels[c] for c in tree.children(1)]  # after "k": player 1 acts
    assert kids == ["k", "b:400"]


def test_hand_counted_shove_or_check_tree() -> None:
    """Bets "a" only, no raises: counted by hand — 25 nodes, 12 decisions, 13 terminals; the
    three lines where both others fold to the shove end without a showdown."""
    tree = build_betting3(config(30, 100, "a", "", 3))
    assert tree.num_nodes == 25
    assert tree.decision_nodes().size == 12
    assert int(np.sum(tree.kind == SHOWDOWN)) + int(np.sum(tree.kind == FIXED)) == 13
    fixed = {tree.history(int(n)) for n in np.flatnonzero(tree.kind == FIXED)}
    assert fixed == {
        ("b:100", "f", "f"),
        ("k", "b:100", "f", "f"),
        ("k", "k", "b:100", "f", "f"),
    }


@pytest.mark.parametrize("case", CASES)
def test_layout_and_chips_are_consistent(case: tuple) -> None:
    tree = build_betting3(config(*case))
    pot, stack = case[0], case[1]
    ante = pot / 3
    n = tree.num_nodes
    # breadth first: parents first, depth non-decreasing, siblings contiguous
    assert np.all(np.diff(tree.depth) >= 0)
    for k in range(1, n):
        par = int(tree.parent[k])
        assert par < k and k in tree.children(par)
        assert tree.depth[k] == tree.depth[par] + 1
    assert np.all((tree.first_child >= 0) == (tree.kind == DECISION))
    assert np.all(tree.contrib >= ante - 1e-12) and np.all(tree.contrib <= ante + stack + 1e-12)
    for t in tree.terminal_nodes().tolist():
        c, a = tree.contrib[t], tree.active[t]
        if tree.kind[t] == FIXED:
            assert a.sum() == 1
            # the last one in made the largest commitment, or everyone checked to it
            assert c[a][0] == c.max()
        else:
            assert a.sum() >= 2
            assert np.all(c[a] == c[a].max())  # matched
            assert np.all(c[~a] <= c[a].max())
        # pot conservation: the starting pot plus every chip bet on the way
        bets = 0.0
        k = t
        while k > 0:
            par = int(tree.parent[k])
            bets += float((tree.contrib[k] - tree.contrib[par]).sum())
            k = par
        assert abs(c.sum() - (pot + bets)) < 1e-9
    # a decision node's actor is in and still owes a move: it never folds when not facing
    for d in tree.decision_nodes().tolist():
        p = int(tree.player[d])
        assert tree.active[d, p]
        labels = [tree.labels[c] for c in tree.children(d)]
        facing = tree.contrib[d, p] < tree.contrib[d].max()
        assert labels[:2] == ["f", "c"] if facing else labels[0] == "k"


def test_all_in_leaves_only_call_or_fold() -> None:
    tree = build_betting3(config(30, 100, "50%, a", "100%, a", 5))
    for d in tree.decision_nodes().tolist():
        if np.any(tree.active[d] & (tree.contrib[d] >= 10 + 100)):
            assert [tree.labels[c] for c in tree.children(d)] == ["f", "c"]


def test_preorder_lists_every_decision_once_parents_first() -> None:
    tree = build_betting3(config(60, 200, "33%, 75%", "2.5x, a", 2))
    pre = tree.preorder().tolist()
    assert sorted(pre) == tree.decision_nodes().tolist()
    seen: set[int] = set()
    for n in pre:
        par = int(tree.parent[n])
        assert par < 0 or par in seen
        seen.add(n)


def test_node_limit_stops_the_build() -> None:
    cfg = config(100, 10_000, "10%, 33%, 75%, 150%, a", "50%, 100%, 2x, a", 6)
    with pytest.raises(TreeTooLarge, match="passes 1,000 nodes"):
        build_betting3(cfg, max_nodes=1_000)
