"""None in a plain Python iterable is a null, as in Arrow data: with nulls="skip" it is never
inserted and never matches (its answer stays False, so positions stay aligned); with the default
nulls="error" it raises ValueError naming its position. Every entry point that takes nulls=
gives the answers of the Arrow path (and of the NumPy path for the keys that are not None)."""
import numpy as np
import pyarrow as pa
import pytest

import batchbloom

WORDS = [None, "a", "bb", None, "é", "", "zz", "not inserted", None]
INTS = [None, 0, 1, None, 5, 100, 2**40, 42, None]
INSERTED_WORDS = ["a", "bb", "é", ""]
INSERTED_INTS = [0, 1, 5, 100]

FILTERS = {
    "Filter": lambda: batchbloom.Filter(1000, 0.001),
    "CountingFilter": lambda: batchbloom.CountingFilter(1000, 0.001),
    "DeletableFilter": lambda: batchbloom.DeletableFilter(1000, 0.001),
    "ScalableFilter": lambda: batchbloom.ScalableFilter(fpr=0.001, initial_capacity=1000),
    "ClassicFilter": lambda: batchbloom.ClassicFilter(1000, 0.001),
}

# The forms a Python iterable comes in: read by index (list, tuple) or through an iterator.
FORMS = {"list": list, "tuple": tuple, "iterator": iter}


def with_nones(values):
    """The inserted keys with Nones among them (leading, inner and trailing)."""
    return [None, *values[:2], None, *values[2:], None]


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
@pytest.mark.parametrize("make", FILTERS.values(), ids=FILTERS.keys())
@pytest.mark.parametrize("keys, inserted", [(WORDS, INSERTED_WORDS), (INTS, INSERTED_INTS)], ids=["str", "int"])
def test_filters_skip_none(make, form, keys, inserted):
    f, arrow, plain = make(), make(), make()
    f.insert(form(with_nones(inserted)), nulls="skip")
    arrow.insert(pa.array(with_nones(inserted)), nulls="skip")
    plain.insert(inserted)
    assert f == arrow == plain
    if isinstance(f, batchbloom.ScalableFilter):  # len(): the keys inserted, Nones not among them
        assert len(f) == len(arrow) == len(inserted)
    g = make()
    g.update(form(with_nones(inserted)), nulls="skip")
    assert g == plain
    want = f.contains(pa.array(keys), nulls="skip").tolist()
    assert want == [k is not None and k in f for k in keys]
    assert f.contains(form(keys), nulls="skip").tolist() == want
    assert f.count(form(keys), nulls="skip") == sum(want)


@pytest.mark.parametrize("make", FILTERS.values(), ids=FILTERS.keys())
def test_none_raises_by_default_naming_its_position(make):
    f = make()
    for call in (f.insert, f.update, f.contains, f.count):
        with pytest.raises(ValueError, match=r'^key 3 is None; a None is no key: pass nulls="skip"'):
            call(["a", "b", "c", None])
        with pytest.raises(ValueError, match="^key 0 is None"):
            call(iter([None, 1]), nulls="error")
    assert f == make()  # nothing was inserted


def test_entry_points_without_nulls_option_name_none():
    # A JoinFilter's build keys and the keys erased take no nulls= option: the error names none.
    calls = {
        "JoinFilter": lambda keys: batchbloom.JoinFilter(keys),
        "CountingFilter.erase": batchbloom.CountingFilter(1000, 0.001).erase,
        "DeletableFilter.erase": batchbloom.DeletableFilter(1000, 0.001).erase,
    }
    for name, call in calls.items():
        for keys, message in ((["a", None], "^key 1 is None; a None is no key: leave it out$"),
                              (pa.array([1, None]), "^Arrow keys contain 1 nulls; a null is no key: drop them first")):
            with pytest.raises(ValueError, match=message):
                call(keys)


def test_concurrent_view_and_join_filter_skip_none():
    f = batchbloom.Filter(1000, 0.001)
    view = batchbloom.ConcurrentFilter(f)
    view.insert(with_nones(INSERTED_WORDS), nulls="skip")
    want = [k is not None and k in f for k in WORDS]
    assert view.contains(WORDS, nulls="skip").tolist() == want == view.contains(pa.array(WORDS), nulls="skip").tolist()
    assert view.count(iter(WORDS), nulls="skip") == sum(want)
    j = batchbloom.JoinFilter(INSERTED_INTS, fpr=0.001)
    arrow = pa.array(INTS)
    for form in FORMS.values():
        assert j.contains(form(INTS), nulls="skip").tolist() == j.contains(arrow, nulls="skip").tolist()
        assert j.select(form(INTS), nulls="skip").tolist() == j.select(arrow, nulls="skip").tolist()
        assert j.bitmap(form(INTS), nulls="skip").tolist() == j.bitmap(arrow, nulls="skip").tolist()
        assert j.count(form(INTS), nulls="skip") == j.count(arrow, nulls="skip")
    assert j.select(INTS, nulls="skip").tolist() == [1, 2, 4, 5]
    for call in (view.insert, view.contains, view.count, j.contains, j.select, j.bitmap, j.count):
        with pytest.raises(ValueError, match="^key 0 is None"):
            call(INTS)


def test_only_nones_and_nones_before_the_first_key():
    f = batchbloom.Filter(100, 0.01)
    f.insert([None, None], nulls="skip")
    assert f == batchbloom.Filter(100, 0.01)
    assert f.contains(iter([None] * 3), nulls="skip").tolist() == [False] * 3
    # The first key that is not None decides the kind: here byte strings, after two Nones.
    f.insert([None, None, b"x", "y"], nulls="skip")
    assert f.contains([None, "x", None, b"y"], nulls="skip").tolist() == [False, True, False, True]
    with pytest.raises(TypeError, match=r"key 3 is a int; .* \(key 2 is a bytes\)"):
        f.insert([None, None, b"x", 5], nulls="skip")


def test_none_positions_across_chunks():
    """An iterable is read 2**18 keys at a time: Nones keep their positions in later chunks."""
    n = (1 << 18) + 100
    nones = {5, (1 << 18) - 1, 1 << 18, (1 << 18) + 7}
    f = batchbloom.Filter(n, 0.01)
    f.insert(np.arange(n, dtype=np.uint64))
    keys = (None if i in nones else i for i in range(n))
    hits = f.contains(keys, nulls="skip")
    assert len(hits) == n and set(np.flatnonzero(~hits).tolist()) == nones
    g = batchbloom.Filter(n, 0.01)
    g.insert((None if i in nones else i for i in range(n)), nulls="skip")
    h = batchbloom.Filter(n, 0.01)
    h.insert(np.array([i for i in range(n) if i not in nones], dtype=np.uint64))
    assert g == h
