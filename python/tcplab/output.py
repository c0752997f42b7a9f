"""Writing a results directory safely: all of it or none of it, and never over
anything tcplab did not write.

Guarantees (docs/results.md, "The results directory"):

* ``--out`` is replaced only if it is missing, empty, or marked as tcplab's own by the
  ``.tcplab-results`` file every results directory carries; anything else is refused
  (:func:`check_output`) before the run starts.
* A symlinked ``--out`` is resolved: the directory it points to is replaced and the
  link keeps pointing at the new results.
* The new results are written into a temporary sibling and swapped in with one atomic
  exchange (Linux ``renameat2(RENAME_EXCHANGE)``), so at every moment the path holds
  either the complete old results or the complete new ones. Where the exchange is not
  available (another OS or file system) two renames are used, with a window of
  microseconds in which the path is absent.
* Temporary siblings left by a killed run (their process is gone) are removed by the
  next run writing into the same parent directory.
* Results are created with the user's umask, like any file the user writes.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

#: The file that marks a directory as tcplab's results, with the layout's version.
MARKER = ".tcplab-results"
FORMAT_VERSION = 1
#: What a results directory holds (the marker's ``kind``), as messages name it.
KINDS = {"run": "one run's results", "comparison": "the output of tcplab compare",
         "crosscheck": "the output of tcplab emu --crosscheck"}


class OutputError(ValueError):
    """The output directory cannot be used (exit status 2, like bad input)."""


class StoredResultsError(ValueError):
    """A file of a saved results directory that cannot be read back (damaged,
    truncated, emptied): the message names the file. A ValueError, not an OSError, so
    that it is never taken for a failure to write. (Here, beside the writing side's
    error, so that commands can name it without loading numpy and pyarrow; also
    :data:`tcplab.series.StoredResultsError`.)"""


def _shown(out: str | Path) -> str:
    """``out`` as messages quote it: at most 80 characters."""
    text = str(out)
    return text if len(text) <= 80 else f"{text[:40]}…{text[-30:]} ({len(text)} characters)"


def check_output(out: str | Path) -> Path:
    """The resolved results path, if tcplab may write its results there; otherwise
    :class:`OutputError` saying why. Cheap: call it before a long run."""
    try:
        return _check_output(out)
    except OSError as e:  # a name too long, a loop of symlinks, an I/O error
        raise OutputError(f"{_shown(out)}: cannot be used as --out ({e.strerror or e})") from None


def check_output_apart(out: str | Path, inputs: Sequence[str | Path]) -> Path:
    """:func:`check_output`, and refused when ``out`` is one of the directories the
    command reads, or holds one: writing there would replace what it reads from
    (`tcplab compare A B --out A` deleted A's results)."""
    path = check_output(out)
    for given in inputs:
        source = Path(os.path.realpath(given))
        if source == path or path in source.parents:
            raise OutputError(f"{_shown(out)}: holds {_shown(given)}, which this command reads; writing there would "
                              "replace it (choose another --out)")
    return path


def _check_output(out: str | Path) -> Path:
    path = Path(os.path.realpath(out))
    if path.exists() and not path.is_dir():
        raise OutputError(f"{_shown(out)}: exists and is not a directory (choose another --out)")
    if path.is_dir():
        if path == Path(os.path.realpath(os.getcwd())) or path.parent == path:
            raise OutputError(f"{_shown(out)}: is the current or the root directory; results need a directory of their own")
        try:
            entries = [e.name for e in os.scandir(path)]
        except OSError as e:
            raise OutputError(f"{_shown(out)}: cannot be read ({e.strerror})") from None
        if entries and MARKER not in entries:
            raise OutputError(f"{_shown(out)}: is a non-empty directory that tcplab did not create (no {MARKER} in it); "
                              "refusing to replace it (choose another --out)")
        foreign = _not_written_by_tcplab(path, entries)
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            raise OutputError(f"{_shown(out)}: holds files tcplab did not write ({shown}); replacing the results "
                              "would delete them: move them, or choose another --out")
    parent = _existing_ancestor(path.parent)
    if not parent.is_dir():
        raise OutputError(f"{_shown(out)}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{_shown(out)}: {parent} is not writable")
    return path


def _not_written_by_tcplab(path: Path, entries: list[str]) -> list[str]:
    """Entries of the results directory ``path`` that its marker does not list (a
    user's notes, a figure edited by hand): the next run there would delete them
    (#35 item 2). No marker, or one from before tcplab listed its files, says nothing: []."""
    try:
        written = json.loads((path / MARKER).read_text()).get("files")
    except (OSError, ValueError, AttributeError):
        return []
    if not isinstance(written, list):
        return []
    return sorted(e for e in entries if e != MARKER and e not in written)


#: Data files a results directory is read back from get a SHA-256 in its marker, up to
#: this size (summary.json, the CSV tables and the series of all but very long runs), so
#: that a damaged or edited file is reported, never read as the run's (#35).
CHECKSUM_MAX_BYTES = 64 * 2**20
CHECKSUMMED_SUFFIXES = (".json", ".csv", ".parquet")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _checksums(directory: Path) -> dict[str, str]:
    """SHA-256 of each data file of ``directory`` (see CHECKSUM_MAX_BYTES)."""
    return {e.name: _sha256(Path(e.path)) for e in os.scandir(directory)
            if e.is_file() and e.name.endswith(CHECKSUMMED_SUFFIXES) and e.stat().st_size <= CHECKSUM_MAX_BYTES}


def changed_since_written(directory: Path, name: str) -> str | None:
    """What is wrong with the file ``name`` of the results ``directory`` if it is not
    as tcplab wrote it; None if it is, or if the marker keeps no checksum for it
    (results of tcplab before 2026-11-27, or a file too large to hash)."""
    try:
        sums = json.loads((directory / MARKER).read_text()).get("sha256")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(sums, dict) or name not in sums:
        return None
    try:
        actual = _sha256(directory / name)
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    return None if actual == sums[name] else "changed since tcplab wrote it (its checksum differs); run it again"


def not_a_run(directory: Path) -> str | None:
    """Why ``directory`` cannot be read as one run's results when its marker says it
    holds something else (a comparison, a crosscheck); None otherwise — also for
    results written before markers had a kind (#35: such a directory was reported
    as "not a tcplab results directory")."""
    try:
        kind = json.loads((directory / MARKER).read_text()).get("kind")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(kind, str) or kind == "run":
        return None
    return f"holds {KINDS.get(kind, repr(kind))}, not one run's results: give the directory a run wrote"


def record_written(directory: Path, names: Sequence[str]) -> None:
    """Adds ``names`` (files tcplab wrote into the results ``directory`` after the run,
    e.g. ``tcplab report --plots``) to its marker's list."""
    marker = directory / MARKER
    try:
        data = json.loads(marker.read_text())
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        data["files"] = sorted({*data["files"], *names})
        replace_file(marker, lambda tmp: tmp.write_text(json.dumps(data) + "\n"))


def write_directory(out: str | Path, fill: Callable[[Path], None], kind: str) -> Path:
    """Creates the results directory ``out`` with the files ``fill`` writes, under the
    guarantees of this module, its marker saying what it holds (``kind``, one of
    KINDS); returns the path written (symlinks resolved)."""
    path = check_output(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{_shown(out)}: cannot create {path.parent} ({e.strerror})") from None
    remove_stale_temporaries(path)
    tag = f"{os.getpid()}-"
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-{tag}", dir=path.parent))
    except OSError as e:
        raise OutputError(f"{_shown(out)}: cannot write in {path.parent} ({e.strerror})") from None
    try:
        fill(tmp)
        written = sorted(e.name for e in os.scandir(tmp))
        marker = {"format": FORMAT_VERSION, "kind": kind, "files": written, "sha256": _checksums(tmp)}
        (tmp / MARKER).write_text(json.dumps(marker) + "\n")
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes it owner-only
        if path.exists():
            if _exchange(tmp, path):
                shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the old results
            else:
                old = path.parent / f".{path.name}.old-{tag}{tmp.name[-8:]}"
                os.rename(path, old)
                os.rename(tmp, path)
                shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
    except OSError as e:  # the disk filled up, a quota, a file name too long
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"{_shown(out)}: writing the results failed ({e.strerror or e}); the previous results, "
                          "if any, are unchanged") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def replace_file(path: Path, write: Callable[[Path], object]) -> Path:
    """Writes ``path`` through ``write(tmp)`` into a temporary sibling renamed over it:
    a reader never sees half a file."""
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"{path}: cannot be written ({e.strerror or e})") from None
    return path


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Removes the temporary siblings of ``path`` whose writing process is gone (a run
    killed while writing); returns what was removed."""
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(?:tmp|old)-(\d+)-")
    removed: list[Path] = []
    try:
        siblings = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in siblings:
        m = pattern.match(entry.name)
        if m and entry.is_dir(follow_symlinks=False) and not _alive(int(m.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def current_umask() -> int:
    """The process's file-creation mask (read by setting it and putting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swaps two directories (Linux renameat2 RENAME_EXCHANGE); False if
    this system cannot, so the caller falls back to two renames."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))
