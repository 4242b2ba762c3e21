"""The command line, ``python -m solver …`` (the top floor beside app/): :mod:`.commands`
runs the commands and registers the others — :mod:`.race`, :mod:`.drill`, :mod:`.exploit`,
:mod:`solver.batch.cli` — :mod:`.parser` holds every command's flags and :mod:`.args` what
they share (exit codes, ``UsageError``, the checked reading of numbers from flags)."""

from solver.cli.commands import main

__all__ = ["main"]
