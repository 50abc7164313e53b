"""``python -m quality_py``: see :mod:`quality_py.cli`.

Also the application file spark-submit runs (``spark-submit ... quality_py/__main__.py run ...``):
run as a file, its own folder comes first on ``sys.path``, where ``profile/`` would shadow the
standard library's ``profile``; that folder is taken off the path before anything is imported.
"""

from __future__ import annotations

import os
import sys

if not __package__:  # run as a file, not as a module
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from quality_py.cli import main

if __name__ == "__main__":
    sys.exit(main())
