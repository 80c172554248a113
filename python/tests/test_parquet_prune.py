"""batchbloom.parquet.prune: a dataset of only the row groups whose Bloom filter may hold a key,
for readers that ignore Parquet Bloom filters (PyArrow's and polars' scans), with the same rows
as the reader's own filtered scan of the whole dataset."""
import numpy as np
import pytest

import batchbloom
import batchbloom.parquet as bbp
from parquet_files import pa, pq

ds = pytest.importorskip("pyarrow.dataset")

ROWS = 60_000
GROUP = 5_000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A hive dataset (3 partitions, 15 row groups) with filters on id and name; ids are 3k."""
    root = tmp_path_factory.mktemp("prune") / "d"
    ids = np.arange(ROWS, dtype=np.int64) * 3
    table = pa.table({"id": ids, "name": [f"k{i:07d}" for i in ids], "year": (np.arange(ROWS) % 3) + 2020})
    pq.write_to_dataset(table, str(root), partition_cols=["year"], row_group_size=GROUP)
    bbp.add(str(root), str(root), ["id", "name"])
    return root


def groups(d):
    return sum(f.num_row_groups for f in d.get_fragments())


def rows(d, column, keys):
    t = d.to_table(filter=ds.field(column).isin(keys)).sort_by("id")
    return t.to_pylist()


@pytest.mark.parametrize("column, present, absent", [("id", [3 * 12_345, 3 * 59_999], [1, 4, 10**12]),
                                                     ("name", ["k0037035", "k0179997"], ["nope", "k0000001"])])
def test_only_row_groups_that_may_hold_a_key_and_the_same_rows(dataset, column, present, absent):
    full = ds.dataset(str(dataset), format="parquet", partitioning="hive")
    assert groups(full) == 15
    pruned = bbp.prune(dataset, column, present + absent)
    # Each present key lies in one row group; an absent one passes a 1% filter rarely.
    assert len(present) <= groups(pruned) <= len(present) + 1
    assert rows(pruned, column, present + absent) == rows(full, column, present + absent)
    assert pruned.schema == full.schema  # the partition column too
    none = bbp.prune(full, column, absent)
    assert groups(none) <= 1 and rows(none, column, absent) == []


def test_readers_scan_the_pruned_dataset(dataset):
    pruned = bbp.prune([str(dataset)], "id", [3 * 12_345])
    pl = pytest.importorskip("polars")
    assert pl.scan_pyarrow_dataset(pruned).filter(pl.col("id") == 3 * 12_345).collect()["name"].to_list() == ["k0037035"]
    duckdb = pytest.importorskip("duckdb")
    assert duckdb.arrow(pruned).filter("id = 37035").fetchall() == [(37035, "k0037035", 2020)]


def test_a_file_without_filters_keeps_every_row_group(tmp_path):
    path = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"id": np.arange(10_000, dtype=np.int64)}), path, row_group_size=2_500)
    assert groups(bbp.prune(path, "id", [10**9])) == 4


def test_bad_input(dataset, tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        bbp.prune(tmp_path / "missing", "id", [1])
    with pytest.raises(batchbloom.Error, match="nope"):
        bbp.prune(dataset, "nope", [1])
    with pytest.raises(TypeError, match="column"):
        bbp.prune(dataset, b"id", [1])
    csv = tmp_path / "t.csv"
    csv.write_text("id\n1\n")
    with pytest.raises(ValueError, match="Parquet"):
        bbp.prune(ds.dataset(str(csv), format="csv"), "id", [1])
