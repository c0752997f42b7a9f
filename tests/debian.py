"""Debian packages for the tests that compare against real tools (ns-2, tshark):
installed at the versions pinned in requirements/debian.txt when missing, if this
user can (root and apt-get); otherwise the test is skipped saying why."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import REPO


def pinned(package: str) -> str:
    """``package=version`` as requirements/debian.txt pins it."""
    for line in (REPO / "requirements" / "debian.txt").read_text().splitlines():
        if line.split("=", 1)[0].strip() == package:
            return line.strip()
    raise KeyError(f"{package} is not pinned in requirements/debian.txt")


def ensure(binary: str, package: str) -> str:
    """Path of ``binary``, installing the pinned Debian ``package`` if needed."""
    found = shutil.which(binary)
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip(f"{binary} is not installed and this user cannot apt-get install {package}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", pinned(package)]):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        except subprocess.TimeoutExpired:
            pytest.skip(f"installing {package} timed out ({' '.join(cmd)})")
        if proc.returncode != 0:
            pytest.skip(f"could not install {package}: {' '.join(cmd)} failed: {proc.stderr.strip()[-300:]}")
    found = shutil.which(binary)
    if not found:
        pytest.skip(f"{package} installed but no `{binary}` on PATH")
    return found
