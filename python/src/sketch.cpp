// batchbloom._core._estimated_filter and _distinct_upper_bound: a Filter sized for the distinct
// keys of a batch without counting them exactly, and the bound it is sized for. batchbloom.arrow
// builds filters with the first when no n= is given: an exact distinct count (a hash table of
// every key) costs many times the insert it sizes. Here the keys are hashed as the filter hashes
// them and a HyperLogLog sketch of the hashes gives the size; then the keys are inserted. Byte
// strings' hashes are kept for that insert (hashing a string costs more than writing and reading
// its 8-byte hash); integers are hashed again by the insert, in its own kernel, which costs less
// than keeping 8 bytes a key (2M keys: 16 MiB written, read back, and page-faulted in where the
// allocator hands back fresh memory, 20 ms and more on a VM against the 6 ms insert).
#include <batchbloom/hash.hpp>
#include <batchbloom/key_kinds.hpp>
#include <batchbloom/parallel.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "args.hpp"
#include "keys.hpp"
#include "py_filter.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BATCHBLOOM_SKETCH_BMI2 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace batchbloom::python {

namespace {

// ---- the sketch's registers ---------------------------------------------------------------

/// Leading zeros of the hash with its top p bits cleared (Bits::low_zeros; Bmi2Bits below).
struct PortableBits {
    static unsigned low_zeros(std::uint64_t hash, unsigned p) {
        return unsigned(std::countl_zero(hash & (~std::uint64_t(0) >> p)));
    }
};

/// A HyperLogLog register update for 2^P one-byte registers: the top P bits of the hash pick
/// the register, which keeps the largest rank (leading zeros + 1) of the 64 - P bits below
/// them, stored plus P - 1: the leading zeros of the hash with its top P bits cleared, which
/// are 64 (rank 64 - P + 1, the largest) when the bits below are all zero. 0 is a register no
/// hash reached.
template <unsigned P, class Bits>
[[gnu::always_inline]] inline void add_hash(std::uint8_t* registers, std::uint64_t hash) {
    const auto rank = static_cast<std::uint8_t>(Bits::low_zeros(hash, P));
    std::uint8_t& r = registers[hash >> (64 - P)];
    r = rank > r ? rank : r;
}

template <unsigned P, class Bits>
[[gnu::always_inline]] inline void add_hashes_inline(std::uint8_t* registers, const std::uint64_t* hashes, std::size_t n) {
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {  // unrolled: the loop's own instructions are a fifth of an update
        add_hash<P, Bits>(registers, hashes[i]);
        add_hash<P, Bits>(registers, hashes[i + 1]);
        add_hash<P, Bits>(registers, hashes[i + 2]);
        add_hash<P, Bits>(registers, hashes[i + 3]);
    }
    for (; i < n; ++i) add_hash<P, Bits>(registers, hashes[i]);
}

template <unsigned P>
void add_hashes(std::uint8_t* registers, const std::uint64_t* hashes, std::size_t n) {
    add_hashes_inline<P, PortableBits>(registers, hashes, n);
}

#ifdef BATCHBLOOM_SKETCH_BMI2
#define BATCHBLOOM_SKETCH_TARGET __attribute__((target("bmi,bmi2,lzcnt")))

/// The same updates with BMI2 and LZCNT: the rank is two instructions (BZHI, LZCNT).
struct Bmi2Bits {
    BATCHBLOOM_SKETCH_TARGET static unsigned low_zeros(std::uint64_t hash, unsigned p) {
        return unsigned(_lzcnt_u64(_bzhi_u64(hash, 64 - p)));
    }
};
template <unsigned P>
BATCHBLOOM_SKETCH_TARGET void add_hashes_bmi2(std::uint8_t* registers, const std::uint64_t* hashes, std::size_t n) {
    add_hashes_inline<P, Bmi2Bits>(registers, hashes, n);
}

/// BMI2 and LZCNT (CPUID 0x80000001, ECX bit 5; no compiler's __builtin_cpu_supports names it).
bool runs_bmi2_updates() {
    if (!__builtin_cpu_supports("bmi2")) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5)) != 0;
}
#endif

/// The register updates for this machine, chosen once.
struct Kernels {
    void (*add14)(std::uint8_t*, const std::uint64_t*, std::size_t);
    void (*add16)(std::uint8_t*, const std::uint64_t*, std::size_t);
};

const Kernels& kernels() {
    static const Kernels chosen = [] {
#ifdef BATCHBLOOM_SKETCH_BMI2
        if (runs_bmi2_updates()) return Kernels{&add_hashes_bmi2<14>, &add_hashes_bmi2<16>};
#endif
        return Kernels{&add_hashes<14>, &add_hashes<16>};
    }();
    return chosen;
}

// ---- the sketch -----------------------------------------------------------------------------

/// Batches of this many keys or more get 2^16 registers (64 KiB, in L2), which halve the
/// error of 2^14 (16 KiB, in L1), so the filter sized for 3 standard errors above the estimate
/// is 1.2% larger rather than 2.4%. Reading them for the estimate costs what sketching some
/// 20,000 keys does: a sixth of the work here, less above, too much below.
constexpr std::size_t large_batch = std::size_t(1) << 17;
static_assert(iterable_chunk >= large_batch, "an iterable's first batch decides the registers of the whole");

/// HyperLogLog with 2^14 or 2^16 one-byte registers, read by Ertl's estimator ("New
/// cardinality estimation algorithms for HyperLogLog sketches", 2017), which is unbiased from
/// a handful of keys to billions without empirical correction tables.
class DistinctSketch {
public:
    /// Sized for a batch of `batch_keys` keys (nulls included), filled by up to `tasks` tasks at
    /// once, each into registers of its own (merged by max when read).
    DistinctSketch(std::size_t batch_keys, unsigned tasks)
        : p_(batch_keys >= large_batch ? 16 : 14), tasks_(std::max(tasks, 1u)), registers_(tasks_ << p_) {}

    unsigned tasks() const { return tasks_; }

    /// Relative standard error of estimate(): 1.04 / sqrt(2^p), 0.81% or 0.41%.
    double standard_error() const { return 1.04 / std::sqrt(double(std::size_t(1) << p_)); }

    /// Task `task`'s hashes; tasks add at once, each to its own registers. counted() counts them.
    void add(unsigned task, const std::uint64_t* hashes, std::size_t n) {
        (p_ == 16 ? kernels().add16 : kernels().add14)(registers_.data() + (std::size_t(task) << p_), hashes, n);
    }
    void counted(std::size_t n) { keys_ += n; }

    double estimate() const {
        const unsigned q = 64 - p_;
        const std::size_t m_registers = std::size_t(1) << p_;
        std::array<std::uint32_t, 65> stored{};
        for (std::size_t i = 0; i < m_registers; ++i) {
            std::uint8_t r = registers_[i];
            for (unsigned t = 1; t < tasks_; ++t) r = std::max(r, registers_[(std::size_t(t) << p_) + i]);
            ++stored[r];
        }
        // count[k]: the registers of rank k (stored as k + p - 1, 0 for none).
        std::array<std::uint32_t, 64> count{};
        count[0] = stored[0];
        for (unsigned k = 1; k <= q + 1; ++k) count[k] = stored[k + p_ - 1];
        const double m = double(m_registers);
        double z = m * tau(1.0 - count[q + 1] / m);
        for (unsigned k = q; k >= 1; --k) z = 0.5 * (z + count[k]);
        z += m * sigma(count[0] / m);
        return m * m / (2.0 * std::log(2.0) * z);  // 0 for an empty sketch (z infinite)
    }

    /// At least the distinct keys added, but for about one batch in 740: three standard errors
    /// above the estimate (a filter sized for it keeps its FPR unless the sketch errs by more,
    /// and then by little), and never more than the keys added, repeats and all.
    std::uint64_t upper_bound() const {
        const double high = std::ceil(estimate() * (1.0 + 3.0 * standard_error()));
        return std::min<std::uint64_t>(keys_, static_cast<std::uint64_t>(high));
    }

    /// Keys added (repeats included).
    std::size_t keys() const { return keys_; }

private:
    static double sigma(double x) {
        if (x == 1.0) return std::numeric_limits<double>::infinity();
        double y = 1.0, z = x, before;
        do {
            x *= x;
            before = z;
            z += x * y;
            y += y;
        } while (z != before);
        return z;
    }
    static double tau(double x) {
        if (x == 0.0 || x == 1.0) return 0.0;
        double y = 1.0, z = 1.0 - x, before;
        do {
            x = std::sqrt(x);
            before = z;
            y *= 0.5;
            z -= (1.0 - x) * (1.0 - x) * y;
        } while (z != before);
        return z / 3.0;
    }

    unsigned p_;
    unsigned tasks_;
    std::vector<std::uint8_t> registers_;  // tasks_ arrays of 2^p_
    std::size_t keys_ = 0;
};

/// Keys per task of the sketch: below this, a second thread costs more than it saves.
constexpr std::size_t keys_per_task = std::size_t(1) << 16;

/// Tasks for sketching a batch of `keys` keys on a default Filter's threads (every core).
unsigned sketch_tasks(std::size_t keys) {
    return static_cast<unsigned>(std::clamp<std::size_t>(keys / keys_per_task, 1, hardware_threads()));
}

/// Hashes every non-null key of `batch` as a default Filter's insert does and adds the hashes
/// to `sketch`, a few L1-sized chunks at a time, on up to sketch.tasks() of the library's
/// threads (the ones the insert after it runs on, kept busy rather than left to fall asleep);
/// with `kept` (room for every key of the batch) they are also left there, in the batch's order,
/// for insert_hashes. Returns the kinds of the keys, as inserting them records (key_kinds.hpp).
KeyKinds sketch_keys(const KeyBatch& batch, DistinctSketch& sketch, std::uint64_t* kept) {
    KeyKinds kinds = KeyKinds::none();
    for_each_span(batch, [&](const auto& keys, std::size_t) {
        using K = typename std::decay_t<decltype(keys)>::value_type;
        if (keys.empty()) return;
        kinds = kinds | (std::is_integral_v<K> ? KeyKinds::only_integers() : KeyKinds::only_bytes());
        const std::size_t first = sketch.keys();  // where this span's hashes go in `kept`
        const auto sketch_part = [&](unsigned task, std::size_t begin, std::size_t end) {
            constexpr std::size_t chunk = 1024;
            std::array<std::uint64_t, chunk> scratch;
            for (std::size_t b = begin; b < end; b += chunk) {
                const auto part = keys.subspan(b, std::min(chunk, end - b));
                std::uint64_t* out = kept != nullptr ? kept + first + b : scratch.data();
                hash_keys(Hashing{}, part, std::span<std::uint64_t>(out, part.size()));  // a default Filter's hashing
                sketch.add(task, out, part.size());
            }
        };
        const unsigned tasks = std::min<unsigned>(sketch.tasks(), sketch_tasks(keys.size()));
        if (tasks <= 1) {
            sketch_part(0, 0, keys.size());
        } else {
            run_parallel(tasks, tasks, [&](unsigned t) {
                sketch_part(t, keys.size() * t / tasks, keys.size() * (t + 1) / tasks);
            });
        }
        sketch.counted(keys.size());
    });
    return kinds;
}

/// Byte strings' hashes are kept for the insert up to this much memory; a larger batch is hashed
/// twice (sketched, then inserted as keys) rather than holding 8 bytes a key.
constexpr std::uint64_t default_kept_bytes = std::uint64_t(256) << 20;

/// Whether some chunk of the batch holds byte strings (whose hashes are worth keeping), from the
/// chunks' layouts alone.
bool has_byte_strings(const KeyBatch& batch) {
    return std::any_of(batch.chunks().begin(), batch.chunks().end(), [](const KeyChunk& c) {
        return std::visit([](const auto& k) { return std::is_same_v<std::decay_t<decltype(k[0])>, std::string_view>; },
                          c.keys);
    });
}

PyFilter estimated_filter(nb::handle keys, double fpr, std::uint64_t max_kept_bytes) {
    Params::for_fpr(1, fpr);  // an fpr Filter(n, fpr) refuses is refused before the keys are read
    KeyBatch batch;
    if (!batch.take_array(keys, Nulls::skip))
        throw nb::type_error("_estimated_filter takes an array or Arrow data (what Filter.insert reads in place)");
    nb::gil_scoped_release release;
    const std::size_t total = batch.size();
    DistinctSketch sketch(total, sketch_tasks(total));
    std::unique_ptr<std::uint64_t[]> kept;
    if (total != 0 && total <= max_kept_bytes / sizeof(std::uint64_t) && has_byte_strings(batch))
        kept.reset(new (std::nothrow) std::uint64_t[total]);  // no memory for them: two passes
    const KeyKinds kinds = sketch_keys(batch, sketch, kept.get());
    Filter f(Params::for_fpr(std::max<std::uint64_t>(sketch.upper_bound(), 1), fpr));
    if (kept) {
        f.insert_hashes(std::span<const std::uint64_t>(kept.get(), sketch.keys()));
        f.add_key_kinds(kinds);
    } else {
        insert(f, batch);
    }
    return PyFilter(std::move(f));
}

}  // namespace

void bind_sketch(nb::module_& m) {
    m.def(
        "_estimated_filter",
        [](nb::handle keys, Typed<float> fpr, Typed<int> max_kept_bytes) {
            return estimated_filter(keys, real_arg(fpr, "fpr"), int_arg(max_kept_bytes, "max_kept_bytes"));
        },
        nb::arg("keys").none(), nb::arg("fpr").none(), nb::kw_only(), nb::arg("max_kept_bytes").none() = default_kept_bytes,
        nb::sig("def _estimated_filter(keys: numpy.typing.ArrayLike, fpr: float, *, max_kept_bytes: int = 268435456) -> Filter"),
        "Filter(_distinct_upper_bound(keys), fpr) with the non-null keys inserted (nulls='skip'),\n"
        "bit for bit. keys: an array or Arrow data, read in place. Each key is hashed for the\n"
        "sketch; byte strings' hashes are kept (8 bytes a key, up to max_kept_bytes) and inserted,\n"
        "integers (and strings beyond max_kept_bytes) are inserted as keys, hashed again. The GIL is\n"
        "released. batchbloom.arrow.build() without n= builds its filters with it.");
    m.def(
        "_distinct_upper_bound",
        [](nb::handle keys) {
            std::unique_ptr<DistinctSketch> sketch;
            for_each_batch(
                keys,
                [&](const KeyBatch& batch, std::size_t) {
                    // An iterable's first batch is as large as batches get (iterable_chunk).
                    if (!sketch) sketch = std::make_unique<DistinctSketch>(batch.size(), sketch_tasks(batch.size()));
                    nb::gil_scoped_release release;
                    sketch_keys(batch, *sketch, nullptr);
                },
                Nulls::skip);
            return sketch ? sketch->upper_bound() : std::uint64_t{0};
        },
        nb::arg("keys").none(),
        nb::sig("def _distinct_upper_bound(keys: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str]) -> int"),
        "An upper bound on the distinct non-null keys of `keys` (any batch insert() takes), from a\n"
        "HyperLogLog sketch of their hashes: 3 standard errors above its estimate (2^16 registers\n"
        "from 2^17 keys on, 1.2%; 2^14 below, 2.4%), but never above the number of non-null keys;\n"
        "below the distinct count for about one batch in 740. batchbloom.arrow.build() sizes\n"
        "filters with it.");
}

}  // namespace batchbloom::python
