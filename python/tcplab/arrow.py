"""Arrow arrays from numpy buffers and Python lists, built without pyarrow's pandas
probe.

``pyarrow.array()`` asks "is this a pandas object?" of every input, and the first
question imports pandas (0.3 s, more than the simulation of a typical run). The
results of a run are plain numeric columns, id strings and summary records, so they
are assembled here from buffers with ``pyarrow.Array.from_buffers``: zero-copy for
numpy columns, and pandas is only imported by code that hands out DataFrames.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

_TYPES = {np.dtype(np.float64): pa.float64(), np.dtype(np.float32): pa.float32(), np.dtype(np.int64): pa.int64(),
          np.dtype(np.int32): pa.int32(), np.dtype(np.uint8): pa.uint8(), np.dtype(np.uint16): pa.uint16(),
          np.dtype(np.uint32): pa.uint32(), np.dtype(np.uint64): pa.uint64(), np.dtype(np.bool_): pa.bool_()}


def _validity(valid: np.ndarray | None) -> pa.Buffer | None:
    """Arrow's validity bitmap (LSB first) for a boolean mask; None when all valid."""
    if valid is None or valid.all():
        return None
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def numeric(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A numeric numpy array as an Arrow array (no copy when contiguous). NaN stays
    NaN, as ``pyarrow.array`` leaves it; ``valid`` marks nulls where it is False."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), len(values), [_validity(valid), pa.py_buffer(np.packbits(values, bitorder="little"))])
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [_validity(valid), pa.py_buffer(values)])


def strings(values: Sequence[str | None]) -> pa.Array:
    """UTF-8 strings (None for null); at most 2 GiB of text (32-bit offsets, the
    ``string`` type that readers expect)."""
    encoded = [b"" if v is None else v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise ValueError("more than 2 GiB of strings in one column")
    valid = np.array([v is not None for v in values], dtype=bool)
    return pa.Array.from_buffers(pa.string(), len(values), [_validity(valid), pa.py_buffer(offsets.astype(np.int32)),
                                                             pa.py_buffer(b"".join(encoded))])


def dictionary(indices: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    """Dictionary-encoded ids: ``names[indices[i]]`` for every row, 4 bytes a row."""
    return pa.DictionaryArray.from_arrays(numeric(indices.astype(np.int32, copy=False)), strings(names))


def column(values: list) -> pa.Array:
    """A column of summary values (all of one kind: bool, int, float or str, with
    None for missing) as an Arrow array; ints mixed with floats become floats."""
    present = [v for v in values if v is not None]
    valid = np.array([v is not None for v in values], dtype=bool)
    if not present:
        return pa.nulls(len(values))
    if all(isinstance(v, str) for v in present):
        return strings(values)
    if all(isinstance(v, bool) for v in present):
        return numeric(np.array([bool(v) for v in values], dtype=bool), valid)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return numeric(np.array([0 if v is None else v for v in values], dtype=np.int64), valid)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return numeric(np.array([np.nan if v is None else v for v in values], dtype=np.float64), valid)
    return strings([None if v is None else str(v) for v in values])


def table(columns: dict[str, list]) -> pa.Table:
    """Summary records' columns (:func:`tcplab.results._flattened`) as an Arrow table."""
    return pa.Table.from_arrays([column(v) for v in columns.values()], names=list(columns))
