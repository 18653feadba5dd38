"""``python -m kobrowser.cli`` runs the ``ko-browser`` command."""

import sys

from . import main

sys.exit(main())
