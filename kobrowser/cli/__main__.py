"""``python -m kobrowser.cli`` runs the ``ko-browser`` command."""

import sys

from kobrowser.cli import main

sys.exit(main())
