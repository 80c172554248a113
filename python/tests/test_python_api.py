"""The API of Python's sets and rbloom beside the operators: update, union, intersection,
issubset/issuperset (bitwise, exact), len() where a filter keeps a count, save/load with file
objects and os.PathLike paths."""
import io
import pathlib

import numpy as np
import pytest

import batchbloom


@pytest.mark.parametrize(
    "make",
    [lambda: batchbloom.Filter(1000, 0.01), lambda: batchbloom.ClassicFilter(1000, 0.01)],
    ids=["Filter", "ClassicFilter"],
)
def test_set_methods(make):
    a, b = make(), make()
    a.update(["x", "y"])
    b.update(iter(["x", "y", "z"]))
    assert a.union(b) == (a | b) and a.intersection(b) == (a & b)
    assert a.issubset(b) and b.issuperset(a) and not b.issubset(a) and not a.issuperset(b)
    assert a.issubset(a) and make().issubset(a)
    assert a == make().union(a)  # union(other) leaves both operands as they were
    with pytest.raises(ValueError):
        a.issubset(type(a)(10, 0.5))


def test_update_is_insert():
    f, g = batchbloom.Filter(100, 0.01), batchbloom.Filter(100, 0.01)
    f.update(np.arange(50, dtype=np.uint64))
    g.insert(range(50))
    assert f == g


def test_len_of_a_scalable_filter_counts_insertions():
    s = batchbloom.ScalableFilter(fpr=0.01, initial_capacity=10)
    assert len(s) == 0
    s.update([1, 2, 2, 3])
    s.add(4)
    assert len(s) == s.inserted == 5  # duplicates included
    with pytest.raises(TypeError):
        len(batchbloom.Filter(10, 0.1))  # a blocked filter keeps no count


@pytest.mark.parametrize(
    "make",
    [lambda: batchbloom.Filter(100, 0.01), lambda: batchbloom.CountingFilter(100, 0.01),
     lambda: batchbloom.ScalableFilter(fpr=0.01, initial_capacity=10)],
)
def test_save_and_load_file_objects_and_paths(make, tmp_path):
    f = make()
    f.insert(["a", "b"])
    buf = io.BytesIO()
    f.save(buf)
    assert buf.getvalue() == f.to_bytes()
    buf.seek(0)
    assert type(f).load(buf) == f
    path = tmp_path / "f.bb"
    f.save(path)  # os.PathLike
    assert type(f).load(path) == f and type(f).load(str(path)) == f
    with open(path, "rb") as file:
        assert type(f).load(file) == f
    with pytest.raises(batchbloom.FormatError):
        type(f).load(io.BytesIO(b"not a filter"))


def test_bulk_contains_over_any_iterable():
    f = batchbloom.Filter(100, 0.01)
    f.update(["a", "b"])
    assert f.contains(k for k in ["a", "z", "b"]).tolist() == [True, False, True]
    assert f.contains(pathlib.Path(p).name for p in ["/x/a", "/y/b"]).all()
