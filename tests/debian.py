"""Debian packages for the tests that compare against real tools (ns-2, tshark,
chromium): installed at the versions pinned in requirements/debian.txt when missing, if
this user can (root and apt-get); otherwise the test is skipped saying why. Where it can
install but the pinned version is not to be had, the test fails: a pin the registry no
longer serves must be updated, not silently leave the comparison untested."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import REPO


def pinned(package: str) -> list[str]:
    """``package=version`` (and the companions pinned with it) as requirements/debian.txt
    pins it."""
    for line in (REPO / "requirements" / "debian.txt").read_text().splitlines():
        if line.split("=", 1)[0].strip() == package:
            return line.split()
    raise KeyError(f"{package} is not pinned in requirements/debian.txt")


def ensure(binary: str, package: str) -> str:
    """Path of ``binary``, installing the pinned Debian ``package`` if needed."""
    found = shutil.which(binary)
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip(f"{binary} is not installed and this user cannot apt-get install {package}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *pinned(package)]):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
        except subprocess.TimeoutExpired:
            pytest.fail(f"installing {package} timed out ({' '.join(cmd)})")
        if proc.returncode != 0:
            policy = subprocess.run(["apt-cache", "policy", package], capture_output=True, text=True).stdout
            pytest.fail(f"could not install {package}: {' '.join(cmd)} failed: {proc.stderr.strip()[-300:]}\n"
                        f"update the pin in requirements/debian.txt to a version apt offers:\n{policy}")
    found = shutil.which(binary)
    if not found:
        pytest.skip(f"{package} installed but no `{binary}` on PATH")
    return found
