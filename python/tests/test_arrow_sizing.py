"""batchbloom.arrow.build() without n=: sized from a sketch of the keys, never from an exact
distinct count (pyarrow's count_distinct, polars' n_unique, pandas' nunique cost many times the
insert), and the filter keeps the FPR asked for duplicate-heavy and distinct-heavy columns."""
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import batchbloom
import batchbloom.arrow as bba
from batchbloom._core import _distinct_upper_bound

FPR = 0.01


@pytest.fixture
def no_exact_count(monkeypatch):
    """Every exact distinct count of the three libraries raises."""

    def exact(*args, **kwargs):
        raise AssertionError("build() counted the keys exactly")

    monkeypatch.setattr(pc, "count_distinct", exact)
    monkeypatch.setattr(pl.Series, "n_unique", exact)
    monkeypatch.setattr(pd.Series, "nunique", exact)


def columns(rng, rows, distinct, strings):
    """`rows` keys drawn from `distinct` ones (each at least once); probes: keys never drawn."""
    universe = rng.choice(2**62, size=distinct + 200_000, replace=False).astype(np.int64)
    present, absent = universe[:distinct], universe[distinct:]
    keys = np.concatenate([present, rng.choice(present, size=rows - distinct)])
    if strings:
        return pa.array([f"k{k}" for k in keys]), pa.array([f"k{k}" for k in absent])
    return pa.array(keys), pa.array(absent)


SHAPES = {  # (rows, distinct)
    "distinct-heavy": (200_000, 200_000),
    "duplicate-heavy": (1_000_000, 10_000),
}


@pytest.mark.parametrize("strings", [False, True], ids=["int", "str"])
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("frame", ["arrow", "polars", "pandas"])
def test_fpr_holds_without_exact_count(no_exact_count, rng, frame, shape, strings):
    rows, distinct = SHAPES[shape]
    keys, absent = columns(rng, rows, distinct, strings)
    table = pa.table({"k": keys})
    data = {"arrow": table, "polars": pl.from_arrow(table), "pandas": table.to_pandas()}[frame]
    f = bba.build(data, "k", fpr=FPR)
    assert f.contains(keys).all()
    exact = batchbloom.Params.for_fpr(distinct, FPR)
    assert exact.bits <= f.bits <= batchbloom.Params.for_fpr(int(distinct * 1.05), FPR).bits
    measured = f.count(absent) / len(absent)
    assert measured <= FPR * 1.1, measured  # 200,000 probes: 1.1x is over 4 standard deviations


def test_exact_count_on_request(monkeypatch, rng):
    keys, _ = columns(rng, 50_000, 5_000, strings=False)
    table = pa.table({"k": keys})
    calls = []
    count_distinct = pc.count_distinct
    monkeypatch.setattr(pc, "count_distinct", lambda *a, **kw: calls.append(1) or count_distinct(*a, **kw))
    want = batchbloom.Params.for_fpr(5_000, FPR)
    assert bba.build(table, "k", fpr=FPR, n="exact").params == want and calls == [1]
    assert bba.build(pl.from_arrow(table), "k", fpr=FPR, n="exact").params == want
    assert bba.build(table.to_pandas(), "k", fpr=FPR, n="exact").params == want
    assert bba.build(table, "k", fpr=FPR, n=5_000).params == want
    with pytest.raises(ValueError, match="n must be .*'exact'"):
        bba.build(table, "k", n="approx")


@pytest.mark.parametrize("n", [1, 2, 17, 1_000, 30_000, 300_000])
def test_upper_bound_is_close_above(rng, n):
    keys = rng.choice(2**62, size=n, replace=False).astype(np.uint64)
    bound = _distinct_upper_bound(keys)
    assert n <= bound <= n * 1.05 + 1
    # Repeats, widths and forms of one key set count once; nulls not at all.
    assert _distinct_upper_bound(np.concatenate([keys, keys[::-1]])) == bound
    assert _distinct_upper_bound(pa.array(list(keys) + [None] * 5, pa.uint64())) == bound
    small = keys & np.uint64(2**32 - 1)
    assert _distinct_upper_bound(small.astype(np.uint32)) == _distinct_upper_bound(small)
    assert _distinct_upper_bound(np.array([], np.uint64)) == 0


def test_upper_bound_of_strings_and_iterables():
    words = [f"w{i}" for i in range(10_000)]
    bound = _distinct_upper_bound(words)
    assert 10_000 <= bound <= 10_500
    assert _distinct_upper_bound(pa.array(words * 3).dictionary_encode()) == bound
    assert _distinct_upper_bound([w.encode() for w in words] + [None]) == bound
    with pytest.raises(TypeError):
        _distinct_upper_bound([1.5])
