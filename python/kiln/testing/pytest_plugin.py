"""pytest fixtures for tests that run models on devices, parametrised over the devices.

A test that asks for ``kiln_session`` runs once per device: each test module gets one launcher
per device (started before its first test, stopped after its last), each test a fresh session
on it (closed after the test, which removes what it uploaded)::

    def test_add(kiln_session, kiln_target):
        artifact = kiln.compile("add.onnx", target=kiln_target)   # built for the device
        ex = kiln_session.get_executor_from_factory(artifact)
        np.testing.assert_allclose(ex(a=x, b=y)[0], x + y)

The devices come from ``--kiln-device`` (repeatable: ``local``, ``qemu-aarch64``,
``ssh:USER@HOST[:PORT]``), else from ``KILN_TEST_DEVICES`` (comma-separated), else ``local``.
``--kiln-ssh-option KEY=VALUE`` passes options to ssh and scp. A test marked
``@pytest.mark.kiln_devices("local", ...)`` runs only on the devices it names.
"""
from __future__ import annotations

import os
from typing import Iterator, List

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kiln", "kiln devices")
    group.addoption("--kiln-device", action="append", default=None, metavar="DEVICE",
                    help="a device to run kiln device tests on: local, qemu-aarch64, "
                         "ssh:USER@HOST[:PORT] (repeatable; default: $KILN_TEST_DEVICES, "
                         "comma-separated, else local)")
    group.addoption("--kiln-ssh-option", action="append", default=[], metavar="KEY=VALUE",
                    help="an option for ssh and scp on ssh: devices (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "kiln_devices(*devices): run this test only on the kiln devices named")


def kiln_devices(config: pytest.Config) -> List[str]:
    """The devices this pytest run tests on."""
    devices = config.getoption("kiln_device")
    if not devices:
        env = os.environ.get("KILN_TEST_DEVICES", "")
        devices = [d.strip() for d in env.split(",") if d.strip()] or ["local"]
    return list(dict.fromkeys(devices))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "kiln_device" not in metafunc.fixturenames:
        return
    devices = kiln_devices(metafunc.config)
    marker = metafunc.definition.get_closest_marker("kiln_devices")
    params = []
    for device in devices:
        marks = []
        if marker is not None and device not in marker.args:
            marks.append(pytest.mark.skip(reason=f"not for device {device} "
                                                 f"(kiln_devices{marker.args})"))
        params.append(pytest.param(device, id=device, marks=marks))
    metafunc.parametrize("kiln_device", params, scope="module")


@pytest.fixture(scope="module")
def kiln_device() -> str:
    """The device the test runs on (parametrised over the run's devices)."""
    return "local"


@pytest.fixture(scope="module")
def kiln_launcher(kiln_device: str, request: pytest.FixtureRequest) -> Iterator["kiln.Launcher"]:
    """The launcher of the device, shared by the tests of a module, stopped after them."""
    import kiln

    launcher = kiln.Launcher(kiln_device,
                             ssh_options=request.config.getoption("kiln_ssh_option"))
    launcher.start()
    try:
        yield launcher
    finally:
        launcher.stop()


@pytest.fixture(scope="module")
def kiln_target(kiln_launcher: "kiln.Launcher") -> str:
    """The compile target of the device ("" for this machine's CPU)."""
    return kiln_launcher.target


@pytest.fixture
def kiln_session(kiln_launcher: "kiln.Launcher") -> Iterator["kiln.Session"]:
    """A session on a fresh server of the device, closed after the test."""
    session = kiln_launcher.create_session()
    try:
        yield session
    finally:
        session.close()
