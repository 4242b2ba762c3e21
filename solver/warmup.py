"""``python -m solver.warmup``: the warm-up's command at the name scripts and docs use; the
warm-up itself is :mod:`solver.run.warmup` (this module only runs its ``main``)."""

from solver.run.warmup import main

if __name__ == "__main__":
    raise SystemExit(main())
