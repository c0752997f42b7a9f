"""Where and how a run was made: recorded in summary.json beside the scenario as run,
so that a results directory says what produced it (docs/results.md, "Provenance")."""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from . import __version__

#: The repository root when the package runs from a checkout (python/tcplab/..).
_CHECKOUT = Path(__file__).resolve().parents[2]


def provenance(source: str, overrides: tuple[str, ...]) -> dict:
    """The run's origin: the scenario's source and the overrides applied to it, the
    tcplab version (and commit, from a checkout), the interpreter and the machine."""
    return {
        "source": source,
        "overrides": list(overrides),
        "tcplab_version": __version__,
        "engine_build": engine_build(),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit (with "-dirty" when files differ from it), or None when
    tcplab is not running from a git checkout or git is unavailable."""
    if not (_CHECKOUT / ".git").exists():
        return None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=_CHECKOUT, capture_output=True, text=True, timeout=5)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=_CHECKOUT,
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return commit.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


@functools.cache
def engine_build() -> str:
    """A fingerprint of the compiled engine (the first 16 hex digits of the SHA-256 of
    its shared library): two builds that could simulate differently differ here even
    under one version number, so a sweep never reuses a run a different engine made."""
    from . import _core

    digest = hashlib.sha256()
    with open(_core.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]
