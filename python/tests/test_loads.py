"""Issue 45, rows 3, 4, 9 and 11: snapshots taken while ConcurrentFilter views insert, writes to
file objects that take fewer bytes than given, what a load may allocate (max_bytes) and the
memory it holds, and inputs read once (pipes, FIFOs, /dev/stdin)."""
import io
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import batchbloom


# ---- row 3: a save taken while inserts run -------------------------------------------------


def test_snapshots_taken_while_views_insert_load_and_hold_earlier_keys(tmp_path):
    n = 4_000_000  # a filter of a few MB: a save takes long enough for inserts to land in it
    f = batchbloom.Filter(n=n, fpr=0.01)
    view = batchbloom.ConcurrentFilter(f)
    keys = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    inserters = 3
    step = 10_000
    morsels = [np.ascontiguousarray(keys[t::inserters]) for t in range(inserters)]
    published = [0] * inserters
    errors = []
    done = threading.Event()
    # The inserters hold after their first morsel until the first save starts: started freely,
    # they could finish before it (the inserts take milliseconds), and the test would prove nothing.
    go = threading.Event()

    def insert(t):
        try:
            mine = morsels[t]
            for at in range(0, mine.size, step):
                view.insert(mine[at:at + step])
                published[t] = min(at + step, mine.size)
                if at == 0:
                    go.wait()
        except BaseException as e:  # noqa: BLE001 - reported by the test below
            errors.append(e)

    threads = [threading.Thread(target=insert, args=(t,)) for t in range(inserters)]
    for th in threads:
        th.start()
    saves = overlapped = 0
    try:
        while not done.is_set() or saves < 4:
            before = list(published)
            go.set()
            kind = saves % 4
            if kind == 0:
                g = batchbloom.Filter.from_bytes(f.to_bytes())
            elif kind == 1:
                g = pickle.loads(pickle.dumps(f))
            elif kind == 2:
                f.save(tmp_path / "f.bbf")
                g = batchbloom.Filter.load(tmp_path / "f.bbf")
            else:
                buf = io.BytesIO()
                f.save(buf)
                g = batchbloom.Filter.from_bytes(buf.getvalue())
            saves += 1
            running = any(th.is_alive() for th in threads)
            overlapped += running
            for t in range(inserters):
                earlier = morsels[t][:before[t]]
                assert g.count(earlier) == earlier.size, f"save {saves} ({kind}) lost keys of inserter {t}"
            if not running:
                done.set()
    finally:
        for th in threads:
            th.join()
    assert not errors, errors
    assert all(published[t] == morsels[t].size for t in range(inserters))
    assert overlapped > 0, "no save overlapped the inserts: the test proved nothing"
    assert batchbloom.Filter.from_bytes(f.to_bytes()) == f


# ---- row 4: short writes -----------------------------------------------------------------------


class Trickle(io.RawIOBase):
    """A raw file that takes at most 4,096 bytes a call, as io.RawIOBase.write may."""

    def __init__(self):
        self.data = bytearray()
        self.calls = 0

    def writable(self):
        return True

    def write(self, b):
        self.calls += 1
        part = bytes(memoryview(b)[:4096])
        self.data += part
        return len(part)


class WouldBlock(io.RawIOBase):
    def writable(self):
        return True

    def write(self, b):
        return None


class NoProgress(io.RawIOBase):
    def writable(self):
        return True

    def write(self, b):
        return 0


def test_save_to_a_raw_file_writes_every_byte():
    f = batchbloom.Filter(n=100_000, fpr=0.01)
    f.insert(np.arange(1000, dtype=np.uint64))
    out = Trickle()
    f.save(out)
    assert bytes(out.data) == f.to_bytes()
    assert out.calls > 1
    with pytest.raises(OSError, match=r"write\(\) returned None after 0 of \d+ bytes"):
        f.save(WouldBlock())
    with pytest.raises(OSError, match=r"write\(\) returned 0"):
        f.save(NoProgress())


# ---- row 9: bounded loads ----------------------------------------------------------------------

MIB = 1 << 20


def test_max_bytes_refuses_a_small_zstd_file_that_expands_to_a_large_filter(tmp_path):
    zstd = pytest.importorskip("pyarrow")  # a zstd writer: the frame around the saved bytes
    f = batchbloom.Filter.from_params(batchbloom.Params("word512", (16 * MIB) // 64, 7))
    frame = zstd.compress(f.to_bytes(), codec="zstd", asbytes=True)
    assert len(frame) < 64 * 1024
    (tmp_path / "z.bbf").write_bytes(frame)
    message = r"needs 16777216 bytes of memory, more than the load limit of 1048576 bytes \(max_bytes\)"
    for load in (lambda: batchbloom.Filter.load(tmp_path / "z.bbf", max_bytes=MIB),
                 lambda: batchbloom.load_any(tmp_path / "z.bbf", max_bytes=MIB),
                 lambda: batchbloom.load_any(frame, max_bytes=MIB),
                 lambda: batchbloom.Filter.from_bytes(frame, max_bytes=MIB),
                 lambda: batchbloom.Filter.load(io.BytesIO(frame), max_bytes=MIB)):
        with pytest.raises(batchbloom.FormatError, match=message):
            load()
    assert batchbloom.Filter.load(tmp_path / "z.bbf", max_bytes=16 * MIB) == f
    assert batchbloom.load_any(tmp_path / "z.bbf") == f
    c = batchbloom.CountingFilter(n=100_000, fpr=0.01)
    c.save(tmp_path / "c.bbf")
    with pytest.raises(batchbloom.FormatError, match="load limit"):
        batchbloom.CountingFilter.load(tmp_path / "c.bbf", max_bytes=1000)
    assert batchbloom.CountingFilter.load(tmp_path / "c.bbf", max_bytes=100 * MIB) == c
    with pytest.raises(ValueError, match="max_bytes"):
        batchbloom.load_any(tmp_path / "c.bbf", max_bytes=0)


# The child's peak resident size from /proc (VmHWM: this process image's own; ru_maxrss would
# start at what the forking test process held).
PEAK = """
import sys, batchbloom
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
path, how = sys.argv[1], sys.argv[2]
before = peak()
if how == "file object":
    with open(path, "rb") as fh:
        f = batchbloom.Filter.load(fh)
elif how == "raw file object":
    with open(path, "rb", buffering=0) as fh:
        f = batchbloom.Filter.load(fh)
else:
    f = batchbloom.load_any(path)
assert f.nbytes == int(sys.argv[3])
print(peak() - before)
"""


@pytest.mark.parametrize("how", ["file object", "raw file object", "zstd path"])
def test_loads_hold_one_copy_of_the_filter(tmp_path, how):
    nbytes = 64 * MIB
    f = batchbloom.Filter.from_params(batchbloom.Params("word512", nbytes // 64, 7))
    f.insert(np.arange(100_000, dtype=np.uint64))
    path = tmp_path / "f.bbf"
    if how == "zstd path":
        pa = pytest.importorskip("pyarrow")
        path.write_bytes(pa.compress(f.to_bytes(), codec="zstd", asbytes=True))
    else:
        f.save(path)
    del f
    growth = int(subprocess.run([sys.executable, "-c", PEAK, str(path), how, str(nbytes)], check=True,
                                capture_output=True, text=True).stdout)
    assert nbytes < growth < 1.3 * nbytes, f"{how}: loading {nbytes} bytes grew the peak resident size by {growth}"


# ---- row 11: one read of each input -----------------------------------------------------------


LOAD_ANY = ("import sys, batchbloom; g = batchbloom.load_any(sys.argv[1]); "
            "print(type(g).__name__, g == batchbloom.load_any(sys.argv[2]))")


def load_any_through_fifo(fifo, path):
    """load_any(fifo) in a child, fed path's bytes: a reader that opened the FIFO twice would
    block in its second open(), so the child has a deadline rather than the test."""
    child = subprocess.Popen([sys.executable, "-c", LOAD_ANY, str(fifo), str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:  # a FIFO opened for writing without blocking fails (ENXIO) until a reader has it
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if child.poll() is not None or time.monotonic() > deadline:
                    fd = None
                    break
                time.sleep(0.01)
        if fd is not None:
            os.set_blocking(fd, True)
            try:
                os.write(fd, path.read_bytes())
            except BrokenPipeError:
                pass  # the reader stopped early; its output says why
            finally:
                os.close(fd)
        out, err = child.communicate(timeout=20)
    finally:
        child.kill()
        child.wait()
    return out.split(), err


def test_load_any_reads_dev_stdin_and_fifos_once(tmp_path):
    f = batchbloom.CountingFilter(n=1000, fpr=0.01)
    f.insert(np.arange(500, dtype=np.uint64))
    f.save(tmp_path / "c.bbf")
    spark = batchbloom.ClassicFilter.spark(1000, 0.01)
    spark.insert(["a", "b"])
    (tmp_path / "s.bin").write_bytes(spark.to_spark_bytes())
    got = subprocess.run([sys.executable, "-c", LOAD_ANY, "/dev/stdin", tmp_path / "c.bbf"],
                         input=(tmp_path / "c.bbf").read_bytes(), check=True, capture_output=True).stdout
    assert got.split() == [b"CountingFilter", b"True"]
    os.mkfifo(tmp_path / "fifo")
    for path, kind in ((tmp_path / "c.bbf", b"CountingFilter"), (tmp_path / "s.bin", b"ClassicFilter")):
        out, err = load_any_through_fifo(tmp_path / "fifo", path)
        assert out == [kind, b"True"], err
