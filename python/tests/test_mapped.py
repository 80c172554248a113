"""Filter.map: a saved filter opened read-only over a memory mapping."""
import multiprocessing

import numpy as np
import pytest

import batchbloom


@pytest.fixture
def saved(keys, tmp_path):
    f = batchbloom.Filter(n=keys.size, fpr=0.01, shape="split256", seed=5, threads=1)
    f.insert(keys)
    path = tmp_path / "f.bbf"
    f.save(path)
    return f, path


def test_map_probes_bit_exact_with_load(saved, keys, rng, backend):
    f, path = saved
    m = batchbloom.Filter.map(path)
    assert m.mapped and not f.mapped and m == f
    m.backend = backend
    probe = np.concatenate([keys, rng.integers(0, 2**64, size=7_777, dtype=np.uint64)])
    for threads in (1, 3):
        m.threads = threads
        for start in (0, 1, 3):  # odd sizes and unaligned views
            view = probe[start:]
            assert np.array_equal(m.contains(view), f.contains(view))
            assert m.count(view) == f.count(view)
    strings = [str(k) for k in probe[:1001]]
    assert np.array_equal(m.contains(strings), f.contains(strings))
    assert m.contains(keys).all()
    assert int(keys[0]) in m
    assert m.fill_ratio() == f.fill_ratio() and m.key_kinds == f.key_kinds


def test_map_str_path_and_verify_false(saved):
    f, path = saved
    assert batchbloom.Filter.map(str(path), verify=False) == f


def test_mapped_filter_is_read_only(saved, keys):
    f, path = saved
    m = batchbloom.Filter.map(path)
    for write in (lambda: m.insert(keys[:3]), lambda: m.add(1), m.clear, lambda: m.__ior__(f), lambda: m.__iand__(f)):
        with pytest.raises(batchbloom.Error, match="mapped read-only; load\\(\\) for a writable copy"):
            write()
    with pytest.raises(batchbloom.Error, match="mapped read-only"):
        batchbloom.ConcurrentFilter(m).insert(keys[:3])
    assert m == f
    c = m.copy()  # an owning, writable copy
    assert not c.mapped and c == f
    c.clear()
    assert c.fill_ratio() == 0 and m == f
    assert (m | f) == f and (m & f) == f
    assert batchbloom.Filter.from_bytes(m.to_bytes()) == f


def test_map_rejects_corrupt_truncated_and_other_files(saved, tmp_path):
    f, path = saved
    data = bytearray(path.read_bytes())
    bad = tmp_path / "bad.bbf"
    data[100] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(batchbloom.FormatError, match="payload checksum mismatch"):
        batchbloom.Filter.map(bad)
    assert batchbloom.Filter.map(bad, verify=False) != f  # trusted: mapped as it is
    bad.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(batchbloom.FormatError, match="truncated payload"):
        batchbloom.Filter.map(bad, verify=False)
    counting = batchbloom.CountingFilter(n=100, fpr=0.01)
    counting.save(bad)
    with pytest.raises(batchbloom.FormatError, match="counting"):
        batchbloom.Filter.map(bad)
    with pytest.raises(OSError, match="cannot open"):
        batchbloom.Filter.map(tmp_path / "missing.bbf")


def test_map_refuses_zstd_naming_load(tmp_path):
    # map() tells a compressed file by the zstd frame's magic number, before anything else
    # (the C++ tests map a real compressed file); a frame's first bytes are enough here.
    z = tmp_path / "z.bbf"
    z.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(100))
    with pytest.raises(batchbloom.FormatError, match=r"compressed \(zstd\).*load\(\)"):
        batchbloom.Filter.map(z)


def test_rename_replace_keeps_the_mapping(saved, keys, tmp_path):
    f, path = saved
    m = batchbloom.Filter.map(path)
    g = batchbloom.Filter(n=keys.size, fpr=0.01, shape="split256", seed=5, threads=1)
    g.insert(keys + np.uint64(1))
    g.save(path)  # atomic: a new file renamed over the old one
    assert m == f and m.contains(keys).all()
    assert batchbloom.Filter.map(path) == g


def _probe_in_child(path, keys, queue):
    m = batchbloom.Filter.map(path)
    m.threads = 1
    queue.put(int(m.count(keys)))


def test_two_processes_probe_one_file(saved, keys):
    f, path = saved
    m = batchbloom.Filter.map(path)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_probe_in_child, args=(str(path), keys, queue))
    child.start()
    assert queue.get(timeout=120) == keys.size
    child.join(timeout=120)
    assert child.exitcode == 0
    assert m.count(keys) == keys.size
