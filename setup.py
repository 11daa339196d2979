"""`pip install .`: setuptools drives CMake to build the extension `dlsim._dlsim` and installs the package
python/dlsim beside it (docs/install.md). The CMake build folder is DLSIM_BUILD_DIR (default: build/, the one
`make run` fills; an existing build is reused, so the install only rebuilds what changed)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# setup.cfg puts egg_info's metadata here, which setuptools requires to exist.
(ROOT / "build" / "setuptools").mkdir(parents=True, exist_ok=True)


class CMakeBuild(build_ext):
    """Builds the _dlsim target with CMake and copies the module where setuptools expects it."""

    def build_extension(self, ext):
        build = Path(os.environ.get("DLSIM_BUILD_DIR", ROOT / "build")).resolve()
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_dlsim"], check=True)
        built = sorted((build / "python" / "dlsim").glob("_dlsim*.so"))
        if not built:
            raise RuntimeError(f"no _dlsim module in {build / 'python' / 'dlsim'} after the build")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    packages=["dlsim"],
    package_dir={"dlsim": "python/dlsim"},
    ext_modules=[Extension("dlsim._dlsim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
