"""``python -m solver``: see :mod:`solver.cli`."""

import sys

from solver.cli import main

sys.exit(main())
