"""What the Parquet tests share: the readers they need (skipping without them), the batchbloom
program (BATCHBLOOM_CLI; ./dev test sets it to the Release build's), and the stored Bloom
filters of a file."""
import subprocess

import numpy as np
import pytest

duckdb = pytest.importorskip("duckdb", reason="duckdb (PyPI) is not installed")
pa = pytest.importorskip("pyarrow", reason="pyarrow (PyPI) is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow.parquet is not available")

from cli_program import CLI, requires_cli  # noqa: F401 - shared with the Parquet tests


def run_cli(*args, check=True):
    """batchbloom ARGS...; the finished process (an AssertionError with its stderr if it failed
    and check is set)."""
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"batchbloom {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stderr}")
    return r

def profiled(con, profile, sql, params=()):
    """(result rows, row groups read, row groups there were) of a DuckDB query, summed over its
    scans, from DuckDB's JSON profile written to `profile`."""
    import json

    con.execute("PRAGMA enable_profiling='json'")
    con.execute(f"PRAGMA profiling_output='{profile}'")
    rows = con.execute(sql, list(params)).fetchall()
    con.execute("PRAGMA disable_profiling")

    def scans(node):
        if "row_groups_scanned" in node:
            yield node
        for child in node.get("children", []) + node.get("operator", []):
            yield from scans(child)

    found = list(scans(json.loads(profile.read_text())))
    assert found, "DuckDB's profile has no row_groups_scanned metric (DuckDB too old?)"
    return rows, sum(int(f["row_groups_scanned"]) for f in found), sum(int(f["total_row_groups_to_scan"]) for f in found)


# What follows numBytes in every writer's BloomFilterHeader: algorithm BLOCK, hash XXHASH,
# compression UNCOMPRESSED (each a union holding an empty struct), then the header's STOP.
HEADER_TAIL = bytes.fromhex("1c1c0000" * 3 + "00")


def stored_bitset(data, offset):
    """The bitset of the filter whose BloomFilterHeader starts at data[offset]."""
    assert data[offset] == 0x15, "numBytes is not the header's first field"
    n, shift, at = 0, 0, offset + 1
    while True:  # numBytes: zigzag varint
        b = data[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            break
    n = (n >> 1) ^ -(n & 1)
    assert data[at:at + len(HEADER_TAIL)] == HEADER_TAIL
    at += len(HEADER_TAIL)
    return data[at:at + n]


def chunk_bitsets(path):
    """{(row group, column path): bitset} of every column chunk that has a Bloom filter."""
    md = pq.ParquetFile(path).metadata
    data = open(path, "rb").read()
    out = {}
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            if col.bloom_filter_offset is not None and col.bloom_filter_offset > 0:
                out[(g, col.path_in_schema)] = stored_bitset(data, col.bloom_filter_offset)
    return out


def fold(bits, nbytes):
    """A split-block filter's bitset halved until it is nbytes long: block pairs (2i, 2i+1) ORed,
    which is exactly the filter built at half the size (the block index is the hash's top bits)."""
    blocks = np.frombuffer(bits, np.uint32).reshape(-1, 8)
    while blocks.nbytes > nbytes:
        blocks = blocks[0::2] | blocks[1::2]
    return blocks.tobytes()
