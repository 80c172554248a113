"""Python threads sharing filters: bulk calls release the GIL, and a filter's lock keeps
concurrent writers from losing bits and readers from seeing half-done writes."""
import sys
import threading
import time

import numpy as np
import pytest

import batchbloom


def run_threads(targets, timeout=60):
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # re-raised in the main thread
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "deadlock: a thread did not finish"
    if errors:
        raise errors[0]


def test_concurrent_inserts_equal_one_insert(keys):
    for threads in (1, 0):
        reference = batchbloom.Filter(n=keys.size, fpr=0.01, threads=threads)
        reference.insert(keys)
        shared = batchbloom.Filter(n=keys.size, fpr=0.01, threads=threads)
        parts = np.array_split(keys, 8)
        run_threads([lambda p=p: [shared.insert(p) for _ in range(5)] for p in parts])
        assert shared == reference


def test_readers_never_miss_keys_while_others_write(keys):
    f = batchbloom.Filter(n=keys.size, fpr=0.01)
    first, rest = keys[:5000], keys[5000:]
    f.insert(first)
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            assert f.contains(first).all()
            assert f.count(first) == first.size
            assert all(int(k) in f for k in first[:50])

    def writer():
        try:
            for part in np.array_split(rest, 40):
                f.insert(part)
                f.add(int(part[0]))
        finally:
            stop.set()

    run_threads([reader, reader, writer])
    assert f.contains(keys).all()


def test_crossed_in_place_unions_do_not_deadlock(keys):
    a = batchbloom.Filter(n=keys.size, fpr=0.01)
    b = batchbloom.Filter(n=keys.size, fpr=0.01)
    a.insert(keys[:100])
    b.insert(keys[100:200])

    def a_or_b():
        for _ in range(200):
            a.__ior__(b)

    def b_or_a():
        for _ in range(200):
            b.__ior__(a)

    run_threads([a_or_b, b_or_a, lambda: [a.to_bytes() for _ in range(50)]])
    assert a == b and a.contains(keys[:200]).all()


def assert_releases_the_gil(call):
    """While one thread is inside a long call(), another Python thread keeps running."""
    ticks = []
    started = threading.Event()
    stop = threading.Event()

    def ticker():
        started.set()
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    t = threading.Thread(target=ticker)
    t.start()
    try:
        started.wait()
        calls = []
        for _ in range(20):  # until one call is long enough to tell
            t0 = time.perf_counter()
            call()
            t1 = time.perf_counter()
            calls.append((t0, t1))
            if t1 - t0 > 0.05:
                break
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    t0, t1 = max(calls, key=lambda c: c[1] - c[0])
    margin = (t1 - t0) / 4
    inside = [x for x in ticks if t0 + margin < x < t1 - margin]
    assert inside, f"no ticks during a {t1 - t0:.3f} s call: the GIL was held"


def test_bulk_calls_release_the_gil():
    f = batchbloom.Filter(n=1_000_000, fpr=0.01, backend="scalar", threads=1)
    keys = np.arange(4_000_000, dtype=np.uint64)
    f.insert(keys[:1_000_000])
    assert_releases_the_gil(lambda: f.contains(keys))


def test_concurrent_filter_view_inserts_from_threads_without_a_lock(keys):
    # Eight threads insert their morsels through one view; the filter ends bit-identical to a
    # sequential build, and probes through the view meanwhile see every key inserted before them.
    reference = batchbloom.Filter(n=keys.size, fpr=0.01)
    reference.insert(keys)
    shared = batchbloom.Filter(n=keys.size, fpr=0.01)
    view = batchbloom.ConcurrentFilter(shared)
    assert view.filter is shared
    parts = np.array_split(keys, 8)
    done = [0] * len(parts)
    missed = []

    def inserter(i):
        for chunk in np.array_split(parts[i], 20):
            view.insert(chunk)
            done[i] += chunk.size  # published after the insert returned (the GIL orders it)

    def prober():
        for _ in range(50):
            for i, part in enumerate(parts):
                n = done[i]
                if n and not view.contains(part[:n]).all():
                    missed.append(i)

    run_threads([lambda i=i: inserter(i) for i in range(len(parts))] + [prober])
    assert not missed
    assert shared == reference
    assert view.count(keys) == keys.size
    strings = [f"s{i}" for i in range(1000)]
    view.insert(strings)
    assert view.contains(strings).all()
    with pytest.raises(TypeError):
        batchbloom.ConcurrentFilter(batchbloom.CountingFilter(n=10, fpr=0.01))
