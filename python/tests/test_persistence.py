"""to_bytes/from_bytes, save/load and pickling; corrupt input raises FormatError."""
import pickle
from pathlib import Path

import numpy as np
import pytest

import batchbloom


@pytest.fixture
def filt(keys):
    f = batchbloom.Filter(n=keys.size, fpr=0.01, shape="split256", hash="murmur3", seed=77, threads=1)
    f.insert(keys)
    return f


def test_bytes_round_trip(filt, keys):
    data = filt.to_bytes()
    assert isinstance(data, bytes) and len(data) == 64 + filt.nbytes and data[:8] == b"BATCHBLM"
    for buf in (data, bytearray(data), memoryview(data), np.frombuffer(data, dtype=np.uint8)):
        g = batchbloom.Filter.from_bytes(buf)
        assert g == filt and g.contains(keys).all()
        assert (g.shape, g.hash_kind, g.seed) == ("split256", "murmur3", 77)


def test_save_load(filt, tmp_path):
    path = tmp_path / "f.bbf"
    filt.save(path)
    assert path.read_bytes() == filt.to_bytes()
    assert batchbloom.Filter.load(path) == filt
    assert batchbloom.Filter.load(str(path)) == filt


def test_pickle(filt):
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        g = pickle.loads(pickle.dumps(filt, protocol=protocol))
        assert g == filt and g.backend == "auto"
    p = filt.params
    assert pickle.loads(pickle.dumps(p)) == p


def corruptions(data):
    yield "empty", b""
    yield "bad magic", b"X" + data[1:]
    yield "truncated header", data[:40]
    yield "truncated payload", data[:-1]
    yield "trailing data", data + b"\0"
    flipped = bytearray(data)
    flipped[100] ^= 1
    yield "checksum", bytes(flipped)
    header = bytearray(data)
    header[8] = 99
    yield "version|checksum", bytes(header)


def test_corrupt_bytes_raise_format_error(filt, tmp_path):
    for expected, bad in corruptions(filt.to_bytes()):
        with pytest.raises(batchbloom.FormatError, match=expected):
            batchbloom.Filter.from_bytes(bad)
        path = tmp_path / "bad.bbf"
        path.write_bytes(bad)
        with pytest.raises(batchbloom.FormatError):
            batchbloom.Filter.load(path)


def test_file_errors_are_os_errors(filt, tmp_path):
    with pytest.raises(OSError, match="cannot open"):
        batchbloom.Filter.load(tmp_path / "missing.bbf")
    with pytest.raises(OSError, match="directory"):
        batchbloom.Filter.load(tmp_path)
    with pytest.raises(OSError):
        filt.save(tmp_path / "no" / "such" / "dir" / "f.bbf")
    with pytest.raises(TypeError):
        batchbloom.Filter.from_bytes("a str is not bytes")


def test_save_follows_links_and_never_replaces_devices(filt, tmp_path):
    (tmp_path / "link.bbf").symlink_to("target.bbf")  # dangling: the target is created
    filt.save(tmp_path / "link.bbf")
    assert (tmp_path / "link.bbf").is_symlink()
    assert (tmp_path / "target.bbf").read_bytes() == filt.to_bytes()
    with pytest.raises(OSError, match="'/dev/full': No space left on device"):
        filt.save("/dev/full")


def test_key_kinds_are_recorded_and_saved(tmp_path):
    f = batchbloom.Filter(n=100, fpr=0.01)
    assert f.key_kinds == frozenset()
    f.insert(np.arange(10, dtype=np.uint64))
    assert f.key_kinds == {"integers"}
    f.insert(["a", b"b"])
    assert batchbloom.Filter.from_bytes(f.to_bytes()).key_kinds == {"integers", "bytes"}
    old = Path(__file__).resolve().parents[2] / "tests" / "data" / "golden" / "blocked_word512.bbf"
    assert batchbloom.Filter.load(old).key_kinds is None  # written before the record existed
    for g in (batchbloom.CountingFilter(n=100, fpr=0.01), batchbloom.ScalableFilter(100)):
        g.insert(["x"])
        assert type(g).from_bytes(g.to_bytes()).key_kinds == {"bytes"}


@pytest.mark.parametrize("junk", [b"JUNK", b"\0", b"x" * 200_000])
def test_from_bytes_rejects_bytes_after_a_zstd_frame(filt, tmp_path, junk):
    # A blocked filter's compressed file is one zstd frame around its uncompressed bytes
    # (docs/format.md); any zstd writer's frame loads, so PyArrow's codec makes one here.
    pa = pytest.importorskip("pyarrow")
    frame = pa.compress(filt.to_bytes(), codec="zstd", asbytes=True)
    assert frame[:4] == b"\x28\xb5\x2f\xfd"
    assert batchbloom.Filter.from_bytes(frame) == filt
    bad = frame + junk
    with pytest.raises(batchbloom.FormatError, match=rf"trailing data: {len(junk)} bytes after the filter"):
        batchbloom.Filter.from_bytes(bad)
    with pytest.raises(batchbloom.FormatError, match="trailing"):
        batchbloom.load_any(bad)
    (tmp_path / "z.bbf").write_bytes(bad)
    for load in (batchbloom.Filter.load, batchbloom.load_any):
        with pytest.raises(batchbloom.FormatError, match="trailing"):
            load(tmp_path / "z.bbf")
    with pytest.raises(batchbloom.FormatError, match="compressed"):
        batchbloom.Filter.map(tmp_path / "z.bbf")
