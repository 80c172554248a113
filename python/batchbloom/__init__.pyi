"""Type stubs of batchbloom (the extension module batchbloom._core, re-exported)."""

import os
from collections.abc import Iterable
from typing import Any, BinaryIO, Literal, Protocol, SupportsIndex, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

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

#: Bytes-like input: a saved filter's contents.
Bytes = Union[bytes, bytearray, memoryview, npt.NDArray[np.uint8]]

class Error(ValueError):
    """Bad parameters, incompatible filters, unavailable engines (the C++ batchbloom::Error)."""

class FormatError(Error):
    """Bytes or a file that are not a valid saved filter (the C++ batchbloom::FormatError)."""

def available_backends() -> list[str]:
    """Names of the engines usable on this machine, best first."""

def resolve_backend(name: BackendName = "auto") -> str:
    """The engine `name` runs on here ('auto': BATCHBLOOM_BACKEND if set, else the best one)."""

def load_any(
    source: str | os.PathLike[str] | Bytes,
) -> Filter | CountingFilter | DeletableFilter | ScalableFilter | ClassicFilter:
    """The filter a saved file (or its bytes) holds, as its own type; Spark's serialized
    BloomFilter is a ClassicFilter. FormatError if it is no filter, OSError if unreadable."""

def estimated_jaccard(a: Filter, b: Filter) -> float:
    """Jaccard similarity of the key sets behind two compatible filters, from their fills;
    1.0 for two empty filters (two empty sets are the same set). batchbloom.Error if the
    filters are incompatible."""

class _Sizes(Protocol):
    """What Params and ClassicParams share: the bits, k, bytes and predicted FPR of a size."""

    @property
    def bits(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def predicted_fpr(self, n: int) -> float:
        """Predicted false-positive rate after n distinct keys (the blocked-filter model for
        Params, (1 - e^(-kn/m))^k for ClassicParams)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Params(_Sizes):
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
    def block_bytes(self) -> int: ...

# The API the filter types share, written once. These protocols exist only in the stubs: the
# runtime classes implement them without a common base class.

class _Probed(Protocol):
    """Probes and the value semantics of every filter type, JoinFilter included."""

    def contains(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> npt.NDArray[np.bool_]:
        """True where the key may be present, False where it is certainly absent."""
    def count(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> int:
        """Number of keys in the batch that may be present."""
    def __contains__(self, key: Key) -> bool: ...
    @property
    def nbytes(self) -> int:
        """Size of the filter's storage in bytes."""
    @property
    def hash_kind(self) -> str:
        """'xxh3' or 'murmur3'."""
    @property
    def seed(self) -> int:
        """The hash seed."""
    def copy(self) -> Self:
        """An independent copy."""
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: Any) -> Self: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    __hash__: None  # type: ignore[assignment]

class _Saved(_Probed, Protocol):
    """A filter keys are inserted into, with engine settings, bytes, files and pickling."""

    def insert(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> None:
        """Inserts a batch of keys."""
    def update(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> None:
        """insert(keys), by the name sets and rbloom use."""
    def add(self, key: Key) -> None:
        """Inserts one key."""
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
    def to_bytes(self) -> bytes:
        """The filter in the batchbloom file format (what save() writes)."""
    @classmethod
    def from_bytes(cls, data: Bytes) -> Self:
        """A filter from to_bytes() output; FormatError if it is not exactly one valid filter."""
    @property
    def key_kinds(self) -> frozenset[Literal["integers", "bytes"]] | None:
        """The kinds of keys inserted (saved with the filter); None when not recorded."""
    def save(self, file: str | os.PathLike[str] | BinaryIO) -> None:
        """Writes the filter to a path atomically, or to a binary file object; OSError if that fails."""
    @classmethod
    def load(cls, file: str | os.PathLike[str] | BinaryIO) -> Self:
        """Reads a saved filter from a path or a binary file object; FormatError if it is
        corrupt, OSError if unreadable."""
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

class _KeepsScratch(Protocol):
    """Filters whose batch paths keep memory between calls: Filter and ScalableFilter. Like the
    engine settings, not part of the filter's value."""

    @property
    def scratch_limit(self) -> int:
        """Bytes of scratch the filter may keep between calls (0: none)."""
    @scratch_limit.setter
    def scratch_limit(self, n: int) -> None: ...
    @property
    def scratch_bytes(self) -> int:
        """Bytes of scratch held now."""
    def release_scratch(self) -> None:
        """Gives the scratch back (the next bulk call that needs it allocates it again)."""

class _Bitwise(_Saved, Protocol):
    """Filters whose bits combine: Filter and ClassicFilter."""

    def clear(self) -> None:
        """Sets every bit to zero."""
    def fill_ratio(self) -> float:
        """Fraction of bits set."""
    def compatible(self, other: Self) -> bool:
        """Whether | and & (and, for Filter, estimated_jaccard) are defined for the two filters."""
    def __or__(self, other: Self) -> Self:
        """The union: bit for bit the filter of both key sets."""
    def __and__(self, other: Self) -> Self:
        """Bitwise AND: holds the common keys, with a higher FPR than a filter of them."""
    def __ior__(self, other: Self) -> Self: ...
    def __iand__(self, other: Self) -> Self: ...
    def union(self, other: Self) -> Self:
        """self | other, as a new filter."""
    def intersection(self, other: Self) -> Self:
        """self & other, as a new filter."""
    def issubset(self, other: Self) -> bool:
        """Whether every bit set in self is set in other (compatible filters, else ValueError)."""
    def issuperset(self, other: Self) -> bool:
        """other.issubset(self)."""

class Filter(_Bitwise, _KeepsScratch):
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
    def fold(self) -> Filter:
        """A filter of half the blocks holding the same keys (needs an even block count)."""
    @staticmethod
    def map(path: str | os.PathLike[str], verify: bool = True) -> Filter:
        """Opens a saved uncompressed filter read-only over a memory mapping (no copy); verify=False
        skips the payload checksum (trusted files only). Writes to it raise Error."""
    @property
    def mapped(self) -> bool:
        """Whether the filter is a read-only mapping of a file (Filter.map)."""

class ConcurrentFilter:
    """A view of a Filter for inserting from many threads at once, without a lock."""
    def __init__(self, filter: Filter) -> None: ...
    @property
    def filter(self) -> Filter:
        """The viewed Filter."""
    def insert(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> None:
        """Inserts a batch of keys; other threads may insert and probe meanwhile."""
    def contains(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> npt.NDArray[np.bool_]:
        """True where the key may be present."""
    def count(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> int:
        """Number of keys in the batch that may be present."""

class CountingFilter(_Saved):
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
        threads: int = 0,
    ) -> None: ...
    @staticmethod
    def from_params(
        params: Params, *, hash: HashKind = "xxh3", seed: int = 0, backend: BackendName = "auto", threads: int = 0
    ) -> CountingFilter: ...
    def erase(self, keys: Keys) -> int:
        """Erases a batch of keys, in order; returns how many were erased."""
    def discard(self, key: Key) -> bool:
        """Erases one key; False if it was certainly not present."""
    def to_filter(self) -> Filter:
        """The blocked Filter of the keys present, byte for byte."""
    def saturated_counters(self) -> int: ...
    def clear(self) -> None:
        """Sets every counter to zero."""
    @property
    def params(self) -> Params: ...

class ScalableFilter(_Saved, _KeepsScratch):
    """A scalable Bloom filter (Almeida et al. 2007): stages of growing capacity and tightening
    FPR; its FPR stays at or below fpr (the whole filter's) at any size."""

    def __init__(
        self,
        initial_capacity: int,
        fpr: float | None = None,
        *,
        initial_fpr: float | None = None,
        growth: float = 2.0,
        tightening: float = 0.85,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
    ) -> None:
        """fpr (default 0.01) bounds the whole filter: the first stage gets fpr * (1 - tightening).
        Or give initial_fpr, the first stage's FPR (the whole then stays below
        initial_fpr / (1 - tightening)); not both."""
    @property
    def inserted(self) -> int:
        """Keys handed to insert so far, duplicates included."""
    def __len__(self) -> int:
        """len(f): inserted (keys handed to insert, duplicates included)."""
    @property
    def stage_sizes(self) -> list[int]: ...
    def stages(self) -> list[Filter]:
        """Copies of the stages, oldest first."""
    def fpr_bound(self) -> float:
        """initial_fpr / (1 - tightening): the bound on the FPR at any size."""
    def predicted_fpr(self) -> float: ...
    @property
    def initial_fpr(self) -> float:
        """The first stage's FPR at capacity."""
    @property
    def initial_capacity(self) -> int: ...
    @property
    def growth(self) -> float: ...
    @property
    def tightening(self) -> float: ...

ClassicScheme = Literal["double_hashing", "spark_v1", "spark_v2"]
SparkScheme = Literal["spark_v1", "spark_v2"]

class ClassicParams(_Sizes):
    """Bits (m) and bits set per key (k) of a classic Bloom filter. Immutable."""

    def __init__(self, bits: int, k: int) -> None: ...
    @staticmethod
    def for_fpr(n: int, fpr: float) -> ClassicParams:
        """Fewest bits whose FPR (1 - e^(-kn/m))^k for n keys is <= fpr, with the best k."""
    @staticmethod
    def for_bits_per_key(n: int, bits_per_key: float) -> ClassicParams:
        """ceil(n * bits_per_key) bits, k = round(bits_per_key * ln 2)."""
    @staticmethod
    def spark(n: int, fpp: float) -> ClassicParams:
        """What Spark's BloomFilter.create(n, fpp) chooses."""

class ClassicFilter(_Bitwise):
    """A classic Bloom filter: k bit positions anywhere in m bits. scheme 'double_hashing' is
    batchbloom's own; 'spark_v1' / 'spark_v2' are Apache Spark's BloomFilter, bit for bit
    (to_spark_bytes() is what BloomFilter.readFrom reads). Bulk calls release the GIL."""

    def __init__(
        self,
        n: int | None = None,
        fpr: float | None = None,
        *,
        bits_per_key: float | None = None,
        scheme: ClassicScheme = "double_hashing",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
    ) -> None:
        """An empty filter for n keys at fpr (Spark schemes: sized as BloomFilter.create(n, fpr))."""
    @staticmethod
    def spark(n: int, fpp: float, *, scheme: SparkScheme = "spark_v2", seed: int = 0) -> ClassicFilter:
        """An empty filter exactly as Spark's BloomFilter.create(n, fpp) makes it (seed: Java int)."""
    @staticmethod
    def from_params(
        params: ClassicParams,
        *,
        scheme: ClassicScheme = "double_hashing",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
    ) -> ClassicFilter: ...
    def predicted_fpr(self, n: int) -> float: ...
    @property
    def params(self) -> ClassicParams: ...
    @property
    def bits(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def scheme(self) -> str: ...
    @property
    def seed(self) -> int:
        """The hash seed (spark_v2: Spark's int seed as an unsigned 32-bit value)."""
    def to_spark_bytes(self) -> bytes:
        """Spark's serialized form (BloomFilter.writeTo); Error for double_hashing."""
    @staticmethod
    def from_spark_bytes(data: Bytes) -> ClassicFilter:
        """A filter from Spark's serialized form; FormatError if it is not exactly one."""

class DeletableFilter(_Saved):
    """A deletable Bloom filter: a blocked filter plus one collision bit per region, so keys with a
    bit in a collision-free region can be erased. Erase only keys you inserted."""

    def __init__(
        self,
        n: int | None = None,
        fpr: float | None = None,
        *,
        bits_per_key: float | None = None,
        region_bits: int = 8,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
    ) -> None: ...
    @staticmethod
    def from_params(
        params: Params, *, region_bits: int = 8, hash: HashKind = "xxh3", seed: int = 0, backend: BackendName = "auto"
    ) -> DeletableFilter: ...
    def erase(self, keys: Keys) -> int:
        """Erases a batch of keys, in order; returns how many were erased."""
    def erase_outcomes(self, keys: Keys) -> npt.NDArray[np.uint8]:
        """Erases like erase(); each key's outcome: 0 absent, 1 erased, 2 not deletable."""
    def discard(self, key: Key) -> bool:
        """Erases one key; False if it tested negative or could not be erased."""
    def to_filter(self) -> Filter:
        """A copy of the bits as a blocked Filter."""
    def collided_regions(self) -> int: ...
    def clear(self) -> None:
        """Sets every bit and every collision bit to zero."""
    @staticmethod
    def predicted_deletability(params: Params, region_bits: int, n: int) -> float:
        """Expected fraction of n inserted distinct keys that erase() can remove."""
    @property
    def params(self) -> Params: ...
    @property
    def region_bits(self) -> int: ...
    @property
    def regions(self) -> int: ...

class JoinFilter(_Probed):
    """The Bloom join's pre-filter: a blocked filter over a hash join's build keys, probed with
    whole columns. Immutable; calls release the GIL. Nulls are the caller's to drop."""

    def __init__(
        self,
        build_keys: Keys,
        *,
        fpr: float = 0.01,
        bits_per_key: float | None = None,
        expected_keys: int = 0,
        shape: Shape = "word512",
        hash: HashKind = "xxh3",
        seed: int = 0,
        backend: BackendName = "auto",
        threads: int = 0,
        chunk_rows: int = 65536,
    ) -> None:
        """Sized for the distinct build keys (or expected_keys) at fpr (or bits_per_key)."""
    @staticmethod
    def from_filter(
        filter: Filter, sized_for: int, *, backend: BackendName = "auto", threads: int = 0, chunk_rows: int = 65536
    ) -> JoinFilter:
        """A join filter over a Filter that holds the build keys."""
    def select(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> npt.NDArray[np.uint64]:
        """Positions of the keys that may match, ascending."""
    def bitmap(self, keys: Keys, *, nulls: Literal["error", "skip"] = "error") -> npt.NDArray[np.uint64]:
        """Packed bitmap (bit i % 64 of word i // 64 = key i may match): an Arrow boolean's bits."""
    def to_filter(self) -> Filter:
        """A copy of the filter as a blocked Filter."""
    @property
    def sized_for(self) -> int: ...
    def predicted_fpr(self) -> float: ...
    @property
    def params(self) -> Params: ...
    @property
    def backend(self) -> str: ...
    @property
    def threads(self) -> int: ...
    @property
    def chunk_rows(self) -> int: ...
    def __getstate__(self) -> tuple[bytes, int, str, int, int]: ...
    def __setstate__(self, state: tuple[bytes, int, str, int, int]) -> None: ...
