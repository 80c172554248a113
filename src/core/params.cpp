// Sizing, every filter type's in this one file: n keys at an FPR to a filter's parameters. The
// blocked filters' exact model (Params, params.hpp), the classic filter's (ClassicParams,
// classic.hpp) and the size a Parquet writer gives a split-block filter (parquet::optimal_bytes).
#include "batchbloom/params.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "batchbloom/classic.hpp"
#include "batchbloom/error.hpp"
#include "batchbloom/parquet.hpp"
#include "core/enum_names.hpp"
#include "core/number_text.hpp"

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
// it treats the query's bits as independent, as Putze et al. and Boost.Bloom do. What does
// not depend on the load is worked out once per shape and k: the model sums this over a
// hundred loads or more per call.
class FprInBlock {
public:
    FprInBlock(const layout::shape_info& s, unsigned k)
        : one_bit_per_word_(s.one_bit_per_word),
          k_(k),
          wl_(word_load(k, s.words)),
          q_(std::log1p(-1.0 / s.word_bits)),
          block_q_(std::log1p(-1.0 / (double(s.words) * s.word_bits))) {}

    double operator()(double load) const {
        if (one_bit_per_word_) {
            auto part = [&](unsigned nwords, unsigned bits) {
                if (nwords == 0 || bits == 0) return 1.0;
                const double set = -std::expm1(q_ * load * bits);
                return std::pow(set, double(nwords) * bits);
            };
            return part(wl_.words_hi, wl_.bits_hi) * part(wl_.words_lo, wl_.bits_lo);
        }
        const double set = -std::expm1(block_q_ * load * k_);
        return std::pow(set, double(k_));
    }

private:
    bool one_bit_per_word_;
    unsigned k_;
    WordLoad wl_;
    double q_, block_q_;
};

// Past this standard deviation of the block load (a mean of thousands of keys per block, a
// filter of well under a bit per key) the mixture below is summed on a grid of normal
// weights rather than load by load: the binomial's skew is under 1/64 of a sigma there, f is
// smooth over a grid step, and the cost of a call stays bounded for any n (summing load by
// load cost 17 sd terms: minutes per sizing request at 10^15 keys).
constexpr double grid_sd = 64.0;

// E[f(L)] for the load L ~ Binomial(n, 1/blocks) of the block a random query lands in.
// Weights are built by the ratio recurrence from the mode and normalised by their sum, which
// stays accurate for any n (lgamma-based pmfs lose digits once n is in the billions). Given
// `above`, it may stop as soon as the terms summed so far put the result above it (f >= 0:
// later terms only add), and then returns a value above `above`, not the mixture: a sizing
// search asks most k only whether they reach the target, and the first terms around the mode
// tell a clear miss.
template <class F>
double mixture(std::uint64_t n, std::uint64_t blocks, F&& f, double above = std::numeric_limits<double>::infinity()) {
    if (n == 0) return f(0.0);
    if (blocks == 1) return f(double(n));
    const double p = 1.0 / double(blocks);
    const double nd = double(n);
    const double mean = nd * p;
    const double sd = std::sqrt(mean * (1.0 - p));
    if (sd > grid_sd) {
        // 16 points per sigma out to 9 sigma (the weights beyond are below 1e-17 of the sum).
        double wsum = 0.0, fsum = 0.0;
        for (int j = -144; j <= 144; ++j) {
            const double z = j / 16.0;
            const double w = std::exp(-0.5 * z * z);
            wsum += w;
            fsum += w * f(std::clamp(mean + z * sd, 0.0, nd));
        }
        return fsum / wsum;
    }
    const double odds = p / (1.0 - p);
    const double mode = std::min(nd, std::floor((nd + 1.0) * p));
    const double lo = std::max(0.0, std::floor(mean - 15.0 * sd - 30.0));
    const double hi = std::min(nd, std::ceil(mean + 15.0 * sd + 30.0));

    // Terms below 1e-17 of the sum cannot change a double result; f <= 1, so neither can their
    // f. `term(load, w)` is called for every term in order, the mode's first.
    const auto terms = [&](auto&& term) {
        double wsum = 1.0, w = 1.0;
        if (!term(mode, 1.0)) return wsum;
        for (double i = mode; i < hi; i += 1.0) {
            w *= (nd - i) / (i + 1.0) * odds;
            if (w < 1e-17 * wsum) break;
            wsum += w;
            if (!term(i + 1.0, w)) return wsum;
        }
        w = 1.0;
        for (double i = mode; i > lo; i -= 1.0) {
            w *= i / (nd - i + 1.0) / odds;
            if (w < 1e-17 * wsum) break;
            wsum += w;
            if (!term(i - 1.0, w)) return wsum;
        }
        return wsum;
    };
    double fsum = 0.0;
    if (!std::isfinite(above)) {
        const double wsum = terms([&](double load, double w) { return fsum += w * f(load), true; });
        return fsum / wsum;
    }
    // The whole sum of weights first (no f: cheap), then the terms in the same order, so that
    // a mixture summed to the end is the one above to the last bit.
    const double wsum = terms([](double, double) { return true; });
    const double bound = above * wsum * (1 + 1e-12);
    terms([&](double load, double w) { return (fsum += w * f(load)) <= bound; });
    return fsum / wsum;
}

// FprInBlock remembered at whole loads: a sizing search sums the mixture for one k at several
// block counts, over mostly the same loads. Summed load by load (sd <= grid_sd, so a mean of at
// most 2 grid_sd^2 with two blocks or more), the mixture's loads stay below about 9,200; larger
// ones (a single block's: n itself) are not remembered, so the memory stays a few pages.
class RememberedFpr {
public:
    explicit RememberedFpr(FprInBlock f) : f_(f) {}
    double operator()(double load) {
        constexpr double most = 1 << 16;
        if (load != std::floor(load) || !(load < most)) return f_(load);
        const auto at = static_cast<std::size_t>(load);
        if (at >= seen_.size()) seen_.resize(at + 1, -1.0);
        if (seen_[at] < 0) seen_[at] = f_(load);
        return seen_[at];
    }

private:
    FprInBlock f_;
    std::vector<double> seen_;  // -1: not yet worked out
};

// The fewest blocks b with fpr_of(b) <= target, and fpr_of(b); blocks 0 if even max_blocks is
// not enough. fpr_of falls as b grows, so the answer does not depend on `guess`, only the work
// does: a bracket grown (or walked down) from the guess in steps that double from 1/32 of it,
// then regula falsi on log FPR over log blocks (Illinois variant, with a bisection step whenever
// interpolation stops halving the bracket). The model costs a few hundred special functions per
// call; from a guess within a few percent this takes ~4 calls.
struct Fit {
    std::uint64_t blocks;
    double fpr;
};

template <class Fpr>
Fit fewest_blocks(std::uint64_t guess, Fpr&& fpr_of, double target) {
    const double log_target = std::log(target);
    const auto step_from = [](std::uint64_t b, double step) {
        return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(double(b) * step));
    };
    std::uint64_t hi = guess, lo = 0;  // lo = 0: no block count known not to fit yet
    double f_hi = fpr_of(hi), g_lo = 0.0, step = 1.0 / 32;
    while (!(f_hi <= target)) {
        if (hi == layout::max_blocks) return {0, f_hi};
        lo = hi, g_lo = std::log(f_hi) - log_target;
        hi = hi + std::min(step_from(hi, step), layout::max_blocks - hi);
        f_hi = fpr_of(hi);
        step *= 2;
    }
    if (lo == 0) {  // the guess fits: walk down to a count that does not
        for (;;) {
            if (hi == 1) return {1, f_hi};
            const std::uint64_t down = hi - std::min(step_from(hi, step), hi - 1);
            const double f = fpr_of(down);
            if (!(f <= target)) {
                lo = down, g_lo = std::log(f) - log_target;
                break;
            }
            hi = down, f_hi = f;
            step = std::min(step * 2, 0.5);
        }
    }
    double g_hi = std::log(f_hi) - log_target;  // <= 0 (up to rounding); g_lo > 0
    int side = 0;                               // which end moved last (+1 lo, -1 hi)
    const auto move = [&](std::uint64_t b, double f, double g) {
        if (f <= target) hi = b, f_hi = f, g_hi = g;
        else lo = b, g_lo = g;
    };
    while (hi - lo > 1) {
        const std::uint64_t width = hi - lo;
        std::uint64_t mid = lo + width / 2;
        if (std::isfinite(g_lo) && std::isfinite(g_hi) && g_lo > g_hi) {
            const double t = g_lo / (g_lo - g_hi);
            const double x = std::exp(std::log(double(lo)) + t * (std::log(double(hi)) - std::log(double(lo))));
            mid = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::llround(x)), lo + 1, hi - 1);
        }
        const double f = fpr_of(mid);
        const bool fits = f <= target;
        move(mid, f, std::log(f) - log_target);
        if (fits) {
            if (side == -1) g_lo /= 2;  // Illinois: the end that stays put loses weight
            side = -1;
        } else {
            if (side == 1) g_hi /= 2;
            side = 1;
        }
        if (hi - lo > width / 2) {  // interpolation crawled: bisect once
            const std::uint64_t m = lo + (hi - lo) / 2;
            if (m == lo) break;
            const double fm = fpr_of(m);
            move(m, fm, std::log(fm) - log_target);
            side = 0;
        }
    }
    return {hi, f_hi};
}

void check_n(std::uint64_t n) {
    if (n == 0) throw Error("the number of keys n must be at least 1");
}

// Derived quantities (block counts, GiB): six significant digits. What the user gave is
// printed by detail::exact_text, so that the message names the value as given.
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
    return mixture(n, params.blocks, FprInBlock(s, params.k));
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
        throw Error("bits per key must be a positive number, got " + detail::exact_text(bits_per_key));
    Params{shape, 1, 1}.validate();
    const double block_bits = 8.0 * layout::info(shape).block_bytes;
    const double blocks = std::ceil(double(n) * bits_per_key / block_bits);
    if (blocks > double(layout::max_blocks))
        throw Error(std::to_string(n) + " keys at " + detail::exact_text(bits_per_key) + " bits/key need " + fmt(blocks) +
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
    if (!(fpr > 0.0 && fpr < 1.0)) throw Error("target FPR must be in (0, 1), got " + detail::exact_text(fpr));
    Params{shape, 1, 1}.validate();
    const double block_bits = 8.0 * layout::info(shape).block_bytes;
    const auto too_many = [&] {
        return Error(std::to_string(n) + " keys at FPR " + detail::exact_text(fpr) +
                     " need more than 2^32 - 1 blocks; use fewer keys per filter or a higher FPR");
    };
    // No structure holds n keys at FPR p in fewer than n log2(1/p) bits (Carter et al. 1978),
    // and a Bloom filter needs 1.44x that. Past twice the largest filter the search below would
    // fail anyway, after summing the model's Poisson terms around billions of keys per block.
    if (double(n) * -std::log2(fpr) > 2 * double(layout::max_blocks) * block_bits) throw too_many();

    // Classic Bloom filter blocks for n keys at FPR p with k hashes: -k n / ln(1 - p^(1/k)), not
    // finite where p^(1/k) rounds to 1.
    const auto classic_blocks = [&](unsigned k) {
        return double(n) * -double(k) / std::log1p(-std::pow(fpr, 1.0 / k)) / block_bits;
    };
    // The search starts at the k whose classic filter is smallest: the blocked filter's best k
    // is at or beside it, so every other k then needs one model call to show that it cannot do
    // with as few blocks (a search from k = 1 up ran one for every k below the best: 85 model
    // calls at 1M keys and 1%, a third of a millisecond per filter).
    unsigned first = 1;
    for (unsigned k = 2; k <= layout::max_k; ++k) {
        const double c = classic_blocks(k);
        if (std::isfinite(c) && !(c >= classic_blocks(first))) first = k;
    }
    Params best{};
    double best_fpr = 1.0;
    // Blocked filters need a little more room than classic ones, by a factor that moves slowly
    // with k: the last answer over its classic estimate makes the next k's guess.
    double room = 1.0;
    const layout::shape_info info = layout::info(shape);
    const auto consider = [&](unsigned k) {
        RememberedFpr in_block{FprInBlock(info, k)};
        const auto fpr_of = [&](std::uint64_t b) { return mixture(n, b, in_block); };
        // Whether b blocks reach the target: the mixture summed only until it shows a miss.
        const auto fits = [&](std::uint64_t b) { return mixture(n, b, in_block, fpr) <= fpr; };
        const double classic = classic_blocks(k);
        const double estimate = classic * room;
        std::uint64_t guess = std::isfinite(estimate)
                                  ? static_cast<std::uint64_t>(std::clamp(estimate, 1.0, double(layout::max_blocks)))
                                  : 1;
        if (best.k == 0) {
            // A k that misses the target even in the largest filter needs no search (one that
            // walked its bracket up to 2^32 - 1 blocks for nothing).
            if (!fits(layout::max_blocks)) return;
        } else {
            // Only an answer of at most best.blocks can change the choice, and one model call
            // tells whether this k gets there.
            if (!fits(best.blocks)) return;
            guess = std::min(guess, best.blocks);
        }
        const Fit fit = fewest_blocks(guess, fpr_of, fpr);
        if (fit.blocks == 0) return;
        if (classic > 0 && std::isfinite(classic)) room = double(fit.blocks) / classic;
        const Params cand{shape, fit.blocks, k};
        // The fewest blocks; between equals, the lower FPR.
        if (best.k == 0 || cand.blocks < best.blocks || (cand.blocks == best.blocks && fit.fpr < best_fpr))
            best = cand, best_fpr = fit.fpr;
    };
    consider(first);
    for (unsigned k = 1; k <= layout::max_k; ++k)
        if (k != first) consider(k);
    if (best.k == 0) throw too_many();
    return best;
}

namespace {
constexpr detail::EnumName<Shape> shape_names[] = {
    {Shape::split256, "split256"}, {Shape::word512, "word512"}, {Shape::line512, "line512"}};
}  // namespace

std::string_view to_string(Shape shape) { return detail::name_of(shape_names, shape); }
Shape parse_shape(std::string_view name) { return detail::value_named(shape_names, name, "block shape"); }

// ---- the classic filter's sizing (ClassicParams, classic.hpp) --------------------------------

void ClassicParams::validate() const {
    if (bits == 0) throw Error("classic filter: bits must be at least 1");
    if (bits > max_bits)
        throw Error("classic filter: " + std::to_string(bits) + " bits exceed the limit of " + std::to_string(max_bits));
    if (k == 0 || k > max_k)
        throw Error("classic filter: k must be in 1.." + std::to_string(max_k) + ", got " + std::to_string(k));
}

namespace {

void check_classic_n(std::uint64_t n) {
    if (n == 0) throw Error("classic filter: the number of keys must be at least 1");
}

unsigned optimal_k(double bits_per_key) {
    return static_cast<unsigned>(std::clamp(std::round(bits_per_key * std::log(2.0)), 1.0, double(ClassicParams::max_k)));
}

ClassicParams checked(ClassicParams p) {
    p.validate();
    return p;
}

}  // namespace

ClassicParams ClassicParams::for_fpr(std::uint64_t n, double fpr) {
    check_classic_n(n);
    if (!(fpr > 0.0 && fpr < 1.0))
        throw Error("classic filter: fpr must be in (0, 1), got " + detail::exact_text(fpr));
    const auto too_many = [&] {
        return Error("classic filter: " + std::to_string(n) + " keys at fpr " + detail::exact_text(fpr) +
                     " need more than " + std::to_string(max_bits) + " bits");
    };
    const double ln2 = std::log(2.0);
    const double ideal = std::ceil(double(n) * -std::log(fpr) / (ln2 * ln2));
    if (ideal > double(max_bits)) throw too_many();
    ClassicParams p{static_cast<std::uint64_t>(ideal), optimal_k(ideal / double(n))};
    const auto grow = [](std::uint64_t m) { return m + std::max<std::uint64_t>(1, m / 4096); };
    // The rounded k can leave the FPR above the target: grow m until it is met. Every m below
    // the closed form for this k, -k n / ln(1 - fpr^(1/k)), misses it, so the growth steps past
    // those without the formula (near FPR 1, k = 1 starts at a few bits: ~10^5 steps).
    const double below = double(n) * -double(p.k) / std::log1p(-std::pow(fpr, 1.0 / p.k)) * (1.0 - 1e-9);
    while (double(p.bits) < below && p.bits < max_bits) p.bits = grow(p.bits);
    while (classic_fpr(p.bits, p.k, n) > fpr && p.bits < max_bits) p.bits = grow(p.bits);
    if (p.bits > max_bits || classic_fpr(p.bits, p.k, n) > fpr) throw too_many();
    return checked(p);
}

ClassicParams ClassicParams::for_bits_per_key(std::uint64_t n, double bits_per_key) {
    check_classic_n(n);
    if (!(bits_per_key > 0.0) || !std::isfinite(bits_per_key))
        throw Error("classic filter: bits per key must be positive, got " + detail::exact_text(bits_per_key));
    const double bits = std::ceil(double(n) * bits_per_key);
    if (bits > double(max_bits)) throw Error("classic filter: too many bits (" + std::to_string(bits) + ")");
    return checked({static_cast<std::uint64_t>(bits), optimal_k(bits_per_key)});
}

ClassicParams ClassicParams::spark(std::uint64_t n, double fpp) {
    check_classic_n(n);
    if (!(fpp > 0.0 && fpp < 1.0)) throw Error("classic filter: fpp must be in (0, 1), got " + detail::exact_text(fpp));
    // Spark's optimalNumOfBits and optimalNumOfHashFunctions, in Java's order of operations.
    const double ln2 = std::log(2.0);
    const double raw = -double(n) * std::log(fpp) / (ln2 * ln2);
    if (!(raw >= 1.0)) throw Error("classic filter: Spark would size this filter to 0 bits");
    if (raw > double(max_bits)) throw Error("classic filter: n and fpp need more than " + std::to_string(max_bits) + " bits");
    const auto bits = static_cast<std::uint64_t>(raw);
    const double k = std::floor(double(bits) / double(n) * ln2 + 0.5);  // Math.round
    if (k > double(max_k)) throw Error("classic filter: Spark would use " + std::to_string(k) + " hash functions");
    return checked({(bits + 63) / 64 * 64, static_cast<unsigned>(std::max(1.0, k))});
}

// ---- Parquet's split-block filters (parquet.hpp): the writers' sizing ---------------------------

namespace parquet {

std::uint32_t optimal_bytes(std::uint64_t ndv, double fpp) {
    if (!(fpp > 0.0 && fpp < 1.0)) throw Error("Bloom filter fpp must be in (0, 1); got " + std::to_string(fpp));
    // The expected FPR of an SBBF with b bits per value is about (1 - e^{-8/b})^8; solving for
    // b gives the writers' formula.
    // log1p: for fpp below ~1e-128, 1 - fpp^(1/8) rounds to 1 and log() to 0 (bits then came
    // out infinite or negative, and the size 0).
    const double bits = -8.0 * double(ndv) / std::log1p(-std::pow(fpp, 1.0 / 8.0));
    constexpr double max_bits = double(max_bitset_bytes) * 8.0;
    if (!(bits < max_bits)) return max_bitset_bytes;
    const auto whole = std::max<std::uint64_t>(static_cast<std::uint64_t>(bits), std::uint64_t(min_bitset_bytes) * 8);
    return static_cast<std::uint32_t>(std::bit_ceil(whole) / 8);
}

}  // namespace parquet

}  // namespace batchbloom
