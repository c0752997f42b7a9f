"""Writing a results directory atomically: all of it or none of it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


class OutputError(ValueError):
    """The output directory cannot be used (exit status 2, like bad input)."""


def write_directory(out: Path, fill: Callable[[Path], None]) -> Path:
    """Creates ``out`` with the files ``fill`` writes into a fresh directory.

    ``fill`` writes into a temporary sibling directory; only when it succeeds is that
    renamed into place, replacing a previous results directory. A failure part-way
    leaves any existing ``out`` exactly as it was. A non-empty directory that does not
    hold tcplab results (no summary.json) is never replaced.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / "summary.json").exists():
        raise OutputError(f"{out}: is a non-empty directory without tcplab results; refusing to replace it (choose another --out)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        fill(tmp)
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            os.rename(out, old)
            os.rename(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
