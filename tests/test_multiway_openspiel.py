"""Three-player Kuhn and Leduc against OpenSpiel: the same games (every terminal's payoffs,
every information set) and the same values — each player's expected value, best-response
value and NashConv — for the uniform profile, a random one, one CFR reaches and members of
the Szafron–Gibson–Sturtevant equilibrium family."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from solver.games.multiway import MultiGame, kuhn_multi, leduc_multi, multi_game
from solver.games.nashconv import (
    best_response_profile,
    best_response_values,
    check_profile,
    expected_values,
    nash_report,
    on_policy_values,
    uniform_profile,
)
from solver.tree.kinds import CHANCE, DECISION

pyspiel = pytest.importorskip("pyspiel")
exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
best_response = pytest.importorskip("open_spiel.python.algorithms.best_response")
expected_game_score = pytest.importorskip("open_spiel.python.algorithms.expected_game_score")
policy_mod = pytest.importorskip("open_spiel.python.policy")

# OpenSpiel's action ids by our labels (Kuhn: pass/bet; Leduc: fold/call/raise)
ACTION_LABELS: dict[str, dict[int, tuple[str, ...]]] = {
    "kuhn3": {0: ("k", "f"), 1: ("b", "c")},
    "leduc3": {0: ("f",), 1: ("c",), 2: ("r",)},
}


@functools.cache
def game(name: str) -> MultiGame:
    return multi_game(name)


@functools.cache
def os_game(name: str) -> Any:
    return pyspiel.load_game(str(game(name).meta["openspiel"]))


def child_for(g: MultiGame, name: str, node: int, action: int) -> int:
    """Our child of ``node`` for OpenSpiel's ``action`` (a public card at a chance node)."""
    if g.kind[node] == CHANCE:
        want: tuple[str, ...] = (f"d:{g.card_names[action]}",)
    else:
        want = ACTION_LABELS[name][action]
    (child,) = [c for c in g.children(node) if g.labels[c] in want]
    return child


def our_node(g: MultiGame, name: str, history: list[int]) -> int:
    """Our public node after OpenSpiel's ``history`` (the private deals first)."""
    node = 0
    for a in history[g.num_players :]:
        node = child_for(g, name, node, a)
    return node


def to_openspiel(name: str, sigma: np.ndarray) -> Any:
    """An OpenSpiel TabularPolicy playing our profile ``sigma``."""
    g = game(name)
    pol = policy_mod.TabularPolicy(os_game(name))
    h = g.num_hands
    for i, state in enumerate(pol.states):
        hist = state.history()
        node = our_node(g, name, hist)
        assert g.kind[node] == DECISION and g.player[node] == state.current_player()
        hand = hist[state.current_player()]
        legal = state.legal_actions()
        assert len(legal) == g.num_children[node]
        row = np.zeros(pol.action_probability_array.shape[1])
        for a in legal:
            k = child_for(g, name, node, a) - int(g.first_child[node])
            row[a] = sigma[g.offset[node] + k * h + hand]
        pol.action_probability_array[i] = row
    return pol


def openspiel_values(name: str, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """OpenSpiel's (on-policy values, best-response values, NashConv) of our profile.

    NashConv as ``exploitability.nash_conv`` computes it, from the same parts (its best
    responses and on-policy values), each walk of Leduc's 1.8 million states done once;
    Kuhn also asks ``nash_conv`` itself."""
    gm = os_game(name)
    pol = to_openspiel(name, sigma)
    root = gm.new_initial_state()
    br = np.array([best_response.BestResponsePolicy(gm, p, pol).value(root) for p in range(3)])
    value = np.array(expected_game_score.policy_value(root, [pol] * 3))
    if name == "kuhn3":
        assert exploitability.nash_conv(gm, pol) == pytest.approx((br - value).sum(), abs=1e-12)
    return value, br, float((br - value).sum())


def random_profile(g: MultiGame, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sigma = np.empty(g.profile_size)
    for n in g.decision_nodes():
        a = int(g.num_children[n])
        block = rng.random((a, g.num_hands)) ** 3
        sigma[g.offset[n] : g.offset[n] + a * g.num_hands] = (block / block.sum(axis=0)).ravel()
    return sigma


def check_against_openspiel(name: str, sigma: np.ndarray) -> None:
    g = game(name)
    ours = nash_report(g, sigma)
    value, br, nash_conv = openspiel_values(name, sigma)
    np.testing.assert_allclose(ours.value, value, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.best_response, br, rtol=0, atol=1e-9)
    assert ours.nash_conv == pytest.approx(nash_conv, abs=1e-9)
    np.testing.assert_allclose(on_policy_values(g, sigma), ours.value, rtol=0, atol=1e-12)


# ----- the games are OpenSpiel's ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["kuhn3", "leduc3"])
def test_information_sets_are_openspiels(name: str) -> None:
    """Every OpenSpiel information set is one (node, hand) of ours and none is left over."""
    g = game(name)
    # OpenSpiel's information sets as its TabularPolicy lists them (one history each, keyed
    # by the information state string), from a plain walk of its tree: TabularPolicy's own
    # walk keeps every state of leduc3's 1.8 million, this one only a history per set
    first: dict[str, tuple[list[int], int]] = {}

    def walk(state: Any) -> None:
        if state.is_terminal():
            return
        if not state.is_chance_node():
            first.setdefault(state.information_state_string(),
                             (state.history(), state.current_player()))  # fmt: skip
        for a in state.legal_actions():
            walk(state.child(a))

    walk(os_game(name).new_initial_state())
    if name == "kuhn3":  # the walk finds what TabularPolicy lists
        pol = policy_mod.TabularPolicy(os_game(name))
        assert sorted(first) == sorted(pol.state_lookup)
    ours = {(our_node(g, name, hist), hist[player]) for hist, player in first.values()}
    assert len(ours) == len(first)
    assert len(first) == sum(g.num_infosets)


@pytest.mark.parametrize(("name", "deals"), [("kuhn3", None), ("leduc3", 5)])
def test_every_terminal_pays_as_openspiel(name: str, deals: int | None) -> None:
    """For each deal (all of Kuhn's, five of Leduc's), walking OpenSpiel's tree and ours
    together: the same legal actions everywhere and the same payoffs at every terminal."""
    g = game(name)
    rng = np.random.default_rng(7)
    rows = range(g.deals.shape[0]) if deals is None else rng.choice(g.deals.shape[0], deals)
    seen = 0

    def walk(state: Any, node: int, d: int) -> None:
        nonlocal seen
        if state.is_terminal():
            row = g.terminal_row[node]
            assert row >= 0
            np.testing.assert_allclose(g.payoff[row, :, d], state.returns(), atol=1e-12)
            seen += 1
            return
        if state.is_chance_node():  # the public card: ours lists every card, each valid
            dealt = {a: prob for a, prob in state.chance_outcomes()}  # deal blocked by its own
            ok = [c for c in g.children(node) if g.deal_valid[g.board[c], d]]
            assert sorted(child_for(g, name, node, a) for a in dealt) == ok
            for a, prob in dealt.items():
                assert g.chance_weight[child_for(g, name, node, a)] == pytest.approx(prob)
        else:
            assert len(state.legal_actions()) == g.num_children[node]
        for a in state.legal_actions():
            walk(state.child(a), child_for(g, name, node, a), d)

    for d in rows:
        state = os_game(name).new_initial_state()
        for hand in g.deals[d]:
            state = state.child(int(g.hand_cards[hand, 0]))
        walk(state, 0, int(d))
    assert seen > 0


# ----- values ----------------------------------------------------------------------------------


def test_kuhn3_uniform_and_random_profiles_agree_with_openspiel() -> None:
    g = game("kuhn3")
    check_against_openspiel("kuhn3", uniform_profile(g))
    for seed in (0, 1, 2):
        check_against_openspiel("kuhn3", random_profile(g, seed))


# OpenSpiel's own values for leduc3 (``leduc_poker(players=3)``): each player's on-policy
# value, best-response value and NashConv of the uniform profile and of
# ``random_profile(leduc3, 3)``, as ``openspiel_values`` computes them (its Python best
# response walks 1.8 million states per player, over a minute each; run
# ``python tests/test_multiway_openspiel.py`` to compute them again).
LEDUC3_OPENSPIEL = {
    "uniform": (
        [-0.1586130401234569, -0.019097222222222487, 0.17771026234567885],
        [3.8349361359126983, 4.076805693342151, 4.699479511133155],
        12.611221340388003,
    ),
    "random3": (
        [-0.3278030644206925, 0.15883436299667325, 0.1689687014240192],
        [4.7842380666316355, 4.9627860468774205, 5.065908328171782],
        14.812932441680838,
    ),
}


def leduc3_profile(label: str) -> np.ndarray:
    g = game("leduc3")
    return uniform_profile(g) if label == "uniform" else random_profile(g, 3)


@pytest.mark.parametrize("label", sorted(LEDUC3_OPENSPIEL))
def test_leduc3_agrees_with_openspiels_values(label: str) -> None:
    g, sigma = game("leduc3"), leduc3_profile(label)
    value, br, nash_conv = LEDUC3_OPENSPIEL[label]
    ours = nash_report(g, sigma)
    np.testing.assert_allclose(ours.value, value, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.best_response, br, rtol=0, atol=1e-9)
    assert ours.nash_conv == pytest.approx(nash_conv, abs=1e-9)
    np.testing.assert_allclose(on_policy_values(g, sigma), ours.value, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("build", "players"), [("kuhn", 2), ("kuhn", 4), ("leduc", 2)])
def test_other_player_counts_agree_with_openspiel(build: str, players: int) -> None:
    """The builders follow OpenSpiel's rules for any number of players: the uniform profile's
    Nash distances of two- and four-player Kuhn and two-player Leduc are OpenSpiel's."""
    g = kuhn_multi(players) if build == "kuhn" else leduc_multi(players)
    gm = pyspiel.load_game(str(g.meta["openspiel"]))
    ours = nash_report(g, uniform_profile(g))
    res = exploitability.nash_conv(
        gm, policy_mod.UniformRandomPolicy(gm), return_only_nash_conv=False
    )
    np.testing.assert_allclose(ours.nash_distance, res.player_improvements, rtol=0, atol=1e-9)


def naive_cfr(g: MultiGame, iterations: int) -> np.ndarray:
    """Vanilla CFR by recursion over every deal and history (a reference, slow and plain):
    simultaneous updates, the average profile weighted by each player's own reach."""
    h = g.num_hands
    regret = np.zeros(g.profile_size)
    avg = np.zeros(g.profile_size)

    def current(node: int) -> np.ndarray:
        a = int(g.num_children[node])
        r = np.maximum(regret[g.offset[node] : g.offset[node] + a * h].reshape(a, h), 0.0)
        tot = r.sum(axis=0)
        return np.where(tot > 0, r / np.where(tot > 0, tot, 1.0), 1.0 / a)

    def walk(node: int, d: int, reach: np.ndarray, chance: float) -> np.ndarray:
        row = g.terminal_row[node]
        if row >= 0:
            return g.payoff[row, :, d]
        kids = list(g.children(node))
        if g.kind[node] == CHANCE:
            out = np.zeros(g.num_players)
            for c in kids:
                if g.deal_valid[g.board[c], d]:
                    out += g.chance_weight[c] * walk(c, d, reach, chance * g.chance_weight[c])
            return out
        p = int(g.player[node])
        hand = int(g.deals[d, p])
        strat = current(node)[:, hand]
        vals = []
        for k, c in enumerate(kids):
            r = reach.copy()
            r[p] *= strat[k]
            vals.append(walk(c, d, r, chance))
        vals_a = np.array(vals)  # (A, P)
        node_v = strat @ vals_a
        others = chance * np.prod(np.delete(reach, p))
        idx = g.offset[node] + np.arange(len(kids)) * h + hand
        regret[idx] += others * (vals_a[:, p] - node_v[p])
        avg[idx] += reach[p] * strat
        return node_v

    for _ in range(iterations):
        for d in range(g.deals.shape[0]):
            walk(0, d, np.ones(g.num_players), float(g.deal_weight[d]))
    out = np.empty_like(avg)
    for n in g.decision_nodes():
        a = int(g.num_children[n])
        block = avg[g.offset[n] : g.offset[n] + a * h].reshape(a, h)
        tot = block.sum(axis=0)
        out[g.offset[n] : g.offset[n] + a * h] = np.where(
            tot > 0, block / np.where(tot > 0, tot, 1.0), 1.0 / a
        ).ravel()
    return out


def test_a_cfr_profile_of_kuhn3_agrees_with_openspiel() -> None:
    """A profile CFR reaches — non-trivial, mixed where play is — measured the same by both."""
    g = game("kuhn3")
    sigma = naive_cfr(g, 150)
    check_against_openspiel("kuhn3", sigma)
    assert nash_report(g, sigma).nash_conv < 0.1 * nash_report(g, uniform_profile(g)).nash_conv


# ----- the Szafron–Gibson–Sturtevant family (AAMAS 2013, Table 3) ------------------------------

# each player's situations (the paper's k = 1..4) as our histories
SITUATIONS = (
    ((), ("k", "k", "b"), ("k", "b", "f"), ("k", "b", "c")),  # player 1 (ours 0): a_jk
    (("k",), ("b",), ("k", "k", "b", "f"), ("k", "k", "b", "c")),  # player 2: b_jk
    (("k", "k"), ("k", "b"), ("b", "f"), ("b", "c")),  # player 3: c_jk
)


def szafron_profile(
    b11: float, b21: float, b23: float, b32: float, c11: float, c33: float, c34: float
) -> np.ndarray:
    """A member of the family: x[p][j][k] is player p's chance of the aggressive action (bet
    or call) holding card j (J, Q, K, A) in situation k. Table 2's necessary values (a card 1
    never calls, card 4 always calls, card 2 never calls in situation 4) and Table 3."""
    beta = max(b11, b21)
    x = np.zeros((3, 4, 4))
    x[:, 3, 1:] = 1.0  # x_42 = x_43 = x_44 = 1
    x[0, 2, 2] = 0.5  # a_33
    x[1, 0, 0], x[1, 1, 0], x[1, 1, 2], x[1, 2, 1] = b11, b21, b23, b32
    x[1, 2, 2] = 0.5 + (b11 + b21) / 2 + beta / 2 - b23 * (1 - b21)  # b_33
    x[1, 3, 0] = 2 * b11 + 2 * b21  # b_41
    x[2, 0, 0], x[2, 1, 0], x[2, 2, 2], x[2, 2, 3] = c11, 0.5 - c11, c33, c34
    x[2, 3, 0] = 1.0  # c_41
    g = game("kuhn3")
    sigma = uniform_profile(g)
    for p in range(3):
        for k, hist in enumerate(SITUATIONS[p]):
            node = next(n for n in g.decision_nodes() if g.history(int(n)) == hist)
            assert g.player[node] == p
            off = int(g.offset[node])
            sigma[off + 4 : off + 8] = x[p, :, k]
            sigma[off : off + 4] = 1.0 - x[p, :, k]
    return sigma


@pytest.mark.parametrize(
    "params",
    [
        # sub-family A: c11 = 0, b11 <= b21 <= 1/4, b23 = 0
        dict(b11=0.125, b21=0.2, b23=0.0, b32=0.3, c11=0.0, c33=0.3, c34=0.6),
        # sub-family B: 0 < c11 < 1/2, b21 = b11 <= 1/4, b23 = 0
        dict(b11=0.15, b21=0.15, b23=0.0, b32=0.4, c11=0.3, c33=0.2, c34=0.0),
        # sub-family C: c11 = 1/2, b21 <= min(b11, 1/2 - 2 b11), b23 at its bound
        dict(b11=0.2, b21=0.05, b23=0.15 / 1.9, b32=0.0, c11=0.5, c33=0.6, c34=1.0),
    ],
)
def test_a_szafron_profile_is_an_equilibrium(params: dict[str, float]) -> None:
    """NashConv 0 in our best response, and the paper's utilities: u1 = -κ(1/2 + β),
    u2 = -κ/2, u3 = κ(1 + β) with κ = 1/24 and β = max(b11, b21)."""
    g = game("kuhn3")
    sigma = check_profile(g, szafron_profile(**params))
    report = nash_report(g, sigma)
    assert abs(report.nash_conv) < 1e-12
    assert np.all(np.abs(report.nash_distance) < 1e-12)
    kappa, beta = 1 / 24, max(params["b11"], params["b21"])
    expected = [-kappa * (0.5 + beta), -kappa / 2, kappa * (1 + beta)]
    np.testing.assert_allclose(report.value, expected, rtol=0, atol=1e-14)


def test_off_the_family_is_not_an_equilibrium() -> None:
    """The check can fail: b33 off Table 3's formula (the paper's Section 5 slip) leaves
    player 2 a profitable deviation."""
    g = game("kuhn3")
    sigma = szafron_profile(b11=0.2, b21=0.05, b23=0.0, b32=0.0, c11=0.5, c33=0.6, c34=1.0)
    node = next(n for n in g.decision_nodes() if g.history(int(n)) == ("k", "k", "b", "f"))
    off = int(g.offset[node])
    sigma[off + 4 + 2], sigma[off + 2] = 0.65, 0.35  # (1 + b11 + 2 b21) / 2 instead of 0.725
    report = nash_report(g, sigma)
    assert report.nash_conv > 1e-4


# ----- consistency and bad input -------------------------------------------------------------


def test_values_sum_to_zero_and_best_responses_dominate() -> None:
    g = game("kuhn3")
    sigma = random_profile(g, 5)
    assert abs(expected_values(g, sigma).sum()) < 1e-12
    assert np.all(best_response_values(g, sigma) >= expected_values(g, sigma) - 1e-12)


@pytest.mark.parametrize("name", ["kuhn3", "leduc3"])
def test_playing_the_best_response_earns_its_value(name: str) -> None:
    """Each player's pure best response, played against the others' unchanged strategies,
    earns that player its best-response value — and leaves it no Nash distance."""
    g = game(name)
    sigma = random_profile(g, 11)
    br = best_response_values(g, sigma)
    for p in range(3):
        played = best_response_profile(g, sigma, p)
        assert set(np.unique(played[sigma != played])) <= {0.0, 1.0}
        assert expected_values(g, played)[p] == pytest.approx(br[p], abs=1e-12)
        assert nash_report(g, played).nash_distance[p] == pytest.approx(0.0, abs=1e-12)


def test_a_bad_profile_is_refused_by_name() -> None:
    g = game("kuhn3")
    with pytest.raises(ValueError, match="profile: expected 96"):
        nash_report(g, np.ones(5))
    bad = uniform_profile(g)
    bad[0] = 0.9
    with pytest.raises(ValueError, match=r"profile: .* node 0 \(root\) do not sum to 1"):
        nash_report(g, bad)
    bad[0] = -0.5
    with pytest.raises(ValueError, match="not negative"):
        nash_report(g, bad)
    with pytest.raises(ValueError, match="player: expected 0 to 2"):
        best_response_profile(g, uniform_profile(g), 3)
    with pytest.raises(ValueError, match="players: expected 2, 3 or 4"):
        kuhn_multi(10)
    with pytest.raises(ValueError, match="game: expected one of kuhn3, leduc3"):
        multi_game("kuhn4")


if __name__ == "__main__":  # OpenSpiel's leduc3 values again (LEDUC3_OPENSPIEL)
    for label in sorted(LEDUC3_OPENSPIEL):
        v, b, nc = openspiel_values("leduc3", leduc3_profile(label))
        print(label, v.tolist(), b.tolist(), nc)
