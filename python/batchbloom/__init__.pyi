"""Type stubs of batchbloom (the extension module batchbloom._core, re-exported)."""

import os
from collections.abc import Iterable
from typing import Any, Literal, SupportsIndex, Union

import numpy as np
import numpy.typing as npt

__version__: str

Shape = Literal["split256", "word512", "line512"]
HashKind = Literal["xxh3", "murmur3"]
BackendName = Literal["auto", "scalar", "avx2", "avx512", "cuda"]

#: One key: an integer in [-2**63, 2**64) (negative: its 64-bit two's complement), bytes, or
#: str (its UTF-8 bytes).
Key = Union[int, SupportsIndex, bytes, str]

#: A batch of keys: a 1-D C-contiguous NumPy uint64/int64/uint32/int32 array (read in place;
#: the other byte order converted in chunks),
#: an Arrow array or chunked array of int64/uint64/int32/uint32/string/binary/large_string/
#: large_binary without nulls (read in place, through the Arrow PyCapsule protocol), or an
#: iterable of ints or of bytes/str.
Keys = Union[
    npt.NDArray[np.uint64],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint32],
    npt.NDArray[np.int32],
    Iterable[Union[int, SupportsIndex]],
    Iterable[Union[bytes, str]],
    Any,  # Arrow arrays: anything with __arrow_c_array__ or __arrow_c_stream__
]

class Error(ValueError):
    """Bad parameters, incompatible filters, unavailable engines (the C++ batchbloom::Error)."""

class FormatError(Error):
    """Bytes or a file that are not a valid saved filter (the C++ batchbloom::FormatError)."""

def available_backends() -> list[str]:
    """Names of the engines usable on this machine, best first."""

def resolve_backend(name: BackendName = "auto") -> str:
    """The engine `name` runs on here ('auto': BATCHBLOOM_BACKEND if set, else the best one)."""

def estimated_jaccard(a: Filter, b: Filter) -> float:
    """Jaccard similarity of the key sets behind two compatible filters, from their fills."""

class Params:
    """Shape, block count and bits set per key (k) of a blocked Bloom filter. Immutable."""

    def __init__(self, shape: Shape, blocks: int, k: int) -> None: ...
    @staticmethod
    def for_fpr(n: int, fpr: float, shape: Shape = "word512") -> Params:
        """The smallest filter whose predicted FPR for n distinct keys is <= fpr."""
    @staticmethod
    def for_bits_per_key(n: int, bits_per_key: float, shape: Shape = "word512") -> Params:
        """ceil(n * bits_per_key / block bits) blocks, with the best k."""
    @property
    def shape(self) -> str: ...
    @property
    def blocks(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def block_bytes(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def bits(self) -> int: ...
    def predicted_fpr(self, n: int) -> float:
        """Predicted false-positive rate after n distinct keys."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Filter:
    """A blocked Bloom filter, built and probed in batches.

    Bulk calls (insert, contains, count) release the GIL and run on every core unless
    threads= says otherwise; one filter may be shared by Python threads (writers exclude
    readers). Results never depend on the engine or thread count.
    """

    def __init__(
        self,
        n: int | None = None,
        fpr: float | None = None,
        *,
        bits_per_key: float | None = None,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
    ) -> None:
        """An empty filter sized for n distinct keys at fpr (or bits_per_key bits per key)."""
    @staticmethod
    def from_params(
        params: Params, *, hash: HashKind = "xxh3", seed: int = 0, backend: BackendName = "auto", threads: int = 0
    ) -> Filter:
        """An empty filter with explicit Params."""
    def insert(self, keys: Keys) -> None:
        """Inserts a batch of keys."""
    def add(self, key: Key) -> None:
        """Inserts one key."""
    def contains(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """True where the key may be present, False where it is certainly absent."""
    def count(self, keys: Keys) -> int:
        """Number of keys in the batch that may be present."""
    def __contains__(self, key: Key) -> bool: ...
    def clear(self) -> None:
        """Sets every bit to zero."""
    def fill_ratio(self) -> float:
        """Fraction of bits set."""
    def current_fpr(self) -> float:
        """False-positive rate of a random absent key against the bits as they are now."""
    def estimated_cardinality(self) -> float:
        """Number of distinct keys inserted, estimated from the fill."""
    @property
    def params(self) -> Params: ...
    @property
    def shape(self) -> str: ...
    @property
    def blocks(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def hash_kind(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def backend(self) -> str:
        """'auto' or an engine name; not part of the filter's value (not saved or compared)."""
    @backend.setter
    def backend(self, name: BackendName) -> None: ...
    @property
    def threads(self) -> int:
        """Threads of the bulk calls; 0 = every core."""
    @threads.setter
    def threads(self, n: int) -> None: ...
    def compatible(self, other: Filter) -> bool:
        """Whether |, & and estimated_jaccard are defined for the two filters."""
    def fold(self) -> Filter:
        """A filter of half the blocks holding the same keys (needs an even block count)."""
    def copy(self) -> Filter:
        """An independent copy."""
    def __copy__(self) -> Filter: ...
    def __deepcopy__(self, memo: Any) -> Filter: ...
    def __or__(self, other: Filter) -> Filter:
        """The union: bit for bit the filter of both key sets."""
    def __and__(self, other: Filter) -> Filter:
        """Bitwise AND: holds the common keys, with a higher FPR than a filter of them."""
    def __ior__(self, other: Filter) -> Filter: ...
    def __iand__(self, other: Filter) -> Filter: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    __hash__: None  # type: ignore[assignment]
    def to_bytes(self) -> bytes:
        """The filter in the batchbloom file format (what save() writes)."""
    @staticmethod
    def from_bytes(data: bytes | bytearray | memoryview | npt.NDArray[np.uint8]) -> Filter:
        """A filter from to_bytes() output; FormatError if it is not exactly one valid filter."""
    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the filter to path atomically; OSError if that fails."""
    @staticmethod
    def load(path: str | os.PathLike[str]) -> Filter:
        """Reads a saved filter; FormatError if it is corrupt, OSError if unreadable."""
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

class CountingFilter:
    """A counting Bloom filter: a 4-bit counter for every bit of a blocked filter, so keys can be
    erased. Counters saturate at 15 and then stay. Erase only keys you inserted."""

    def __init__(
        self,
        n: int | None = None,
        fpr: float | None = None,
        *,
        bits_per_key: float | None = None,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
    ) -> None: ...
    @staticmethod
    def from_params(params: Params, *, hash: HashKind = "xxh3", seed: int = 0, backend: BackendName = "auto") -> CountingFilter: ...
    def insert(self, keys: Keys) -> None: ...
    def add(self, key: Key) -> None: ...
    def contains(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def count(self, keys: Keys) -> int: ...
    def __contains__(self, key: Key) -> bool: ...
    def erase(self, keys: Keys) -> int:
        """Erases a batch of keys, in order; returns how many were erased."""
    def discard(self, key: Key) -> bool:
        """Erases one key; False if it was certainly not present."""
    def to_filter(self) -> Filter:
        """The plain Filter of the keys present, byte for byte."""
    def saturated_counters(self) -> int: ...
    def clear(self) -> None: ...
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
    @backend.setter
    def backend(self, name: BackendName) -> None: ...
    def copy(self) -> CountingFilter: ...
    def __copy__(self) -> CountingFilter: ...
    def __deepcopy__(self, memo: Any) -> CountingFilter: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    __hash__: None  # type: ignore[assignment]
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes | bytearray | memoryview | npt.NDArray[np.uint8]) -> CountingFilter: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    @staticmethod
    def load(path: str | os.PathLike[str]) -> CountingFilter: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

class ScalableFilter:
    """A scalable Bloom filter (Almeida et al. 2007): stages of growing capacity and tightening
    FPR, so the FPR stays below fpr / (1 - tightening) at any size."""

    def __init__(
        self,
        initial_capacity: int,
        fpr: float = 0.01,
        *,
        growth: float = 2.0,
        tightening: float = 0.85,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
    ) -> None: ...
    def insert(self, keys: Keys) -> None: ...
    def add(self, key: Key) -> None: ...
    def contains(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def count(self, keys: Keys) -> int: ...
    def __contains__(self, key: Key) -> bool: ...
    @property
    def inserted(self) -> int:
        """Keys handed to insert so far, duplicates included."""
    @property
    def stage_sizes(self) -> list[int]: ...
    def stages(self) -> list[Filter]:
        """Copies of the stages, oldest first."""
    def fpr_bound(self) -> float: ...
    def predicted_fpr(self) -> float: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def hash_kind(self) -> str: ...
    @property
    def seed(self) -> int: ...
    def copy(self) -> ScalableFilter: ...
    def __copy__(self) -> ScalableFilter: ...
    def __deepcopy__(self, memo: Any) -> ScalableFilter: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    __hash__: None  # type: ignore[assignment]
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes | bytearray | memoryview | npt.NDArray[np.uint8]) -> ScalableFilter: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    @staticmethod
    def load(path: str | os.PathLike[str]) -> ScalableFilter: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...
