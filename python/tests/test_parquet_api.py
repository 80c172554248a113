"""batchbloom.parquet: add, inspect and probe from Python, with the CLI's options; the files it
writes still read in pyarrow, with the same rows."""
import pytest

import batchbloom
import batchbloom.parquet as bbp

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def orders(tmp_path):
    table = pa.table({
        "id": pa.array(range(3000), pa.int64()),
        "customer": pa.array([f"c{i % 700}" for i in range(3000)]),
        "qty": pa.array([i % 13 for i in range(3000)], pa.int32()),
        "price": pa.array([i / 4 for i in range(3000)], pa.float64()),
    })
    path = tmp_path / "orders.parquet"
    pq.write_table(table, path, row_group_size=1000)
    return table, path


def test_add_inspect_probe(orders, tmp_path):
    table, path = orders
    out = tmp_path / "orders.bloom.parquet"
    added = bbp.add(path, out, ["id", "customer", "qty", "price"], fpr=0.01)
    assert len(added) == 12 and {a["row_group"] for a in added} == {0, 1, 2}
    first = next(a for a in added if a["column"] == "customer" and a["row_group"] == 0)
    assert first["values"] == 1000 and first["distinct"] == 700 and first["distinct_exact"] and not first["replaced"]
    assert pq.read_table(out).equals(table)

    listed = bbp.inspect(out)
    assert len(listed) == 12 and all(row["filter_bytes"] and row["fpr"] < 0.02 for row in listed)
    assert [row["type"] for row in listed[:4]] == ["INT64", "BYTE_ARRAY", "INT32", "DOUBLE"]
    assert [row["row_group"] for row in bbp.inspect(out, row_group=1)] == [1] * 4
    assert all(row["filter_bytes"] is None for row in bbp.inspect(path))

    hits = bbp.probe(out, "id", [5, 1500, 2999, 10**9])
    assert sorted(hits) == [0, 1, 2]
    assert hits[0][0] and hits[1][1] and hits[2][2]  # every key is found in its own row group
    assert sum(h[3] for h in hits.values()) <= 1  # an absent key: at most a false positive
    assert bbp.probe(out, "customer", ["c3", b"c4"], row_group=2)[2].all()
    assert bbp.probe(out, "qty", [3], count=True) == {0: 1, 1: 1, 2: 1}
    assert bbp.probe(out, "price", [0.25, 100.5])[0].all()  # rows 1 and 402
    assert bbp.probe(path, "id", [10**9])[0].all()  # no filter: every key may be there


def test_options_and_errors(orders, tmp_path):
    _, path = orders
    out = tmp_path / "o.parquet"
    sized = bbp.add(str(path), str(out), ["id"], fpr=0.05, ndv=10, threads=1)
    assert all(a["distinct"] == 1000 for a in sized)
    assert bbp.add(out, out, ["id"]) == []  # every chunk has its filter, which is kept
    again = bbp.add(out, out, ["id"], replace=True)
    assert all(a["replaced"] for a in again)
    with pytest.raises(IndexError, match="out of range"):
        bbp.probe(out, "id", [1], row_group=3)
    with pytest.raises(batchbloom.Error, match=r"value 1 \(int\) cannot be a key of BYTE_ARRAY, UTF8 column 'customer'"):
        bbp.probe(out, "customer", [1])
    with pytest.raises(batchbloom.Error):
        bbp.inspect(tmp_path / "missing.parquet")
