"""Regret-based pruning in the vector engine: interval RBP and Total RBP.

Brown & Sandholm, *Regret-Based Pruning in Extensive-Form Games* (NIPS 2015) and *Reduced
Space and Faster Convergence in Imperfect-Information Games via Regret-Based Pruning* (AAAI
2017, the Total RBP seed). Partial pruning (skip what the opponent reaches with probability
zero) lives in the walk itself (:mod:`solver.cfr.walk`) and is exact; this package adds the
two forms that also skip what the *traverser* would play with probability zero. Modules:
:mod:`~solver.cfr.pruning.state` (the state kept beside a solve's storage and the walk's
per-node step), :mod:`~solver.cfr.pruning.bounds` (the game's payoff and reach bounds),
:mod:`~solver.cfr.pruning.kernels` (checks, catch-ups, memory accounting),
:mod:`~solver.cfr.pruning.manager` (:class:`RegretPruning`: the work between iterations) and
:mod:`~solver.cfr.pruning.eligibility` (which rules take which form).

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

* **Interval RBP** (rules like CFR). An action whose regret R(I, a) is negative for every
  hand — while another action keeps a positive regret, so regret matching plays it with
  probability 0 anyway — is pruned as long as R^{t₀}(I,a) + Σ_{t₀<t≤t₁} (π^t(I)·U(I,a) −
  v^t(I)) ≤ 0 (the paper's condition). The bound is kept one iteration ahead (π^{t+1} ≤
  π_max, v^{t+1}(I) ≥ π_max·L(I)); when it could fail, the action is *caught up* before the
  next iteration: one CFR update of its subtree against the opponent's reach summed over the
  window (the strategies inside are frozen while pruned, and counterfactual values are linear
  in the opponent's reach, so this is exactly the skipped iterations with those strategies —
  the 2015 paper's "single iteration against the average of the opponent's strategies").
* **Total RBP** (rules like CFR and CFR+). Every ``check_every`` iterations a
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
  kernel call per batch.

Freeing the other player's regrets (``free_opponent``; our extension, off by default). Where
every hand the pruning player p can hold at a node is frozen above it, p never comes there:
the other player q's counterfactual values there are 0, so q's regrets are frozen too and
need not be held. When a catch-up lets p come again, q's regrets below the topmost such
node are rebuilt as eqs. (7)–(8) rebuild p's: from a CBR against p's average strategy
(R(J, b) = W_T·(CBV(J, b) − CBV(J)), Σ_t w_t·v^t(J) = W_T·CBV(J)), the warm start the seed
uses for p, here applied to q; q's regrets above are untouched, as the seed leaves the
pruning player's other actions. For rules that floor regrets (CFR+) that restart at a pure
best response stalls the solve (floored regrets follow it), so their regrets there instead
resume q's average strategy at the size RM+ regrets reach (√T·π̄(J)·(U − L)), a heuristic
measured in BENCHMARKS.md. Leduc-5's CFR then holds a tenth of the regrets Total RBP alone
holds, CFR+ a sixth, both at a cost in convergence (BENCHMARKS.md, "Regret-based pruning").

Memory. Storage blocks are laid out in depth-first preorder (each subtree contiguous);
:meth:`RegretPruning.held_bytes` counts the regret and strategy-sum bytes the solver still
needs — every block minus the owner's regret blocks inside Total-RBP-pruned subtrees (and,
with ``free_opponent``, the other player's where the owner never comes) and the owner's sum
blocks released by the threshold — plus the pruning's own bookkeeping. The flat arrays
themselves stay allocated; the count is what a solver allocating blocks on demand would
hold, as the paper reports.

Deviations, stated: interval RBP prunes per (node, action) for all hands, not per infoset,
so it prunes less than the paper's scalar CFR (Total RBP is per infoset); when every
unpruned action has non-positive regret for a hand, regret matching plays uniformly over the
unpruned actions only; interval RBP is offered only for rules without a regret floor (CFR+'s
floor does not commute with a batched catch-up); Total RBP's sums threshold drops only the
pruning player's sums (the opponent's, below a pruned action, are frozen but kept, as the
exploitability of its average still needs them). Both forms need one solver thread.

This package's ``__init__`` imports nothing: the walk imports :mod:`.state`, and the manager
imports the walk.
"""
