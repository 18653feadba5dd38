"""``python -m kobrowser.cli._daemon``: one session's daemon process (see :mod:`._process`)."""

import sys

from kobrowser.cli._daemon._process import main

sys.exit(main())
