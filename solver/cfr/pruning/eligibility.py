"""Which rules regret-based pruning works with, from the properties of their schedules
(:class:`~solver.cfr.rules.RuleProperties`), so a user-defined rule with those properties
takes it too.

* **Total RBP** (Brown & Sandholm 2017) rebuilds a pruned subtree's regrets from a best
  response as if it had always been played (eqs. 7–8) and bounds a pruned action by sums of
  values weighted like the average strategy: it needs regrets summed without discounting,
  every iteration's regret weighing the same, the next strategy plain regret matching (RM
  or RM+), and strategy sums that do not decay, weighted uniformly or linearly (CFR, CFR+
  with any averaging delay).
* **Interval RBP** (Brown & Sandholm 2015) additionally catches a pruned action up in one
  update against the opponent reach summed over its window, which needs the regret update
  to be linear: no floor, and uniform averaging (CFR).
"""

from __future__ import annotations

from solver.cfr.rules import Rule


def supports_total(rule: Rule) -> bool:
    """Whether Total RBP's bounds and catch-ups are sound for ``rule`` (module docstring)."""
    p = rule.properties
    return (
        p.plain_rm
        and not p.discounts_regrets
        and p.constant_regret_weight
        and not p.discounts_average
        and p.average_weights in ("uniform", "linear")
    )


def supports_interval(rule: Rule) -> bool:
    """Whether interval RBP's batched catch-up is exact for ``rule`` (module docstring)."""
    p = rule.properties
    return supports_total(rule) and not p.floors_regrets and p.average_weights == "uniform"


def prunings_for(rule: Rule) -> tuple[str, ...]:
    """The pruning modes the vector engine offers for ``rule``, the default (partial) first."""
    out = ["partial", "none"]
    if supports_interval(rule):
        out.append("interval")
    if supports_total(rule):
        out.append("total")
    return tuple(out)
