"""`import popart_core`, PopART's extension module name: the popart package's names
(popart/popart_core.py)."""
import sys

import popart.popart_core as _core

sys.modules[__name__] = _core
