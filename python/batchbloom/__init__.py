"""Blocked Bloom filters built and probed in batches.

    >>> import numpy as np, batchbloom
    >>> f = batchbloom.Filter(n=1_000_000, fpr=0.01)
    >>> f.insert(np.arange(1_000_000, dtype=np.uint64))
    >>> bool(f.contains(np.array([5, 2_000_000], dtype=np.uint64))[0])
    True

Keys: NumPy uint64/int64/uint32/int32 arrays (read in place; an integer key is its value, a
negative one its 64-bit two's complement, so int64 -1 and uint64 2**64-1 are one key), Arrow
integer/string/binary arrays (read in place; nulls raise ValueError), and sequences of ints,
bytes or str (str keys are their UTF-8 bytes).
"""

from ._core import (
    CountingFilter,
    Error,
    Filter,
    FormatError,
    Params,
    ScalableFilter,
    __version__,
    available_backends,
    estimated_jaccard,
    resolve_backend,
)

__all__ = [
    "CountingFilter",
    "Error",
    "Filter",
    "FormatError",
    "Params",
    "ScalableFilter",
    "__version__",
    "available_backends",
    "estimated_jaccard",
    "resolve_backend",
]
