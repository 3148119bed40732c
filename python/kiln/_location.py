"""Where the package finds the programs it starts: the RPC server the launchers run.

In an installed wheel they sit inside the package (``kiln/bin``, ``kiln/aarch64/bin``); in a build
tree the package is ``build/<preset>/python/kiln`` and they are in ``build/<preset>/bin``.
"""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def program_dir() -> str:
    """The folder holding kiln-rpc-server, or "" when neither layout has one."""
    for candidate in (os.path.join(_HERE, "bin"), os.path.join(_HERE, "..", "..", "bin")):
        if os.path.isfile(os.path.join(candidate, "kiln-rpc-server")):
            return os.path.normpath(candidate)
    return ""
