"""
Blocked Bloom filters built and probed in batches (C++ core of the batchbloom package).
"""

from collections.abc import Iterable
import os
import pathlib
import types
from typing import Any, BinaryIO, Literal, Self

import numpy
import numpy.typing

from batchbloom._core import parquet as parquet


class Error(ValueError):
    pass

class FormatError(Error):
    pass

def available_backends() -> list[str]:
    """Names of the engines usable on this machine, best first."""

def resolve_backend(name: str | None = 'auto') -> str:
    """
    The engine `name` runs on here ('auto': BATCHBLOOM_BACKEND if set, else the best one).
    """

def reload_environment() -> None:
    """
    Reads BATCHBLOOM_BACKEND and BATCHBLOOM_BATCH_PATH again. The library reads them once:
    after changing them in os.environ, call this for later calls to follow.
    """

class Params:
    """
    Shape, block count and bits set per key (k) of a blocked Bloom filter. Immutable.
    """

    def __init__(self, shape: str | None, blocks: int | None, k: int | None) -> None:
        """
        Explicit parameters, validated (ValueError names the first invalid one).
        """

    @staticmethod
    def for_fpr(n: int | None, fpr: float | None, shape: str | None = 'word512') -> Params:
        """
        The smallest filter whose predicted false-positive rate for n distinct keys is <= fpr
        (the blocked-filter model of Putze, Sanders and Singler), with the best k.
        """

    @staticmethod
    def for_bits_per_key(n: int | None, bits_per_key: float | None, shape: str | None = 'word512') -> Params:
        """
        ceil(n * bits_per_key / block bits) blocks, with the k that minimises the predicted FPR.
        """

    @property
    def shape(self) -> str:
        """'split256', 'word512' or 'line512'."""

    @property
    def blocks(self) -> int:
        """Number of blocks."""

    @property
    def k(self) -> int:
        """Bits set per key."""

    @property
    def block_bytes(self) -> int:
        """Bytes per block (32 or 64)."""

    @property
    def nbytes(self) -> int:
        """Size of the bit array in bytes."""

    @property
    def bits(self) -> int:
        """Size of the bit array in bits."""

    def predicted_fpr(self, n: int | None) -> float:
        """Predicted false-positive rate after n distinct keys."""

    def __eq__(self, arg: Params, /) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

    def __getstate__(self) -> tuple[str, int, int]: ...

    def __setstate__(self, arg: tuple[str, int, int], /) -> None: ...

class Filter:
    """
    A blocked Bloom filter, built and probed in batches.

    Bulk calls (insert, contains, count) release the GIL and run on every
    core unless threads= says otherwise; one filter may be shared by Python
    threads (writers exclude readers). Results never depend on the engine or
    thread count.
    """

    def __init__(self, n: int | None = None, fpr: float | None = None, *, bits_per_key: float | None = None, shape: str | None = 'word512', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> None:
        """
        An empty filter sized for n distinct keys at false-positive rate fpr (or bits_per_key
        bits per key). shape: 'word512' (default), 'split256' or 'line512'; hash: 'xxh3' or
        'murmur3' with seed; backend: 'auto' or one of available_backends(); threads: 0 = all cores.
        """

    @staticmethod
    def from_params(params: Params | None, *, hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> Filter:
        """An empty filter with explicit Params."""

    def clear(self) -> None:
        """Sets every bit to zero."""

    def fill_ratio(self) -> float:
        """Fraction of bits set."""

    def current_fpr(self) -> float:
        """
        False-positive rate of a random absent key against the bits as they are now.
        """

    def estimated_cardinality(self) -> float:
        """
        Number of distinct keys inserted, estimated from the fill (Swamidass & Baldi).
        """

    def fold(self) -> Filter:
        """
        A filter of half the blocks holding the same keys (needs an even block count).
        """

    @property
    def params(self) -> Params:
        """The filter's Params."""

    @property
    def shape(self) -> str: ...

    @property
    def blocks(self) -> int: ...

    @property
    def k(self) -> int: ...

    @property
    def bits(self) -> int: ...

    @property
    def nbytes(self) -> int:
        """Size of the bit array in bytes."""

    def compatible(self, other: Filter) -> bool:
        """Whether |, & and the Jaccard estimate are defined for the two filters."""

    def __repr__(self) -> str: ...

    @staticmethod
    def map(path: str | os.PathLike, verify: bool = True) -> Filter:
        """
        Opens a filter saved uncompressed at path read-only over a memory mapping: nothing is
        copied, probes read the file's pages in place, shared with every process that maps the
        file. The header is checked as load() checks it; verify=True (the default) also checks
        the payload checksum, reading the file once; verify=False skips that, for trusted files
        only. Inserts, clear, |= and &= raise Error (copy() or load() give a writable filter).
        FormatError for a compressed, truncated or corrupt file or another kind; OSError if it
        cannot be opened. Replace a mapped file by rename (as save() does), never in place.
        """

    @property
    def mapped(self) -> bool:
        """Whether the filter is a read-only mapping of a file (Filter.map)."""

    @property
    def hash_kind(self) -> str:
        """'xxh3' or 'murmur3'."""

    @property
    def seed(self) -> int:
        """The hash seed."""

    @property
    def backend(self) -> str:
        """
        Engine of the bulk calls as set: 'auto' (resolved on each call) or an engine name. Not
        part of the filter's value: not saved, pickled or compared. `engine` names the one that runs.
        """

    @backend.setter
    def backend(self, value: str | None) -> None: ...

    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""

    @threads.setter
    def threads(self, value: int | None) -> None: ...

    @property
    def engine(self) -> str:
        """
        The engine the bulk calls run on now, e.g. 'avx512': `backend` resolved (for 'auto',
        BATCHBLOOM_BACKEND as last read, else the best engine of this machine; see resolve_backend).
        """

    @property
    def scratch_limit(self) -> int:
        """
        Bytes the partitioned batch path (large batches on filters beyond the cache) may keep
        between calls, all threads together; default: the filter's size, at least 256 MiB.
        Smaller means more rounds per batch; too small for a useful round (or 0) means the
        direct path. Lowering it below what is held gives the excess back.
        """

    @scratch_limit.setter
    def scratch_limit(self, value: int | None) -> None: ...

    @property
    def scratch_bytes(self) -> int:
        """
        Bytes of scratch held now, as of the end of the last bulk call that used it.
        """

    def release_scratch(self) -> None:
        """
        Gives the scratch back (the next bulk call that needs it allocates it again).
        """

    def __or__(self, arg: Filter, /) -> Filter:
        """The union: bit for bit the filter of both key sets."""

    def __and__(self, arg: Filter, /) -> Filter:
        """
        Bitwise AND: holds the common keys, with a higher FPR than a filter of them.
        """

    def __ior__(self, other: Self, /) -> Self: ...

    def __iand__(self, other: Self, /) -> Self: ...

    def union(self, other: Filter) -> Filter:
        """a | other, as a new filter."""

    def intersection(self, other: Filter) -> Filter:
        """a & other, as a new filter."""

    def issubset(self, other: Filter) -> bool:
        """
        Whether every bit set in this filter is set in other (a compatible filter: same
        parameters and hashing, else ValueError). Exact for the bits; for the keys it means
        every key this filter may hold, other may hold too (a subset of key sets gives a
        subset of bits; the converse holds up to false positives).
        """

    def issuperset(self, other: Filter) -> bool:
        """other.issubset(self)."""

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the
        other byte order converted in small chunks), Arrow data of integers, strings or binary
        (any width, large, view and dictionary forms; a polars Series, a pyarrow Array or
        ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An
        iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises
        after the chunks before its own were inserted. nulls: 'error' raises ValueError for an
        Arrow null or a None in an iterable, 'skip' leaves them out.
        """

    def update(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """insert(keys), by the name sets and rbloom use."""

    def add(self, key: int | bytes | str) -> None:
        """Inserts one key (int, bytes or str)."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """
        A NumPy bool array: True where the key may be present, False where it is certainly absent
        (and, with nulls='skip', for an Arrow null or a None).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """
        Number of keys in the batch that may be present (skipped nulls are not).
        """

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def __eq__(self, arg: Filter, /) -> bool: ...

    def __ne__(self, arg: Filter, /) -> bool: ...

    def copy(self) -> Filter:
        """An independent copy."""

    def __copy__(self) -> Filter: ...

    def __deepcopy__(self, memo: object) -> Filter: ...

    def to_bytes(self) -> bytes:
        """The filter in its file format (what save() writes)."""

    @staticmethod
    def from_bytes(data: bytes, *, max_bytes: int | None = None) -> Filter:
        """
        A filter from to_bytes() output or a saved file's contents (any bytes-like object).
        Raises FormatError if it is not exactly one valid filter, or if it needs more memory
        than max_bytes (as for load()).
        """

    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """
        Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then
        rename; a symbolic link's target is replaced and the link kept; a FIFO or character
        device is written in place), or to a binary file object: its write() is called until
        every byte is written (a raw file may take fewer than it is given); OSError if it
        returns None (a non-blocking file) or no progress. A Filter saved (or turned into
        bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that
        loads and holds every key inserted before the call.
        """

    @staticmethod
    def load(file: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = None) -> Filter:
        """
        Reads a saved filter from a path or a binary file object (read to its end, into the
        filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:
        the most memory the filter may need (its header is checked before anything is
        allocated; FormatError above it); None (default): the machine's physical memory.
        """

    @property
    def key_kinds(self) -> frozenset[Literal['integers', 'bytes']] | None:
        """
        The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'
        (str keys count as bytes), or None when not recorded (a file from before the record).
        """

    def __getstate__(self) -> bytes: ...

    def __setstate__(self, arg: bytes, /) -> None: ...

    __hash__: None = None

def estimated_jaccard(a: Filter, b: Filter) -> float:
    """
    Jaccard similarity of the key sets behind two compatible filters, estimated from their fills; 1.0 for two empty filters (two empty sets are the same set).
    """

class CountingFilter:
    """
    A counting Bloom filter: a 4-bit counter for every bit of a blocked filter, so keys can be
    erased. Counters saturate at 15 and then stay. Erase only keys you inserted: erasing a
    false positive can make present keys test negative. Bulk calls release the GIL.
    """

    def __init__(self, n: int | None = None, fpr: float | None = None, *, bits_per_key: float | None = None, shape: str | None = 'word512', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> None:
        """
        Empty counters sized like Filter(n, fpr, ...): the blocked filter's params, 4x its bytes.
        """

    @staticmethod
    def from_params(params: Params | None, *, hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> CountingFilter:
        """Empty counters for a blocked filter with these Params."""

    def erase(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str]) -> int:
        """
        Erases a batch of keys, in order; returns how many were erased. A key with a zero
        counter was certainly not present and is skipped.
        """

    def discard(self, key: int | bytes | str) -> bool:
        """Erases one key; False if it was certainly not present."""

    @property
    def params(self) -> Params: ...

    @property
    def nbytes(self) -> int:
        """Size of the counters in bytes."""

    def __repr__(self) -> str: ...

    def to_filter(self) -> Filter:
        """The blocked Filter of the keys present (counter > 0), byte for byte."""

    def saturated_counters(self) -> int:
        """Number of counters stuck at 15."""

    def clear(self) -> None:
        """Sets every counter to zero."""

    @property
    def hash_kind(self) -> str:
        """'xxh3' or 'murmur3'."""

    @property
    def seed(self) -> int:
        """The hash seed."""

    @property
    def backend(self) -> str:
        """
        Engine of the bulk calls ('auto' or an engine name); not part of the value.
        """

    @backend.setter
    def backend(self, value: str | None) -> None: ...

    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""

    @threads.setter
    def threads(self, value: int | None) -> None: ...

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the
        other byte order converted in small chunks), Arrow data of integers, strings or binary
        (any width, large, view and dictionary forms; a polars Series, a pyarrow Array or
        ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An
        iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises
        after the chunks before its own were inserted. nulls: 'error' raises ValueError for an
        Arrow null or a None in an iterable, 'skip' leaves them out.
        """

    def update(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """insert(keys), by the name sets and rbloom use."""

    def add(self, key: int | bytes | str) -> None:
        """Inserts one key (int, bytes or str)."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """
        A NumPy bool array: True where the key may be present, False where it is certainly absent
        (and, with nulls='skip', for an Arrow null or a None).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """
        Number of keys in the batch that may be present (skipped nulls are not).
        """

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def __eq__(self, arg: CountingFilter, /) -> bool: ...

    def __ne__(self, arg: CountingFilter, /) -> bool: ...

    def copy(self) -> CountingFilter:
        """An independent copy."""

    def __copy__(self) -> CountingFilter: ...

    def __deepcopy__(self, memo: object) -> CountingFilter: ...

    def to_bytes(self) -> bytes:
        """The filter in its file format (what save() writes)."""

    @staticmethod
    def from_bytes(data: bytes, *, max_bytes: int | None = None) -> CountingFilter:
        """
        A filter from to_bytes() output or a saved file's contents (any bytes-like object).
        Raises FormatError if it is not exactly one valid filter, or if it needs more memory
        than max_bytes (as for load()).
        """

    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """
        Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then
        rename; a symbolic link's target is replaced and the link kept; a FIFO or character
        device is written in place), or to a binary file object: its write() is called until
        every byte is written (a raw file may take fewer than it is given); OSError if it
        returns None (a non-blocking file) or no progress. A Filter saved (or turned into
        bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that
        loads and holds every key inserted before the call.
        """

    @staticmethod
    def load(file: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = None) -> CountingFilter:
        """
        Reads a saved filter from a path or a binary file object (read to its end, into the
        filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:
        the most memory the filter may need (its header is checked before anything is
        allocated; FormatError above it); None (default): the machine's physical memory.
        """

    @property
    def key_kinds(self) -> frozenset[Literal['integers', 'bytes']] | None:
        """
        The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'
        (str keys count as bytes), or None when not recorded (a file from before the record).
        """

    def __getstate__(self) -> bytes: ...

    def __setstate__(self, arg: bytes, /) -> None: ...

    __hash__: None = None

class ScalableFilter:
    """
    A scalable Bloom filter (Almeida et al. 2007): stage i is a blocked filter for
    initial_capacity * growth**i keys at initial_fpr * tightening**i; a new stage starts when the
    newest is full or one more key would put its FPR, measured from its bits, above its target,
    so the FPR stays at or below initial_fpr / (1 - tightening) = fpr_bound() at any size, for
    keys inserted in any order (probes chosen without knowledge of the seed). Bulk calls
    release the GIL.
    """

    def __init__(self, initial_capacity: int | None, fpr: float | None = None, *, initial_fpr: float | None = None, growth: float | None = 2.0, tightening: float | None = 0.85, shape: str | None = 'word512', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> None:
        """
        An empty scalable filter whose false-positive rate stays at or below fpr (default 0.01) at
        any size: its first stage holds initial_capacity keys at fpr * (1 - tightening). Or give
        initial_fpr, the first stage's FPR, instead (the whole then stays below
        initial_fpr / (1 - tightening)).
        """

    @property
    def inserted(self) -> int:
        """
        Keys handed to insert so far, duplicates included (not a count of distinct keys).
        """

    def __len__(self) -> int:
        """
        len(f): the keys handed to insert so far, duplicates included (f.inserted). The other
        filter types keep no count and have no len(); Filter.estimated_cardinality() estimates one.
        """

    @property
    def stage_sizes(self) -> list[int]:
        """Keys each stage took, oldest first."""

    def stages(self) -> list[Filter]:
        """Copies of the stages, oldest first."""

    def fpr_bound(self) -> float:
        """
        initial_fpr / (1 - tightening): the bound on the FPR at any size (<= the fpr asked for).
        """

    @property
    def initial_fpr(self) -> float:
        """The first stage's FPR at capacity."""

    @property
    def initial_capacity(self) -> int: ...

    @property
    def growth(self) -> float: ...

    @property
    def tightening(self) -> float: ...

    @property
    def nbytes(self) -> int:
        """Bytes of all stages."""

    def __repr__(self) -> str: ...

    def predicted_fpr(self) -> float:
        """Sum of the stages' predicted FPRs at their current loads."""

    @property
    def hash_kind(self) -> str:
        """'xxh3' or 'murmur3'."""

    @property
    def seed(self) -> int:
        """The hash seed."""

    @property
    def backend(self) -> str:
        """
        Engine of every stage's bulk calls ('auto' or an engine name); not part of the value.
        """

    @backend.setter
    def backend(self, value: str | None) -> None: ...

    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""

    @threads.setter
    def threads(self, value: int | None) -> None: ...

    @property
    def scratch_limit(self) -> int:
        """
        Bytes of scratch the filter may keep between calls, half for the keys a large probe
        carries from stage to stage, half for the partitioned path its stages share; by
        default each half is what a Filter of the whole size may keep. 0: none is kept.
        """

    @scratch_limit.setter
    def scratch_limit(self, value: int | None) -> None: ...

    @property
    def scratch_bytes(self) -> int:
        """
        Bytes of scratch held now, as of the end of the last bulk call that used it.
        """

    def release_scratch(self) -> None:
        """
        Gives the scratch back (the next bulk call that needs it allocates it again).
        """

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the
        other byte order converted in small chunks), Arrow data of integers, strings or binary
        (any width, large, view and dictionary forms; a polars Series, a pyarrow Array or
        ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An
        iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises
        after the chunks before its own were inserted. nulls: 'error' raises ValueError for an
        Arrow null or a None in an iterable, 'skip' leaves them out.
        """

    def update(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """insert(keys), by the name sets and rbloom use."""

    def add(self, key: int | bytes | str) -> None:
        """Inserts one key (int, bytes or str)."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """
        A NumPy bool array: True where the key may be present, False where it is certainly absent
        (and, with nulls='skip', for an Arrow null or a None).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """
        Number of keys in the batch that may be present (skipped nulls are not).
        """

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def __eq__(self, arg: ScalableFilter, /) -> bool: ...

    def __ne__(self, arg: ScalableFilter, /) -> bool: ...

    def copy(self) -> ScalableFilter:
        """An independent copy."""

    def __copy__(self) -> ScalableFilter: ...

    def __deepcopy__(self, memo: object) -> ScalableFilter: ...

    def to_bytes(self) -> bytes:
        """The filter in its file format (what save() writes)."""

    @staticmethod
    def from_bytes(data: bytes, *, max_bytes: int | None = None) -> ScalableFilter:
        """
        A filter from to_bytes() output or a saved file's contents (any bytes-like object).
        Raises FormatError if it is not exactly one valid filter, or if it needs more memory
        than max_bytes (as for load()).
        """

    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """
        Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then
        rename; a symbolic link's target is replaced and the link kept; a FIFO or character
        device is written in place), or to a binary file object: its write() is called until
        every byte is written (a raw file may take fewer than it is given); OSError if it
        returns None (a non-blocking file) or no progress. A Filter saved (or turned into
        bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that
        loads and holds every key inserted before the call.
        """

    @staticmethod
    def load(file: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = None) -> ScalableFilter:
        """
        Reads a saved filter from a path or a binary file object (read to its end, into the
        filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:
        the most memory the filter may need (its header is checked before anything is
        allocated; FormatError above it); None (default): the machine's physical memory.
        """

    @property
    def key_kinds(self) -> frozenset[Literal['integers', 'bytes']] | None:
        """
        The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'
        (str keys count as bytes), or None when not recorded (a file from before the record).
        """

    def __getstate__(self) -> bytes: ...

    def __setstate__(self, arg: bytes, /) -> None: ...

    __hash__: None = None

class ClassicParams:
    """
    Bits (m) and bits set per key (k) of a classic Bloom filter. Immutable.
    """

    def __init__(self, bits: int | None, k: int | None) -> None:
        """Explicit parameters, validated (ValueError names the invalid one)."""

    @staticmethod
    def for_fpr(n: int | None, fpr: float | None) -> ClassicParams:
        """
        Fewest bits whose FPR (1 - e^(-kn/m))^k for n keys is <= fpr, with the best k.
        """

    @staticmethod
    def for_bits_per_key(n: int | None, bits_per_key: float | None) -> ClassicParams:
        """ceil(n * bits_per_key) bits, k = round(bits_per_key * ln 2)."""

    @staticmethod
    def spark(n: int | None, fpp: float | None) -> ClassicParams:
        """
        What Spark's BloomFilter.create(n, fpp) chooses (bits rounded up to whole words).
        """

    @property
    def bits(self) -> int:
        """m, the number of bits."""

    @property
    def k(self) -> int:
        """Bits set per key."""

    @property
    def nbytes(self) -> int:
        """Size of the bit array in bytes (whole 64-bit words)."""

    def predicted_fpr(self, n: int | None) -> float:
        """
        (1 - e^(-kn/m))^k: the predicted false-positive rate after n distinct keys.
        """

    def __eq__(self, arg: ClassicParams, /) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

class ClassicFilter:
    """
    A classic Bloom filter: k bit positions anywhere in m bits, by double hashing.

    scheme 'double_hashing' is batchbloom's own (xxh3 or murmur3 with seed); 'spark_v1' and
    'spark_v2' are Apache Spark's BloomFilter (org.apache.spark.util.sketch), bit for bit:
    to_spark_bytes() is what Spark's writeTo writes and BloomFilter.readFrom reads. Integer keys
    are Spark's putLong, str keys putString (UTF-8), bytes keys putBinary. Bulk calls release the
    GIL; one filter may be shared by Python threads (writers exclude readers).
    """

    def __init__(self, n: int | None = None, fpr: float | None = None, *, bits_per_key: float | None = None, scheme: str | None = 'double_hashing', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> None:
        """
        An empty filter for n distinct keys at false-positive rate fpr (or bits_per_key bits per
        key). With a Spark scheme, (n, fpr) is sized as Spark's BloomFilter.create(n, fpr) and
        bits_per_key rounded up to whole 64-bit words; seed is then Spark's 32-bit seed as an
        unsigned value (spark_v1: 0 only) and hash is ignored.
        """

    @staticmethod
    def spark(n: int | None, fpp: float | None, *, scheme: str | None = 'spark_v2', seed: int | None = 0) -> ClassicFilter:
        """
        An empty filter exactly as Spark's BloomFilter.create(n, fpp) makes it (version 2, or
        version 1 with scheme='spark_v1'; seed: Spark's int seed, version 2 only).
        """

    @staticmethod
    def from_params(params: ClassicParams | None, *, scheme: str | None = 'double_hashing', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto', threads: int | None = 0) -> ClassicFilter:
        """An empty filter with explicit ClassicParams."""

    def predicted_fpr(self, n: int | None) -> float:
        """
        (1 - e^(-kn/m))^k: the predicted false-positive rate after n distinct keys.
        """

    @property
    def params(self) -> ClassicParams:
        """The filter's ClassicParams."""

    @property
    def bits(self) -> int: ...

    @property
    def k(self) -> int: ...

    @property
    def nbytes(self) -> int:
        """Size of the bit array in bytes."""

    @property
    def scheme(self) -> str:
        """'double_hashing', 'spark_v1' or 'spark_v2'."""

    def compatible(self, other: ClassicFilter) -> bool:
        """
        Whether | and & are defined for the two filters (same params and hashing).
        """

    def to_spark_bytes(self) -> bytes:
        """
        Spark's serialized form (BloomFilter.writeTo): what BloomFilter.readFrom reads. Error for
        the double_hashing scheme.
        """

    @staticmethod
    def from_spark_bytes(data: bytes, *, key_kinds: Iterable[Literal['integers', 'bytes']] | None = None) -> ClassicFilter:
        """
        A filter from Spark's serialized form (BloomFilter.writeTo, versions 1 and 2; any
        bytes-like object). FormatError if it is not exactly one valid Spark filter. Spark's form
        does not say what kinds of keys went in: key_kinds ('integers', 'bytes') says so where
        the caller knows, else key_kinds is None.
        """

    def __repr__(self) -> str: ...

    def clear(self) -> None:
        """Sets every bit to zero."""

    def fill_ratio(self) -> float:
        """Fraction of bits set."""

    @property
    def hash_kind(self) -> str:
        """
        'xxh3' or 'murmur3' (double_hashing only; Spark schemes hash with Spark's Murmur3).
        """

    @property
    def seed(self) -> int:
        """
        The hash seed (spark_v2: Spark's int seed as an unsigned 32-bit value).
        """

    @property
    def backend(self) -> str:
        """
        Engine of the bulk probes ('auto' or an engine name); not part of the value.
        """

    @backend.setter
    def backend(self, value: str | None) -> None: ...

    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""

    @threads.setter
    def threads(self, value: int | None) -> None: ...

    def __or__(self, arg: ClassicFilter, /) -> ClassicFilter:
        """
        The union (Spark: mergeInPlace): bit for bit the filter of both key sets.
        """

    def __and__(self, arg: ClassicFilter, /) -> ClassicFilter:
        """Bitwise AND (Spark: intersectInPlace)."""

    def __ior__(self, other: Self, /) -> Self: ...

    def __iand__(self, other: Self, /) -> Self: ...

    def union(self, other: ClassicFilter) -> ClassicFilter:
        """a | other, as a new filter."""

    def intersection(self, other: ClassicFilter) -> ClassicFilter:
        """a & other, as a new filter."""

    def issubset(self, other: ClassicFilter) -> bool:
        """
        Whether every bit set in this filter is set in other (a compatible filter: same
        parameters and hashing, else ValueError). Exact for the bits; for the keys it means
        every key this filter may hold, other may hold too (a subset of key sets gives a
        subset of bits; the converse holds up to false positives).
        """

    def issuperset(self, other: ClassicFilter) -> bool:
        """other.issubset(self)."""

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the
        other byte order converted in small chunks), Arrow data of integers, strings or binary
        (any width, large, view and dictionary forms; a polars Series, a pyarrow Array or
        ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An
        iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises
        after the chunks before its own were inserted. nulls: 'error' raises ValueError for an
        Arrow null or a None in an iterable, 'skip' leaves them out.
        """

    def update(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """insert(keys), by the name sets and rbloom use."""

    def add(self, key: int | bytes | str) -> None:
        """Inserts one key (int, bytes or str)."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """
        A NumPy bool array: True where the key may be present, False where it is certainly absent
        (and, with nulls='skip', for an Arrow null or a None).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """
        Number of keys in the batch that may be present (skipped nulls are not).
        """

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def __eq__(self, arg: ClassicFilter, /) -> bool: ...

    def __ne__(self, arg: ClassicFilter, /) -> bool: ...

    def copy(self) -> ClassicFilter:
        """An independent copy."""

    def __copy__(self) -> ClassicFilter: ...

    def __deepcopy__(self, memo: object) -> ClassicFilter: ...

    def to_bytes(self) -> bytes:
        """The filter in its file format (what save() writes)."""

    @staticmethod
    def from_bytes(data: bytes, *, max_bytes: int | None = None) -> ClassicFilter:
        """
        A filter from to_bytes() output or a saved file's contents (any bytes-like object).
        Raises FormatError if it is not exactly one valid filter, or if it needs more memory
        than max_bytes (as for load()).
        """

    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """
        Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then
        rename; a symbolic link's target is replaced and the link kept; a FIFO or character
        device is written in place), or to a binary file object: its write() is called until
        every byte is written (a raw file may take fewer than it is given); OSError if it
        returns None (a non-blocking file) or no progress. A Filter saved (or turned into
        bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that
        loads and holds every key inserted before the call.
        """

    @staticmethod
    def load(file: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = None) -> ClassicFilter:
        """
        Reads a saved filter from a path or a binary file object (read to its end, into the
        filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:
        the most memory the filter may need (its header is checked before anything is
        allocated; FormatError above it); None (default): the machine's physical memory.
        """

    @property
    def key_kinds(self) -> frozenset[Literal['integers', 'bytes']] | None:
        """
        The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'
        (str keys count as bytes), or None when not recorded (a file from before the record).
        """

    def __getstate__(self) -> bytes: ...

    def __setstate__(self, arg: bytes, /) -> None: ...

    __hash__: None = None

class DeletableFilter:
    """
    A deletable Bloom filter (Rothenberg et al. 2010): a blocked filter plus one collision bit
    per region of region_bits bits. A key whose bits include one in a collision-free region
    can be erased with no false negatives for the other keys; deletability falls as keys are
    added. Erase only keys you inserted. Bulk calls release the GIL.
    """

    def __init__(self, n: int | None = None, fpr: float | None = None, *, bits_per_key: float | None = None, region_bits: int | None = 8, shape: str | None = 'word512', hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto') -> None:
        """
        An empty filter sized like Filter(n, fpr, ...), plus bits / region_bits collision bits
        (region_bits: a power of two from 1 to the block's bits).
        """

    @staticmethod
    def from_params(params: Params | None, *, region_bits: int | None = 8, hash: str | None = 'xxh3', seed: int | None = 0, backend: str | None = 'auto') -> DeletableFilter:
        """An empty filter with explicit Params."""

    def erase(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str]) -> int:
        """
        Erases a batch of keys, in order; returns how many were erased (the others tested
        negative or had every bit in a collided region, and nothing changed for them).
        """

    def erase_outcomes(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str]) -> numpy.typing.NDArray[numpy.uint8]:
        """
        Erases like erase() and returns each key's outcome as a NumPy uint8 array: 0 absent
        (tested negative), 1 erased, 2 not deletable (every bit in a collided region).
        """

    def discard(self, key: int | bytes | str) -> bool:
        """Erases one key; False if it tested negative or could not be erased."""

    @staticmethod
    def predicted_deletability(params: Params | None, region_bits: int | None, n: int | None) -> float:
        """Expected fraction of n inserted distinct keys that erase() can remove."""

    @property
    def params(self) -> Params: ...

    @property
    def region_bits(self) -> int: ...

    @property
    def regions(self) -> int: ...

    @property
    def nbytes(self) -> int:
        """Bytes of the bit array and the collision bitmap."""

    def __repr__(self) -> str: ...

    def to_filter(self) -> Filter:
        """
        A copy of the bits as a blocked Filter (byte for byte a Filter of the keys present, as
        long as nothing was erased).
        """

    def collided_regions(self) -> int:
        """
        Number of regions marked as collided (their bits can no longer be cleared).
        """

    def clear(self) -> None:
        """Sets every bit and every collision bit to zero."""

    @property
    def hash_kind(self) -> str:
        """'xxh3' or 'murmur3'."""

    @property
    def seed(self) -> int:
        """The hash seed."""

    @property
    def backend(self) -> str:
        """
        Engine of the bulk probes ('auto' or an engine name; inserts and erases are scalar); not
        part of the value.
        """

    @backend.setter
    def backend(self, value: str | None) -> None: ...

    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""

    @threads.setter
    def threads(self, value: int | None) -> None: ...

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the
        other byte order converted in small chunks), Arrow data of integers, strings or binary
        (any width, large, view and dictionary forms; a polars Series, a pyarrow Array or
        ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An
        iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises
        after the chunks before its own were inserted. nulls: 'error' raises ValueError for an
        Arrow null or a None in an iterable, 'skip' leaves them out.
        """

    def update(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """insert(keys), by the name sets and rbloom use."""

    def add(self, key: int | bytes | str) -> None:
        """Inserts one key (int, bytes or str)."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """
        A NumPy bool array: True where the key may be present, False where it is certainly absent
        (and, with nulls='skip', for an Arrow null or a None).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """
        Number of keys in the batch that may be present (skipped nulls are not).
        """

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def __eq__(self, arg: DeletableFilter, /) -> bool: ...

    def __ne__(self, arg: DeletableFilter, /) -> bool: ...

    def copy(self) -> DeletableFilter:
        """An independent copy."""

    def __copy__(self) -> DeletableFilter: ...

    def __deepcopy__(self, memo: object) -> DeletableFilter: ...

    def to_bytes(self) -> bytes:
        """The filter in its file format (what save() writes)."""

    @staticmethod
    def from_bytes(data: bytes, *, max_bytes: int | None = None) -> DeletableFilter:
        """
        A filter from to_bytes() output or a saved file's contents (any bytes-like object).
        Raises FormatError if it is not exactly one valid filter, or if it needs more memory
        than max_bytes (as for load()).
        """

    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """
        Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then
        rename; a symbolic link's target is replaced and the link kept; a FIFO or character
        device is written in place), or to a binary file object: its write() is called until
        every byte is written (a raw file may take fewer than it is given); OSError if it
        returns None (a non-blocking file) or no progress. A Filter saved (or turned into
        bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that
        loads and holds every key inserted before the call.
        """

    @staticmethod
    def load(file: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = None) -> DeletableFilter:
        """
        Reads a saved filter from a path or a binary file object (read to its end, into the
        filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:
        the most memory the filter may need (its header is checked before anything is
        allocated; FormatError above it); None (default): the machine's physical memory.
        """

    @property
    def key_kinds(self) -> frozenset[Literal['integers', 'bytes']] | None:
        """
        The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'
        (str keys count as bytes), or None when not recorded (a file from before the record).
        """

    def __getstate__(self) -> bytes: ...

    def __setstate__(self, arg: bytes, /) -> None: ...

    __hash__: None = None

class JoinFilter:
    """
    The Bloom join's pre-filter: a blocked filter over a hash join's build-side keys, probed
    with whole probe columns. select() gives the rows that may match (a superset of the
    matches: every matching row, and about fpr of the others), bitmap() the same as a packed
    bitmap (bit i = row i, the layout of an Arrow boolean array), count() their number. Nulls
    are the caller's: drop them before (a null never matches). Immutable; calls release the GIL.
    """

    def __init__(self, build_keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, fpr: float | None = 0.01, bits_per_key: float | None = None, expected_keys: int = 0, shape: str = 'word512', hash: str = 'xxh3', seed: int = 0, backend: str = 'auto', threads: int = 0, chunk_rows: int = 65536) -> None:
        """
        Builds the filter over the build side's keys (any key batch; an Arrow stream or an
        iterable is gathered first), sized for their distinct count at fpr (or bits_per_key bits
        per key), or for expected_keys keys when given (skips the count). threads: build and
        probe threads, 0 = every core; chunk_rows: rows per chunk of a probe.
        """

    @staticmethod
    def from_filter(filter: Filter, sized_for: int | None, *, backend: str | None = 'auto', threads: int | None = 0, chunk_rows: int | None = 65536) -> JoinFilter:
        """
        A join filter over a Filter that holds the build keys (loaded, received, or OR-ed from
        partitions); sized_for: the number of build keys it was sized for.
        """

    def select(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.uint64]:
        """
        The 0-based positions of the keys that may match, ascending (NumPy uint64).
        """

    def bitmap(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.uint64]:
        """
        A packed bitmap (NumPy uint64 words): bit i % 64 of word i // 64 is set where key i may
        match; bits past the last key are zero. Its bytes are an Arrow boolean array's values
        (pyarrow.BooleanArray.from_buffers).
        """

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """Number of keys that may match."""

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """A NumPy bool array: True where the key may match."""

    def __contains__(self, key: int | bytes | str) -> bool: ...

    def plan(self, sample: numpy.typing.ArrayLike | Iterable[int | bytes | str] | None = None, *, mode: Literal['auto', 'always', 'never'] = 'auto', min_gain: float = 1.25, table_miss_ns: float | None = None, costs: dict[str, float] | None = None, table_compute_ns: float | None = None, filter_compute_ns: float | None = None, repeated_rows: float | None = None, table_row_ns: float | None = None, probe_rows: int | None = None) -> JoinPlan:
        """
        Decides whether this filter pays in front of a hash join (a JoinPlan; call its
        probe_batch for every probe batch). sample: probe-side keys (the first batch, a few
        thousand rows; None only with a forced mode); the filter pays where the fraction p of the
        sample it passes gives (1 - p) * saved / filter_ns >= min_gain, a dropped row saving a
        table miss (table_miss_ns) or, where its key repeats the row before's, only the table's
        compute (repeated_rows below). The costs are this
        machine's, measured per process (measured_join_costs, string keys at the sample's mean
        length), unless given: table_miss_ns, the host's own time per probe row that misses its hash
        table, or costs, the whole model (the keys of measured_join_costs). table_compute_ns and
        filter_compute_ns: the host's table work and the filter's per missing row with every line
        in cache, timed side by side on the same keys, probe rows in their order (a key's repeats
        cost the table less); each cost is then the larger of the model's and the work, and given
        table_compute_ns the plan no longer hopes that dropped repeats miss. repeated_rows: the fraction of probe rows whose key is the row before's (they
        find the table's line in cache, and dropping one saves only the table's compute); None
        counts it on the sample's adjacent rows. table_row_ns: the host's own time per probe row
        through its table, every row in the join's order (e.g. its first batches sent straight to
        the table, timed): what the table really costs the join, which the model can miss by up to
        3x. probe_rows: the probe side's rows, where known: a filter whose build cost at most 3% of
        their probe work is tried on the join's batches wherever its best case (every dropped row a
        table miss, or where table_row_ns is given, saving half of it) is a clear win, whatever the estimate (as
        filter_may_pay does), and a trial gives at most an eighth of the join's batches to the way
        behind. mode: 'always' / 'never' force the answer.
        """

    def to_filter(self) -> Filter:
        """A copy of the filter (a blocked Filter: save it, OR it, probe it)."""

    @property
    def sized_for(self) -> int:
        """
        Build keys the filter was sized for (distinct keys unless expected_keys was given).
        """

    def predicted_fpr(self) -> float:
        """
        The FPR the sizing model predicts for a probe key that is not a build key.
        """

    @property
    def params(self) -> Params: ...

    @property
    def nbytes(self) -> int: ...

    @property
    def hash_kind(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def backend(self) -> str: ...

    @property
    def threads(self) -> int: ...

    @property
    def chunk_rows(self) -> int: ...

    def __eq__(self, arg: JoinFilter, /) -> bool:
        """Same filter bits, params and hashing, sized for the same count."""

    def __ne__(self, arg: JoinFilter, /) -> bool: ...

    def copy(self) -> JoinFilter:
        """An independent copy."""

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __copy__(self) -> JoinFilter: ...

    def __deepcopy__(self, memo: Any) -> JoinFilter: ...

    def __repr__(self) -> str: ...

    __hash__: None = None

class JoinPlan:
    """
    Whether a JoinFilter pays in front of a hash join, decided once (JoinFilter.plan) from
    a probe-side sample and this machine's costs; probe_batch applies it to each probe
    batch. Deterministic given the same sample, options and costs; no threads of its own.
    """

    def __init__(self, join_filter: JoinFilter, sample: numpy.typing.ArrayLike | Iterable[int | bytes | str] | None = None, *, mode: Literal['auto', 'always', 'never'] = 'auto', min_gain: float = 1.25, table_miss_ns: float | None = None, costs: dict[str, float] | None = None, table_compute_ns: float | None = None, filter_compute_ns: float | None = None, repeated_rows: float | None = None, table_row_ns: float | None = None, probe_rows: int | None = None) -> None:
        """The same as join_filter.plan(sample, ...)."""

    def probe_batch(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.uint64] | None:
        """
        One probe batch: the 0-based positions of the rows that may match, ascending (NumPy
        uint64; exactly JoinFilter.select's) where the plan filters, or None where it passes the
        batch through (every row goes on to the hash table).
        """

    def report(self, rows: int, filtered: bool, ns: float) -> None:
        """
        The time (ns) the host spent on a batch of `rows` rows that probe_batch answered (filtered:
        it returned positions, not None), the plan's call and the host's table probes together.
        Where the estimate was borderline the plan compares both ways over the join (the first
        batches alternate, then the way behind gets one now and then) and leads with the faster
        by these reports; ignored where it does not compare.
        """

    @property
    def filters(self) -> bool:
        """
        Whether probe batches go through the filter (the way ahead while the plan compares).
        """

    @property
    def trying(self) -> bool:
        """Whether the plan compares both ways (it wants report()s)."""

    @property
    def mode(self) -> Literal['auto', 'always', 'never']:
        """'auto', 'always' or 'never'."""

    @property
    def gain(self) -> float:
        """
        Estimated table work saved over filter probes paid (0 with a forced mode and no sample).
        """

    @property
    def sample_pass_fraction(self) -> float:
        """
        The fraction of the sample that the filter passes (matches and false positives).
        """

    @property
    def repeated_rows(self) -> float:
        """
        The fraction of probe rows taken to repeat the row before's key (given, or the sample's).
        """

    @property
    def costs(self) -> dict[str, float]:
        """
        The costs the decision used, ns per row on one thread (zeros with a forced mode and no sample).
        """

    @property
    def join_filter(self) -> JoinFilter:
        """The JoinFilter the plan applies."""

    @staticmethod
    def filter_may_pay(build_keys: int, filter_bytes: int, string_keys: bool, probe_rows: int, matched_fraction: float, *, mode: Literal['auto', 'always', 'never'] = 'auto', min_gain: float = 1.25, table_miss_ns: float | None = None, costs: dict[str, float] | None = None, table_compute_ns: float | None = None, filter_compute_ns: float | None = None, repeated_rows: float | None = None, table_row_ns: float | None = None, backend: str = 'auto') -> bool:
        """
        Before building a JoinFilter: whether one of filter_bytes over build_keys keys may pay in
        front of a join of probe_rows rows of which matched_fraction (the host's estimate, from
        its own hash table) have a match, its build counted. Options as JoinFilter.plan's; backend
        the engine the JoinFilter will run on.
        """

def measured_join_costs(build_keys: int, filter_bytes: int, string_keys: bool = False, string_bytes: int = 24, backend: str = 'auto') -> dict[str, float]:
    """
    This machine's costs for a join plan, ns per row on one thread: filter_ns (a probe row
    through a join filter of filter_bytes), table_miss_ns (a probe row that misses a hash table
    of build_keys keys), insert_ns (a build key into the filter), for integer keys or strings of
    string_bytes on average, the filter on backend (CUDA weighed as the best CPU engine). Measured
    per engine at the first call for a size class (powers of two) and key
    class (integers; strings in steps of 16 bytes), a few milliseconds, at up to three moments of the
    process at least 50 ms apart (each cost the median of them), then cached for the process.
    """

def load_any(source: str | os.PathLike[str] | bytes | bytearray | memoryview, *, max_bytes: int | None = None) -> Filter | CountingFilter | DeletableFilter | ScalableFilter | ClassicFilter:
    """
    The filter a saved file holds, as its own type: Filter, CountingFilter, DeletableFilter,
    ScalableFilter or ClassicFilter (batchbloom's files, and Apache Spark's serialized
    BloomFilter). source: a path, or the file's bytes (any bytes-like object); a path is
    read once, so '/dev/stdin', a pipe or a FIFO loads like a file. max_bytes: the most
    memory the filter may need, checked against its header before anything is allocated
    (None, the default: the machine's physical memory). FormatError if it is no filter or
    needs more than max_bytes, OSError if the file cannot be read.
    """

class ConcurrentFilter:
    """
    A view of a Filter for inserting from many threads at once, without a lock.

        view = batchbloom.ConcurrentFilter(f)
        # on each thread: view.insert(morsel)

    Inserts set each word with an atomic OR; the filter ends bit-identical to a
    sequential build. A probe through the view never misses a key whose insert
    returned before the probe started. While view inserts may be running, probe
    through the view (the filter's own contains reads without atomics).
    """

    def __init__(self, filter: Filter) -> None:
        """A view of `filter` (a batchbloom.Filter), which it keeps alive."""

    @property
    def filter(self) -> Filter:
        """The viewed Filter."""

    def insert(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> None:
        """
        Inserts a batch of keys (as Filter.insert takes them); other threads may insert and probe meanwhile.
        """

    def contains(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> numpy.typing.NDArray[numpy.bool_]:
        """A NumPy bool array: True where the key may be present."""

    def count(self, keys: numpy.typing.ArrayLike | Iterable[int | bytes | str], *, nulls: Literal['error', 'skip'] = 'error') -> int:
        """Number of keys in the batch that may be present."""

class FileLock:
    """
    An exclusive lock on a saved filter's file, the one `batchbloom insert`, `erase`,
    `union`/`intersect`/`fold` onto an input and `parquet add` in place take: writers
    that each hold it while they load, change and save the file take turns, so none
    loses another's keys. Use it as a context manager (`with batchbloom.lock(path):`),
    or through batchbloom.update(path). Advisory (flock): it orders the writers that
    take it, on one machine (not over NFS); readers need none, as every save replaces
    the file atomically. A path that names no regular file yet gives no lock
    (`held` is False): there is nothing to order until the first save creates it.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        """A lock on `path`, not yet taken: `with` (or acquire()) takes it."""

    def acquire(self) -> None:
        """
        Blocks until the file is locked (the GIL is released while waiting). Error if the file
        system refuses locks.
        """

    def release(self) -> None:
        """Releases the lock (nothing if it is not held)."""

    @property
    def held(self) -> bool:
        """
        Whether a lock on the file is held (False for a path that named no regular file).
        """

    @property
    def path(self) -> pathlib.Path:
        """The path the lock is for."""

    def __enter__(self) -> FileLock: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: types.TracebackType | None) -> None: ...
