"""``python -m quality_py``: see :mod:`quality_py.cli`."""

from __future__ import annotations

import sys

from quality_py.cli import main

if __name__ == "__main__":
    sys.exit(main())
