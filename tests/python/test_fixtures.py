"""The pytest fixtures kiln ships, as a user's test suite sees them: a user's device tests run
once per device named on the command line or in KILN_TEST_DEVICES, with one launcher per module
and a fresh session per test, and a marker limiting a test to some devices."""
import os
import subprocess
import sys
import textwrap

USER_TESTS = textwrap.dedent('''
    import os
    import numpy as np
    import pytest
    import kiln

    folders, servers = set(), set()

    def test_runs_on_the_device(kiln_device, kiln_session, kiln_target):
        assert kiln_session.device_name == kiln_device
        info = kiln_session.info()
        folders.add(os.path.dirname(os.path.dirname(info["session_dir"])))
        servers.add(info["server_pid"])

    def test_again_with_a_fresh_session(kiln_session):
        info = kiln_session.info()
        folders.add(os.path.dirname(os.path.dirname(info["session_dir"])))
        servers.add(info["server_pid"])
        assert len(folders) == 1, folders    # one launcher for the module
        assert len(servers) == 2, servers    # a server per session

    @pytest.mark.kiln_devices("qemu-aarch64")
    def test_only_on_the_board(kiln_session):
        assert kiln_session.info()["arch"] == "aarch64"
''')


def run_pytest(tmp_path, *args, env_devices=None):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["kiln.testing.pytest_plugin"]\n')
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    env = dict(os.environ)
    env.pop("KILN_TEST_DEVICES", None)
    if env_devices is not None:
        env["KILN_TEST_DEVICES"] = env_devices
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def test_a_users_device_tests_through_the_fixtures(tmp_path):
    status, out = run_pytest(tmp_path, "--kiln-device", "local")
    assert status == 0, out
    assert "test_runs_on_the_device[local] PASSED" in out, out
    assert "test_only_on_the_board[local] SKIPPED" in out, out
    assert "2 passed, 1 skipped" in out, out


def test_devices_from_the_environment(tmp_path):
    status, out = run_pytest(tmp_path, "--collect-only", env_devices="local, qemu-aarch64")
    assert status == 0, out
    assert "test_runs_on_the_device[local]" in out, out
    assert "test_runs_on_the_device[qemu-aarch64]" in out, out
    assert "--kiln-device" in run_pytest(tmp_path, "--help")[1]
