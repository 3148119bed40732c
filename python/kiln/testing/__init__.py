"""Test helpers for kiln users: pytest fixtures that give each test a session on a device.

The fixtures live in :mod:`kiln.testing.pytest_plugin`; pytest loads them by itself when kiln
is installed from its wheel, and a ``conftest.py`` line loads them elsewhere::

    pytest_plugins = ["kiln.testing.pytest_plugin"]
"""
