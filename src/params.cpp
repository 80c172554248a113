#include "batchbloom/params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom {

namespace {

// How many of a key's k bits fall in each word of its block, as (count of words, bits each):
// the one-bit-per-word shapes place bit i in word i % 8.
struct WordLoad {
    unsigned words_hi, bits_hi, words_lo, bits_lo;
};

WordLoad word_load(unsigned k, unsigned words) {
    return {k % words, k / words + 1, words - k % words, k / words};
}

// FPR inside one block that holds `load` keys, for a query of k bits. A query bit in a word
// of w bits that received `draws` uniform bits is set with probability 1 - (1 - 1/w)^draws;
// with one query bit per word this is exact, with several per word (or freely placed bits)
// it treats the query's bits as independent, as Putze et al. and Boost.Bloom do.
double fpr_in_block(const layout::shape_info& s, unsigned k, double load) {
    if (s.one_bit_per_word) {
        const WordLoad wl = word_load(k, s.words);
        const double q = std::log1p(-1.0 / s.word_bits);
        auto part = [&](unsigned nwords, unsigned bits) {
            if (nwords == 0 || bits == 0) return 1.0;
            const double set = -std::expm1(q * load * bits);
            return std::pow(set, double(nwords) * bits);
        };
        return part(wl.words_hi, wl.bits_hi) * part(wl.words_lo, wl.bits_lo);
    }
    const double block_bits = double(s.words) * s.word_bits;
    const double set = -std::expm1(std::log1p(-1.0 / block_bits) * load * k);
    return std::pow(set, double(k));
}

// E[f(L)] for the load L ~ Binomial(n, 1/blocks) of the block a random query lands in.
// Weights are built by the ratio recurrence from the mode and normalised by their sum, which
// stays accurate for any n (lgamma-based pmfs lose digits once n is in the billions).
template <class F>
double mixture(std::uint64_t n, std::uint64_t blocks, F&& f) {
    if (n == 0) return f(0.0);
    if (blocks == 1) return f(double(n));
    const double p = 1.0 / double(blocks);
    const double nd = double(n);
    const double mean = nd * p;
    const double sd = std::sqrt(mean * (1.0 - p));
    const double odds = p / (1.0 - p);
    const double mode = std::min(nd, std::floor((nd + 1.0) * p));
    const double lo = std::max(0.0, std::floor(mean - 15.0 * sd - 30.0));
    const double hi = std::min(nd, std::ceil(mean + 15.0 * sd + 30.0));

    double wsum = 1.0, fsum = f(mode);
    double w = 1.0;
    for (double i = mode; i < hi; i += 1.0) {
        w *= (nd - i) / (i + 1.0) * odds;
        if (w < 1e-300) break;
        wsum += w;
        fsum += w * f(i + 1.0);
    }
    w = 1.0;
    for (double i = mode; i > lo; i -= 1.0) {
        w *= i / (nd - i + 1.0) / odds;
        if (w < 1e-300) break;
        wsum += w;
        fsum += w * f(i - 1.0);
    }
    return fsum / wsum;
}

void check_n(std::uint64_t n) {
    if (n == 0) throw Error("the number of keys n must be at least 1");
}

std::string fmt(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

void Params::validate() const {
    if (!layout::is_known(shape))
        throw Error("unknown block shape " + std::to_string(static_cast<unsigned>(shape)));
    if (blocks < 1 || blocks > layout::max_blocks)
        throw Error("blocks must be between 1 and 2^32 - 1, got " + std::to_string(blocks));
    if (k < 1 || k > layout::max_k)
        throw Error("k must be between 1 and " + std::to_string(layout::max_k) + ", got " + std::to_string(k));
}

Params Params::make(Shape shape, std::uint64_t blocks, unsigned k) {
    Params p{shape, blocks, k};
    p.validate();
    return p;
}

double predicted_fpr(const Params& params, std::uint64_t n) {
    params.validate();
    const layout::shape_info s = layout::info(params.shape);
    return mixture(n, params.blocks, [&](double load) { return fpr_in_block(s, params.k, load); });
}

double classic_fpr(std::uint64_t bits, unsigned k, std::uint64_t n) {
    if (bits == 0) throw Error("classic_fpr: the filter must have at least one bit");
    return std::pow(-std::expm1(-double(k) * double(n) / double(bits)), double(k));
}

double expected_zero_fraction(const Params& params, double n) {
    params.validate();
    const layout::shape_info s = layout::info(params.shape);
    // Binomial block loads have the generating function E[z^L] = (1 - p + p z)^n.
    const double p = 1.0 / double(params.blocks);
    auto pgf = [&](double z) { return std::exp(n * std::log1p(-p * (1.0 - z))); };
    if (!s.one_bit_per_word)
        return pgf(std::pow(1.0 - 1.0 / (double(s.words) * s.word_bits), params.k));
    const WordLoad wl = word_load(params.k, s.words);
    const double q = 1.0 - 1.0 / s.word_bits;
    return (wl.words_hi * pgf(std::pow(q, wl.bits_hi)) + wl.words_lo * pgf(std::pow(q, wl.bits_lo))) / s.words;
}

Params Params::for_bits_per_key(std::uint64_t n, double bits_per_key, Shape shape) {
    check_n(n);
    if (!(bits_per_key > 0.0) || !std::isfinite(bits_per_key))
        throw Error("bits per key must be a positive number, got " + fmt(bits_per_key));
    Params{shape, 1, 1}.validate();
    const double block_bits = 8.0 * layout::info(shape).block_bytes;
    const double blocks = std::ceil(double(n) * bits_per_key / block_bits);
    if (blocks > double(layout::max_blocks))
        throw Error(std::to_string(n) + " keys at " + fmt(bits_per_key) + " bits/key need " + fmt(blocks) +
                    " blocks; a filter holds at most 2^32 - 1 blocks (" +
                    fmt(double(layout::max_blocks) * block_bits / 8 / (1ull << 30)) + " GiB)");
    Params best{shape, static_cast<std::uint64_t>(blocks), 1};
    double best_fpr = predicted_fpr(best, n);
    for (unsigned k = 2; k <= layout::max_k; ++k) {
        const Params cand{shape, best.blocks, k};
        const double f = predicted_fpr(cand, n);
        if (f < best_fpr) best = cand, best_fpr = f;
    }
    return best;
}

Params Params::for_fpr(std::uint64_t n, double fpr, Shape shape) {
    check_n(n);
    if (!(fpr > 0.0 && fpr < 1.0)) throw Error("target FPR must be in (0, 1), got " + fmt(fpr));
    Params{shape, 1, 1}.validate();
    const double block_bits = 8.0 * layout::info(shape).block_bytes;

    Params best{};
    double best_fpr = 1.0;
    for (unsigned k = 1; k <= layout::max_k; ++k) {
        auto fits = [&](std::uint64_t b) { return predicted_fpr(Params{shape, b, k}, n) <= fpr; };
        // Grow an upper bound from the classic estimate, then bisect for the fewest blocks.
        const double classic_bits = double(n) * -std::log(fpr) / (std::log(2.0) * std::log(2.0));
        std::uint64_t hi = std::clamp<std::uint64_t>(
            static_cast<std::uint64_t>(std::min(classic_bits / block_bits, double(layout::max_blocks))), 1,
            layout::max_blocks);
        while (!fits(hi) && hi < layout::max_blocks) hi = std::min(hi * 2, layout::max_blocks);
        if (!fits(hi)) continue;
        std::uint64_t lo = 0;  // lo never fits (0 blocks), hi fits
        while (hi - lo > 1) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            (fits(mid) ? hi : lo) = mid;
        }
        const Params cand{shape, hi, k};
        const double f = predicted_fpr(cand, n);
        if (best.k == 0 || cand.blocks < best.blocks || (cand.blocks == best.blocks && f < best_fpr))
            best = cand, best_fpr = f;
    }
    if (best.k == 0)
        throw Error(std::to_string(n) + " keys at FPR " + fmt(fpr) +
                    " need more than 2^32 - 1 blocks; use fewer keys per filter or a higher FPR");
    return best;
}

std::string_view to_string(Shape shape) {
    switch (shape) {
        case Shape::split256: return "split256";
        case Shape::word512: return "word512";
        case Shape::line512: return "line512";
    }
    return "unknown";
}

Shape parse_shape(std::string_view name) {
    if (name == "split256") return Shape::split256;
    if (name == "word512") return Shape::word512;
    if (name == "line512") return Shape::line512;
    throw Error("unknown block shape '" + std::string(name) + "' (expected split256, word512 or line512)");
}

}  // namespace batchbloom
