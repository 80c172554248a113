// batchbloom._core._distinct_upper_bound: how many distinct keys a batch holds, at most, from a
// HyperLogLog sketch filled in one pass over the keys' hashes. batchbloom.arrow sizes a filter
// with it when no n= is given: an exact distinct count (a hash table of every key) costs many
// times the insert it sizes, the sketch about as much as hashing the keys once.
#include <batchbloom/hash.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "args.hpp"
#include "keys.hpp"
#include "py_filter.hpp"

namespace batchbloom::python {

namespace {

/// HyperLogLog with 2^14 one-byte registers (16 KiB: stays in L1 while it is filled), read by
/// Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog sketches", 2017),
/// which is unbiased from a handful of keys to billions without empirical correction tables.
class DistinctSketch {
public:
    static constexpr unsigned p = 14;
    static constexpr std::size_t m = std::size_t(1) << p;
    static constexpr unsigned q = 64 - p;
    /// Relative standard error of estimate() (1.04 / sqrt(m)).
    static constexpr double standard_error = 1.04 / 128.0;

    void add(std::uint64_t hash) noexcept {
        // The bit below the index caps the rank at q + 1 when the remaining bits are all zero.
        const auto rank = static_cast<std::uint8_t>(std::countl_zero((hash << p) | (std::uint64_t(1) << (p - 1))) + 1);
        std::uint8_t& r = registers_[hash >> q];
        r = std::max(r, rank);
    }

    // The library's own key hashes (hash.hpp, HashKind::xxh3 with seed 0): integer keys as
    // wide as the filters take them, so 7 as uint32 and as uint64 are one key.
    void add_keys(std::span<const std::uint64_t> keys) noexcept {
        for (const std::uint64_t k : keys) add(mix64(k, 0));
    }
    void add_keys(std::span<const std::uint32_t> keys) noexcept {
        for (const std::uint32_t k : keys) add(mix64(k, 0));
    }
    void add_keys(std::span<const std::string_view> keys) noexcept {
        for (const std::string_view k : keys) add(xxh3_64(k.data(), k.size(), 0));
    }

    double estimate() const {
        std::array<double, q + 2> count{};
        for (const std::uint8_t r : registers_) count[r] += 1.0;
        const double md = double(m);
        double z = md * tau(1.0 - count[q + 1] / md);
        for (unsigned k = q; k >= 1; --k) z = 0.5 * (z + count[k]);
        z += md * sigma(count[0] / md);
        return md * md / (2.0 * std::log(2.0) * z);  // 0 for an empty sketch (z infinite)
    }

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

    std::array<std::uint8_t, m> registers_{};
};

}  // namespace

void bind_sketch(nb::module_& m) {
    m.def(
        "_distinct_upper_bound",
        [](nb::handle keys) {
            DistinctSketch sketch;
            for_each_batch(
                keys,
                [&](const KeyBatch& batch, std::size_t) {
                    nb::gil_scoped_release release;
                    for_each_span(batch, [&](const auto& k, std::size_t) { sketch.add_keys(k); });
                },
                Nulls::skip);
            // Three standard errors above the estimate: a filter sized for it keeps its FPR
            // unless the sketch errs by more, which happens once in ~740 columns and then
            // by little (FPR grows about as fast as the keys beyond the sizing).
            return static_cast<std::uint64_t>(std::ceil(sketch.estimate() * (1.0 + 3.0 * DistinctSketch::standard_error)));
        },
        nb::arg("keys").none(),
        nb::sig("def _distinct_upper_bound(keys: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str]) -> int"),
        "An upper bound on the distinct non-null keys of `keys` (any batch insert() takes), from a\n"
        "HyperLogLog sketch of their hashes: within a few percent of the count, above it but for\n"
        "about one batch in 740. batchbloom.arrow.build() sizes filters with it.");
}

}  // namespace batchbloom::python
