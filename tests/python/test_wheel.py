"""The wheel: `python3 -m build --no-isolation --wheel python` from the repository, installed into
a fresh virtual environment, imports and compiles, runs and serves a session with what it
carries (its own module, runtime and RPC server), from outside the build tree."""
import os
import subprocess
import textwrap

from conftest import BUILD_DIR

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

CHECK = textwrap.dedent('''
    import importlib.metadata, os, sys
    import numpy as np
    import kiln
    from kiln._location import program_dir
    from onnx import TensorProto, helper

    here = os.path.dirname(kiln.__file__)
    assert here.startswith(sys.prefix), (here, sys.prefix)
    assert program_dir() == os.path.join(here, "bin"), program_dir()
    assert kiln.__version__ == importlib.metadata.version("kiln")
    plugins = [e.value for e in importlib.metadata.entry_points(group="pytest11")]
    assert "kiln.testing.pytest_plugin" in plugins, plugins
    f = TensorProto.FLOAT
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])], "g",
        [helper.make_tensor_value_info(n, f, [4]) for n in "ab"],
        [helper.make_tensor_value_info("c", f, [4])]))
    artifact = kiln.compile(model)
    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    assert (artifact["default"](kiln.cpu())(a=a, b=b)[0] == a + b).all()
    with kiln.Launcher("local") as launcher, launcher.create_session() as session:
        assert (session.get_executor_from_factory(artifact)(a=a, b=b)[0] == a + b).all()
    print("wheel ok")
''')

# A user's device test with the conftest line the docs give, beside the wheel's own registration
# of the plugin.
USER_SUITE = {
    "conftest.py": 'pytest_plugins = ["kiln.testing.pytest_plugin"]\n',
    "test_device.py": textwrap.dedent('''
        import os

        def test_a_session(kiln_session, kiln_device):
            arch = {"local": os.uname().machine, "qemu-aarch64": "aarch64"}[kiln_device]
            assert kiln_session.info()["arch"] == arch
    '''),
}


def test_the_wheel_installs_and_runs(tmp_path):
    dist, venv = tmp_path / "dist", tmp_path / "venv"
    env = dict(os.environ, KILN_BUILD_DIR=os.path.abspath(BUILD_DIR))
    env.pop("PYTHONPATH", None)
    subprocess.run(["/usr/bin/python3", "-m", "build", "--no-isolation", "--wheel", "--outdir",
                    str(dist), "python"], cwd=REPO, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    (wheel,) = [p for p in dist.iterdir() if p.suffix == ".whl"]
    assert wheel.name.startswith("kiln-") and wheel.name.endswith(f"linux_{os.uname().machine}.whl")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", "--no-deps", "-q",
                    str(wheel)], check=True, env=env)
    (tmp_path / "check.py").write_text(CHECK)
    done = subprocess.run([str(venv / "bin" / "python"), "check.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "wheel ok" in done.stdout, done.stdout + done.stderr
    suite = tmp_path / "suite"
    suite.mkdir()
    for name, text in USER_SUITE.items():
        (suite / name).write_text(text)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p",
                           "no:cacheprovider"], cwd=suite, env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and " passed" in done.stdout, done.stdout + done.stderr
