"""The kiln wheel's build: CMake builds the extension module and the programs it starts, and
installs its `python` component (the package, the module, the runtime, the RPC servers) into the
wheel. No compiler runs here: the build is the project's own, in build/release (or the folder
KILN_BUILD_DIR names), configured first when it does not exist yet."""
import os
import re
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def version() -> str:
    text = open(os.path.join(REPO, "CMakeLists.txt"), encoding="utf-8").read()
    found = re.search(r"project\(kiln VERSION ([0-9.]+)", text)
    if not found:
        raise RuntimeError("CMakeLists.txt names no project version")
    return found.group(1)


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=REPO, check=True)


class CMakeBuild(build_py):
    """Builds with CMake and installs the `python` component where the wheel is assembled."""

    def run(self) -> None:
        build_dir = os.path.abspath(os.environ.get("KILN_BUILD_DIR",
                                                   os.path.join(REPO, "build", "release")))
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            run("cmake", "--preset", "release")
        targets = ["kiln_python", "kiln-rpc-server"]
        if os.path.isdir(os.path.join(build_dir, "aarch64")):
            targets.append("runtime_aarch64")
        run("cmake", "--build", build_dir, "--target", *targets)
        run("cmake", "--install", build_dir, "--component", "python", "--prefix",
            os.path.abspath(self.build_lib))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled module: a platform wheel, not a pure-Python one."""

    def has_ext_modules(self) -> bool:
        return True


setup(
    version=version(),
    packages=["kiln", "kiln.testing"],
    package_data={"kiln": ["*.pyi", "py.typed"]},
    cmdclass={"build_py": CMakeBuild},
    distclass=BinaryDistribution,
    zip_safe=False,
)
