"""A batchbloom filter as a DuckDB SQL function, vectorized through Arrow.

    import duckdb, batchbloom.duckdb
    con = duckdb.connect()
    batchbloom.duckdb.register(con, "orders.bbf")           # a saved filter of any kind, or a filter
    con.execute("SELECT count(*) FROM lineitem WHERE bloom_may_contain(l_orderkey)")

DuckDB calls the function once per vector of rows (2048 by default) with an Arrow array; the
filter answers the whole vector in one batched call (batchbloom.arrow.mask), so no Python code
runs per row. A NULL key gives NULL (SQL's rule; WHERE drops it). The function is
deterministic, so DuckDB may reorder it like any other predicate. Needs the [duckdb] extra
(pip install 'batchbloom[duckdb]').
"""

from __future__ import annotations

import os
from typing import Any

from ._extra import require

require("batchbloom.duckdb", "duckdb", "pyarrow")

from . import arrow as _arrow  # noqa: E402 - after the check that names the extra
from ._core import load_any  # noqa: E402

__all__ = ["register"]


def register(con: Any, bloom: Any, *, name: str = "bloom_may_contain", key_type: str = "BIGINT") -> Any:
    """Registers `name`(key) -> BOOLEAN on the DuckDB connection `con`: True where the key may be
    in `bloom`, False where it certainly is not.

    bloom: any batchbloom filter (Filter, ClassicFilter, ScalableFilter, ...), or a saved one: a
    path, or its bytes (read by batchbloom.load_any; Spark's serialized BloomFilter too).
    key_type: the SQL type of the argument (BIGINT, INTEGER, UBIGINT, VARCHAR, BLOB, ...):
    integers are keys by value, VARCHAR by its UTF-8 bytes, as everywhere in batchbloom.
    Returns the filter."""
    if isinstance(bloom, (str, os.PathLike, bytes, bytearray, memoryview)):
        bloom = load_any(bloom)
    elif not callable(getattr(bloom, "contains", None)):
        # DuckDB would call the function only at query time; a wrong argument fails here instead.
        raise TypeError(
            f"bloom must be a batchbloom filter, a path to a saved one or its bytes, not {type(bloom).__name__}"
        )
    for arg, value in (("name", name), ("key_type", key_type)):
        if not isinstance(value, str):
            raise TypeError(f"{arg} must be a str, not {type(value).__name__}")

    def may_contain(keys):
        return _arrow.mask(keys, bloom)

    con.create_function(name, may_contain, [key_type], "BOOLEAN", type="arrow")
    return bloom
