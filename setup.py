"""`pip install .`: builds the popart Python module with the project's CMake (target popart_py,
the core linked statically) and installs the package python/popart with the extension.

Offline with Debian's pip and setuptools: there is no pyproject.toml, so pip builds with the
setuptools already installed and downloads nothing. On Debian's system Python add
--break-system-packages (PEP 668), or install into a venv made with --system-site-packages (it
needs NumPy, and python3-onnx to generate the Builder's op table, from the system).
Environment: POPART_PIP_BUILD_DIR (default build/pip; an existing build tree configured with the
module, such as build/ci, is built as it is, not reconfigured), CMAKE_BUILD_PARALLEL_LEVEL
(default 2).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("POPART_PIP_BUILD_DIR", os.path.join(ROOT, "build", "pip"))
        cfg = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DPOPART_BUILD_TESTS=OFF",
               "-DPOPART_BUILD_TOOLS=OFF", "-DPOPART_INSTALL=OFF", "-DPOPART_BUILD_PYTHON=ON",
               "-DPOPART_PYTHON=" + sys.executable]
        cache = os.path.join(build_dir, "CMakeCache.txt")
        if os.path.exists(cache) and "POPART_BUILD_PYTHON:BOOL=ON" in open(cache).read():
            pass  # a configured tree with the module (e.g. build/ci): build the target there as it is
        else:
            if shutil.which("ninja") and not os.path.exists(cache):
                cfg += ["-G", "Ninja"]
            subprocess.check_call(cfg)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "popart_py", "popart_py_stubs", "-j", jobs])
        out = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        os.makedirs(out, exist_ok=True)
        for f in glob.glob(os.path.join(build_dir, "python", "popart", "*")):
            shutil.copy2(f, out)


setup(
    name="popart",
    version="0.1.0",
    description="PopART's Python API over the popart-runtime core (CPU and IPU-model devices)",
    packages=["popart", "popdist"],  # popdist: PopDist's calls for distributed scripts
    package_dir={"popart": "python/popart", "popdist": "python/popdist", "": "python"},
    py_modules=["popart_core"],  # `import popart_core`, PopART's extension module name
    package_data={"popart": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("popart._popart", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.8",
    install_requires=[],  # NumPy is the system's (python3-numpy); nothing is downloaded
    zip_safe=False,
)
