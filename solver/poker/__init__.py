"""Poker basics: cards, ranges, the hand evaluator, hand classes, flop sets and the exact
preflop all-in equities: the bottom floor."""
