"""Monte Carlo CFR: external sampling, outcome sampling and discounted MCCFR in one scalar walk.

The vector engine (:mod:`solver.cfr.walk`) walks the public tree with one entry per private
hand. Sampled CFR (Lanctot, Waugh, Zinkevich, Bowling 2009, "Monte Carlo Sampling for Regret
Minimization in Extensive Games", NIPS) instead walks the same tree for ONE dealt pair of hands
``(h0, h1)`` and samples what the traverser does not control. A pass for traverser ``i``:

1. **deal**: draws ``(h0, h1)`` with probability ``norm · w0(h0) · w1(h1)`` (range weights) over
   the pairs sharing no card with each other or with the initial board;
2. **chance**: at a chance node draws one card uniformly among the cards compatible with both
   hands and the board (``chance_weight`` each), suit-isomorphic images included: drawing an
   image walks on in the canonical child with both hands mapped through ``Hands.perm``;
3. at **decision nodes** it follows the algorithm (``mode``):

   * external sampling (``mccfr-es``): the traverser tries every action, the opponent samples
     one from its current strategy σ (regret matching of its regrets, uniform when none is
     positive). At the traverser's node ``R(I, a) += v(a) − v(I)`` with ``v(I) = Σ_a σ(a) v(a)``
     (``v`` the sampled per-deal payoffs in chips); at the opponent's node its strategy sums get
     ``S(I, a) += σ(a)``: the "simple" average of Lanctot 2009 and OpenSpiel's
     ``external_sampling_mccfr`` (no reach weighting; unbiased because the opponent reaches
     ``I`` with the probability of its own strategy);
   * outcome sampling (``mccfr-os``): one trajectory. The traverser samples from
     ``q = ε·uniform + (1 − ε)·σ`` and the opponent from σ; with ``π_i``, ``π_o``, ``s`` the
     traverser's, the opponent's and the sampling reach of the node (products of σ and q along
     the path, chance left out), ``u`` the tail estimate returned by the child of the sampled
     action ``a*`` and ``c(a) = u / q(a*)`` for ``a = a*``, 0 otherwise,
     ``v̂ = Σ_a σ(a) c(a)``; then ``R(I, a) += (c(a) − v̂) · π_o / s`` and
     ``S(I, a) += π_i · σ(a) / s`` at the traverser's nodes, and ``v̂`` is returned
     (OpenSpiel's ``outcome_sampling_mccfr``, baseline 0);
   * discounted MCCFR (``dmccfr``, Brown & Sandholm 2019, "Solving Imperfect-Information Games
     via Discounted Regret Minimization", AAAI, section "Discounted Monte Carlo CFR"): external
     sampling, with the run cut into periods of ``period`` nodes touched; when period ``t``
     ends every accumulated regret and strategy sum (both players) is multiplied by
     ``t / (t + 1)``. Periods are checked at iteration ends: an iteration that finishes
     periods ``t … t + k − 1`` applies all ``k`` factors.

An iteration is a pass with traverser 0 then one with traverser 1 (alternating updates).
"Nodes touched" counts every node a pass enters, chance nodes and terminals included.

**Scale.** The vector engine's counterfactual values carry the chance of the deal
(``norm · w_opp``); sampled values are per deal. Expected increments of one pass relate to the
full-width CFR pass of the same state (``tests/test_sampling.py`` checks both to 1e-12): for an
infoset ``I = (node, h)`` of player ``p``

* regrets (traverser ``p``, ES and OS): ``E[ΔR(I, a)] = w_p(h) · m(node) · ΔR_cfr(I, a)``;
* sums (ES: opponent ``p``; OS: traverser ``p``): ``E[ΔS(I, a)] = M_p(node, h) · m(node) ·
  ΔS_cfr(I, a)`` where ``ΔS_cfr`` is what the CFR pass of the other player adds and
  ``M_p(node, h) = Σ w_{1−p}(k)`` over the other player's hands ``k`` compatible with ``h``
  and the node's board (OS: only those ``k`` whose own strategy reaches the node — a
  trajectory never passes an opponent action of probability 0, as in OpenSpiel);

``m(node)`` is the node's suit-isomorphism multiplicity (:attr:`Game.multiplicity`): a canonical
subtree receives the samples of every card it stands for (exact when the state above the
chance node is suit-symmetric, as CFR keeps it from a symmetric start). The factors are
constant per infoset (OS sums: while the opponent's support is), so regret matching and
the normalised average are those of CFR in expectation. Deviation from OpenSpiel's outcome
sampling: chance (the deal and the cards) is left out of the sampling reach ``s`` of the
average-strategy increment, as it cancels out of the regret weight ``π_o / s``. OpenSpiel
divides by it, which counts an infoset's histories instead of weighing them by their
chance: also a constant per infoset, but not the CFR relation above.

**Suit isomorphism: the samplers solve the full game.** Sampled strategies above an iso
chance node are not exactly suit-symmetric (sampling noise), so a canonical infoset below it
would tie two real infosets reached with different probabilities — an imperfect-recall
abstraction — and the vector engine's mirrored evaluation (exact only for symmetric
strategies) would report values of a different game: on Leduc, external sampling's EVs
summed to 0.07 instead of 0, and it stalled at 0.07–0.09 chips exploitability at 1M
iterations against 0.02 on the full tree (as OpenSpiel's C++ external sampling).
:class:`SampledEngine` therefore builds the game again with every card dealt
(:meth:`Game.without_isomorphism`; a game that cannot be rebuilt is refused). The walk
below still handles iso children as described (tested with ``full_game=False``).

Randomness comes from a splitmix64 generator whose 64-bit state lives in the engine's storage,
so a run is reproducible from its seed whichever thread calls the kernel (Numba's own
``np.random`` state is per thread). For tests the draws can instead be *scripted* (see
:class:`Draws`): each choice is taken from a list, and the options and their probabilities are
recorded, so every sample outcome of a pass can be enumerated exactly.

Modules: :mod:`~solver.cfr.sampling.rules` (the algorithms and DMCCFR's discount schedule),
:mod:`~solver.cfr.sampling.draws` (the deal and every random or scripted choice),
:mod:`~solver.cfr.sampling.walk` (the kernel) and :mod:`~solver.cfr.sampling.engine`
(:class:`SampledEngine`). This ``__init__`` imports nothing, so the registry can read the
rules without loading the engine.
"""
