"""Study computations over a solved game: per-node analysis, EVs and range summaries,
groups, lock effects and shift locks, actions and spots in words, the trainer and the
preflop chart."""
