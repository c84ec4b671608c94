"""``python -m tablestorm``: the ``tablestorm`` command."""

import sys

from tablestorm.sim.cli import main

sys.exit(main())
