"""JoinFilter.plan: the decision (filter a low-match probe side, pass an all-match one through,
forced modes, a trial of both ways where the estimate is borderline), batches bit-exact against JoinFilter.select, the cost model, and bad input."""

import math

import numpy as np
import pytest

import batchbloom

BUILD = np.arange(10_000, dtype=np.uint64) * 7 + 3
# A dropped row saves four filter probes' worth: the decision is the same on any machine.
COSTS = {"filter_ns": 2.0, "table_miss_ns": 8.0, "insert_ns": 5.0}


def probe_keys(n, match_every):
    """n probe keys, every match_every-th of them a build key."""
    keys = np.arange(n, dtype=np.uint64) + (1 << 40)
    keys[::match_every] = BUILD[: len(keys[::match_every])]
    return keys


@pytest.fixture(scope="module")
def join():
    return batchbloom.JoinFilter(BUILD)


def test_filters_a_low_match_probe_side(join):
    plan = join.plan(probe_keys(4096, 100), costs=COSTS)
    assert plan.filters and plan.mode == "auto"
    assert plan.sample_pass_fraction < 0.05 and plan.gain > 3.5
    assert plan.costs == COSTS
    assert plan.join_filter is join
    assert batchbloom.JoinPlan(join, probe_keys(4096, 100), costs=COSTS).gain == plan.gain


def test_passes_an_all_match_probe_side_through(join):
    plan = join.plan(probe_keys(4096, 1), costs=COSTS)
    assert not plan.filters
    assert plan.sample_pass_fraction == 1.0 and plan.gain == 0.0
    keys = probe_keys(1000, 3)
    assert plan.probe_batch(keys) is None


def test_measured_model_is_cached_and_decides_alike(join):
    a = batchbloom.measured_join_costs(10_000, join.nbytes)
    assert a == batchbloom.measured_join_costs(10_001, join.nbytes + 1)  # the same size class
    assert all(math.isfinite(v) and v > 0 for v in a.values())
    assert batchbloom.measured_join_costs(10_000, join.nbytes, string_keys=True)["table_miss_ns"] > 0
    # Each engine is measured on its own, and a plan weighs its filter's engine.
    scalar = batchbloom.measured_join_costs(10_000, join.nbytes, backend="scalar")
    assert scalar == batchbloom.measured_join_costs(10_000, join.nbytes, backend="scalar")
    keys = np.arange(10_000, dtype=np.uint64)
    slow = batchbloom.JoinFilter(keys, backend="scalar")
    plan = slow.plan(probe_keys(4096, 1))
    assert plan.costs["filter_ns"] == batchbloom.measured_join_costs(
        slow.sized_for, slow.nbytes, backend="scalar")["filter_ns"]
    assert isinstance(batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 0.0, backend="scalar"), bool)
    with pytest.raises(ValueError, match="backend"):
        batchbloom.measured_join_costs(10_000, join.nbytes, backend="avx9")
    assert not join.plan(probe_keys(4096, 1)).filters
    few = probe_keys(4096, 100)
    assert join.plan(few).gain == join.plan(few).gain


def test_host_table_cost(join):
    plan = join.plan(probe_keys(4096, 100), costs=COSTS, table_miss_ns=1.0)
    assert not plan.filters and plan.costs["table_miss_ns"] == 1.0


def test_the_hosts_measured_work_raises_the_models_costs(join):
    few = probe_keys(4096, 100)
    plan = join.plan(few, costs=COSTS, table_compute_ns=100.0, filter_compute_ns=1.0)
    assert plan.costs == {"filter_ns": 2.0, "table_miss_ns": 100.0, "insert_ns": 5.0}
    plan = batchbloom.JoinPlan(join, few, costs=COSTS, filter_compute_ns=50.0)
    assert plan.costs["filter_ns"] == 50.0 and not plan.filters  # (1 - p) * 8 / 50 < 1
    assert batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 0.0, costs=COSTS)
    assert not batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 0.0, costs=COSTS,
                                                  filter_compute_ns=1e6)
    with pytest.raises(ValueError, match="table_compute_ns"):
        join.plan(few, costs=COSTS, table_compute_ns=-1.0)


def test_repeated_keys_save_only_the_tables_compute(join):
    distinct = probe_keys(4096, 4096)  # one match, at row 0
    runs = np.repeat(distinct[:1024], 4)  # each key four times in a row: 3072 of 4095 repeat
    cold = join.plan(distinct, costs=COSTS)
    assert cold.repeated_rows == 0.0
    clustered = join.plan(runs, costs=COSTS)
    assert clustered.repeated_rows == pytest.approx(3072 / 4095)
    # A repeat saves a cached probe (the model's filter probe, 2 ns) instead of a miss (8 ns).
    r, p = clustered.repeated_rows, clustered.sample_pass_fraction
    assert clustered.gain == pytest.approx((1 - p) * ((1 - r) * 8.0 + r * 2.0) / 2.0)
    given = join.plan(distinct, costs=COSTS, repeated_rows=1.0)
    assert given.repeated_rows == 1.0 and given.gain < cold.gain
    assert given.trying  # 0.99 if repeats save little, 3.96 if they miss: the trial decides
    assert batchbloom.JoinPlan(join, distinct, costs=COSTS, repeated_rows=0.5).repeated_rows == 0.5
    assert batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 0.0, costs=COSTS, repeated_rows=0.75)
    for bad in (-0.5, 1.5, math.nan):
        with pytest.raises(ValueError, match="repeated_rows"):
            join.plan(distinct, costs=COSTS, repeated_rows=bad)


def test_string_keys_are_modelled_at_their_length():
    short = batchbloom.measured_join_costs(10_000, 16384, string_keys=True, string_bytes=20)
    assert short == batchbloom.measured_join_costs(10_000, 16384, string_keys=True, string_bytes=30)
    long = batchbloom.measured_join_costs(10_000, 16384, string_keys=True, string_bytes=200)
    assert all(math.isfinite(v) and v > 0 for v in long.values())


def test_forced_modes(join):
    assert join.plan(probe_keys(4096, 1), mode="always", costs=COSTS).filters
    assert join.plan(mode="always").filters  # a forced mode needs no sample
    assert not join.plan(probe_keys(4096, 100), mode="never", costs=COSTS).filters
    assert not join.plan(mode="never").filters
    assert batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 1.0, mode="always")
    assert not batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 10**6, 0.0, mode="never")


@pytest.mark.parametrize("keys", [probe_keys(10_000, 3), [f"k{i}" for i in range(3000)]])
def test_batches_are_bit_exact(keys):
    build = BUILD if isinstance(keys, np.ndarray) else [f"k{i}" for i in range(0, 3000, 5)]
    join = batchbloom.JoinFilter(build)
    rows = join.plan(mode="always").probe_batch(keys)
    assert rows.dtype == np.uint64
    np.testing.assert_array_equal(rows, join.select(keys))
    assert join.plan(mode="never").probe_batch(keys) is None


def test_a_cheap_build_is_tried_where_its_best_case_is_a_clear_win(join):
    # No row matches; 9 of 10 repeat the row before's key and save only the host's compute
    # (0.1 ns): the estimate is 0.27, below the trial band, but were every dropped row a miss
    # the gain would be 2.5 (a clear win: at least the band's top, 2). A build of 10,000 keys
    # (50 us) is within 3% of 10M rows' probe work (10.9 ms), not of 100k rows'.
    costs = {"filter_ns": 4.0, "table_miss_ns": 10.0, "insert_ns": 5.0}
    rows = probe_keys(4096, 4096)[1:]
    opts = dict(costs=costs, table_compute_ns=0.1, repeated_rows=0.9)
    assert not join.plan(rows, **opts).trying
    plan = join.plan(rows, probe_rows=10**7, **opts)
    assert plan.trying and not plan.filters and plan.gain < 0.5
    assert not batchbloom.JoinPlan(join, rows, probe_rows=10**5, **opts).trying
    pay = batchbloom.JoinPlan.filter_may_pay
    assert pay(1000, 16384, False, 10**7, 0.0, **opts)
    assert not pay(1000, 16384, False, 10**5, 0.0, **opts)
    with pytest.raises(ValueError, match="probe_rows"):
        join.plan(rows, probe_rows=-1, **opts)


def test_the_hosts_time_per_row_has_a_cheap_build_tried(join):
    # No row matches, 3 of 4 repeat the row before's key: a dropped row saves 0.25 * 2.4 + 0.75
    # * 1 = 1.35 ns against a 4 ns filter probe (an estimate of 0.34), and every dropped row a
    # miss would be 0.6: not tried. The host timed its rows at 20 ns each: a dropped row may save
    # half of that, a best case of 2.5 (a clear win), and the build (10,000 keys, 50 us) is within
    # 3% of 1M rows at that time: tried. At 4 ns a row, the best case is 0.5.
    costs = {"filter_ns": 4.0, "table_miss_ns": 2.4, "insert_ns": 5.0}
    rows = probe_keys(4096, 4096)[1:]
    opts = dict(costs=costs, table_compute_ns=1.0, repeated_rows=0.75, probe_rows=10**6)
    assert not join.plan(rows, **opts).trying
    plan = join.plan(rows, table_row_ns=20.0, **opts)
    assert plan.trying and not plan.filters
    assert batchbloom.JoinPlan(join, rows, table_row_ns=20.0, **opts).trying
    assert not join.plan(rows, table_row_ns=4.0, **opts).trying
    pay = batchbloom.JoinPlan.filter_may_pay
    del opts["probe_rows"]
    assert not pay(1000, 16384, False, 10**6, 0.0, **opts)
    assert pay(1000, 16384, False, 10**6, 0.0, table_row_ns=20.0, **opts)
    with pytest.raises(batchbloom.Error, match="table_row_ns"):
        join.plan(rows, table_row_ns=-1.0, **opts)


def test_filter_may_pay_counts_the_build():
    pay = batchbloom.JoinPlan.filter_may_pay
    assert pay(1000, 16384, False, 10**6, 0.01, costs=COSTS)
    assert not pay(1000, 16384, False, 10**6, 0.9, costs=COSTS)
    # The build eats most of the saving (gain 0.57): borderline, so build and let the plan's trial decide.
    assert pay(10**6, 1 << 20, False, 10**6, 0.5, costs=COSTS)


def test_bad_input(join):
    with pytest.raises(batchbloom.Error, match="sample is empty"):
        join.plan([], costs=COSTS)
    with pytest.raises(batchbloom.Error, match="sample is empty"):
        join.plan(costs=COSTS)
    with pytest.raises(batchbloom.Error, match="mode"):
        join.plan(mode="sometimes")
    with pytest.raises(batchbloom.Error, match="min_gain"):
        join.plan(probe_keys(64, 2), min_gain=-1.0, costs=COSTS)
    with pytest.raises(batchbloom.Error, match="table_miss_ns"):
        join.plan(probe_keys(64, 2), table_miss_ns=math.inf, costs=COSTS)
    with pytest.raises(batchbloom.Error, match="filter_ns"):
        join.plan(probe_keys(64, 2), costs={**COSTS, "filter_ns": math.nan})
    with pytest.raises(batchbloom.Error, match="exactly the keys"):
        join.plan(probe_keys(64, 2), costs={"filter_ns": 1.0})
    with pytest.raises(TypeError):
        join.plan(probe_keys(64, 2), costs=[1.0, 2.0, 3.0])
    with pytest.raises(batchbloom.Error, match="matched_fraction"):
        batchbloom.JoinPlan.filter_may_pay(1000, 16384, False, 1000, 1.5)
    for plan in (join.plan(mode="always"), join.plan(mode="never")):
        with pytest.raises(TypeError):
            plan.probe_batch(object())
        with pytest.raises(ValueError):
            plan.probe_batch([1, None, 3])
        empty = plan.probe_batch(np.array([], dtype=np.uint64))
        assert empty is None or len(empty) == 0
    with pytest.raises(TypeError):
        batchbloom.JoinPlan(BUILD)  # a JoinFilter, not keys


def test_a_borderline_estimate_is_compared_and_the_faster_way_leads(join):
    # A dropped row saves what a filter probe costs: at 1% matches the estimate is borderline,
    # so the first batches alternate, the host's reported times decide, and later the way behind
    # gets a batch now and then.
    borderline = {"filter_ns": 4.0, "table_miss_ns": 4.0, "insert_ns": 5.0}
    keys = probe_keys(1000, 100)
    for filter_faster in (True, False):
        plan = join.plan(probe_keys(4096, 100), costs=borderline)
        assert plan.trying and not plan.filters
        for i in range(6):  # three batches of each way, alternating, the way behind first
            rows = plan.probe_batch(keys)
            if i % 2 == 0:
                assert rows is not None and np.array_equal(rows, join.select(keys))
            else:
                assert rows is None
        for i in range(6):
            plan.report(len(keys), i % 2 == 0, (1000.0 if filter_faster else 5000.0) if i % 2 == 0 else 3000.0)
        assert plan.trying and plan.filters == filter_faster
        # The way behind is 1.67x or 3x slower: it gets one batch in 42 or in 128.
        assert all((plan.probe_batch(keys) is not None) == filter_faster for _ in range(16))
    with pytest.raises((TypeError, ValueError)):
        plan.report(-1, True, 5.0)
