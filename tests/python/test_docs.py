"""The README's Python example runs and prints what its comments say."""
import contextlib
import io
import os
import re

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_readme_python_example(popart):
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    ns = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), ns)
    assert ns["anchors"][ns["o"]].shape == (4, 2, 3)
    np.testing.assert_array_equal(ns["anchors"][ns["o"]], np.full((4, 2, 3), 3, np.float32))
