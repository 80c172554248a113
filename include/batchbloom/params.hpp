#pragma once
// Filter sizing. The predicted false-positive rate is the blocked-filter model of Putze,
// Sanders and Singler (2007): a mixture over the number of keys that share the probed block
// (binomial; Poisson in the limit) of the FPR inside one block. The classic formula
// (1 - e^{-kn/m})^k ignores the uneven block loads and under-predicts a blocked filter's FPR;
// it is kept only for comparison.
#include <cstdint>
#include <string_view>

#include "layout.hpp"

namespace batchbloom {

struct Params {
    Shape shape = Shape::word512;
    std::uint64_t blocks = 0;
    unsigned k = 0;

    /// Smallest filter whose predicted FPR for n keys is <= fpr; k chosen under the model.
    /// Throws Error for n == 0, fpr outside (0, 1), or a filter that would need more than layout::max_blocks blocks.
    static Params for_fpr(std::uint64_t n, double fpr, Shape shape = Shape::word512);

    /// ceil(n * bits_per_key / block bits) blocks, with the k that minimises the predicted FPR.
    static Params for_bits_per_key(std::uint64_t n, double bits_per_key, Shape shape = Shape::word512);

    /// Explicit shape; validated.
    static Params make(Shape shape, std::uint64_t blocks, unsigned k);

    std::uint64_t block_bytes() const { return layout::info(shape).block_bytes; }
    std::uint64_t bytes() const { return blocks * block_bytes(); }
    std::uint64_t bits() const { return bytes() * 8; }

    /// Throws Error naming the first invalid field.
    void validate() const;

    friend bool operator==(const Params&, const Params&) = default;
};

/// Predicted FPR of a filter with these parameters after n distinct keys were inserted.
double predicted_fpr(const Params& params, std::uint64_t n);

/// The classic Bloom formula (1 - e^{-k n / m})^k for m bits; for comparison only.
double classic_fpr(std::uint64_t bits, unsigned k, std::uint64_t n);

/// Expected fraction of zero bits after n keys, under the same model; its inverse gives the
/// cardinality estimate from a filter's fill (Swamidass & Baldi 2007, per block shape).
double expected_zero_fraction(const Params& params, double n);

/// "split256" / "word512" / "line512"; parse_shape throws Error on anything else.
std::string_view to_string(Shape shape);
Shape parse_shape(std::string_view name);

}  // namespace batchbloom
