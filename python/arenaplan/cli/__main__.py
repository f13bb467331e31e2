"""``python -m arenaplan.cli``: the ``arenaplan`` command."""
import sys

from .main import main

sys.exit(main())
