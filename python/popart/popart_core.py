"""PopART's extension module name. PopART builds its bindings as `popart_core` and scripts reach
them as `popart.popart_core.X` or `import popart_core`; here they are the popart package's own
names (the extension is popart._popart), so both spellings give the same objects."""
import sys

import popart as _popart_pkg

globals().update({k: v for k, v in vars(_popart_pkg).items() if not k.startswith("__") and k != "popart_core"})
sys.modules.setdefault("popart_core", sys.modules[__name__])
