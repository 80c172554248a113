#include "batchbloom/scalable.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "batch/blocked_paths.hpp"
#include "batch/bulk_call.hpp"
#include "batch/scratch.hpp"
#include "batch/stage_probe.hpp"
#include "core/number_text.hpp"
#include "cpu/scalar/pipelined.hpp"
#include "engine/engine.hpp"
#include "engine/machine.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/scalable_stages.hpp"
#include "filters/storage.hpp"

namespace batchbloom {

namespace {

/// How stage i's kernels read the keys' hashes: remixed by the stage's seed
/// (ScalableFilter::stage_hash), or as they are in a file saved before stages were remixed.
detail::KeyMode stage_mode(bool remixed, std::size_t i) {
    return remixed ? detail::KeyMode{detail::KeyMode::mix64, ScalableFilter::stage_seed(i)}
                   : detail::KeyMode{detail::KeyMode::hashed, 0};
}

/// A random probe's chance of passing one block, from how many bits each word holds: that all k
/// of a random pattern's bits are set (the model's FprInBlock, params.cpp, from the block's real fill
/// rather than from the load it expects). The counts' product is exact in integers (at most
/// 64^8 per eight factors), so it is one rounding and a few independent multiplies.
template <Shape S>
[[gnu::always_inline]] inline double block_fpr(const unsigned* c, unsigned k) {
    using T = layout::shape_traits<S>;
    static_assert(T::words == 8);
    if constexpr (T::one_bit_per_word) {
        // Pattern bit i lands in word i % 8: words 0-7 once each, then again from word 0.
        std::uint64_t first = 1, second = 1;
        if (k >= T::words) {
            first = (std::uint64_t(c[0]) * c[1] * (std::uint64_t(c[2]) * c[3])) *
                    (std::uint64_t(c[4]) * c[5] * (std::uint64_t(c[6]) * c[7]));
            for (unsigned j = 0; j + T::words < k; ++j) second *= c[j];
        } else {
            for (unsigned j = 0; j < k; ++j) first *= c[j];
        }
        // x 2^-(position_bits k), built as the double's exponent (at most 2^-96 here).
        const double scale = std::bit_cast<double>(std::uint64_t(1023 - T::position_bits * k) << 52);
        return double(first) * double(second) * scale;
    } else {
        const unsigned set = c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7];
        const double fill = double(set) / (T::words * T::word_bits);
        double q = 1.0;
        for (unsigned i = 0; i < k; ++i) q *= fill;
        return q;
    }
}

/// The sum over a stage's blocks of block_fpr: the stage's FPR for random probes, times blocks.
template <Shape S>
[[gnu::always_inline]] inline double stage_fpr_sum(const detail::FilterRef& ref) {
    using T = layout::shape_traits<S>;
    const auto* w = reinterpret_cast<const typename T::word_type*>(ref.data);
    double sum = 0.0;
    unsigned count[T::words];
    for (std::uint64_t b = 0; b < ref.blocks; ++b, w += T::words) {
        for (unsigned j = 0; j < T::words; ++j) count[j] = unsigned(__builtin_popcountll(w[j]));
        sum += block_fpr<S>(count, ref.k);
    }
    return sum;
}

/// The open stage's running sum of block FPRs and the bound it must stay under.
struct StageFill {
    double sum;          // NaN: not known yet (read from the bits first)
    double limit;        // the stage's FPR target x its blocks
    std::uint64_t held;  // keys the stage holds
};

/// Inserts hashed keys into an open stage one at a time, with the block of the key
/// pipeline_window places ahead prefetched (as cpu/scalar/pipelined.hpp does), each block's FPR
/// read before and after the key's bits, until the next key would put the sum above the limit;
/// returns how many went in. A key whose bits are all set (a repeat) changes nothing. The
/// running sum is recomputed from the bits before the stage closes, so rounding cannot close it
/// early. A stage takes at least one key, so a stage too small for its first key cannot close
/// empty and make every later stage close the same way. The loop is written out here rather
/// than taken from pipelined() so that all of it is compiled with the caller's target (below).
template <Shape S>
[[gnu::always_inline]] inline std::size_t fill_stage_body(const detail::FilterRef& ref, const std::uint64_t* keys,
                                                          std::size_t n, detail::KeyMode mode, StageFill& s) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    constexpr std::size_t window = detail::pipeline_window;
    if (std::isnan(s.sum)) s.sum = stage_fpr_sum<S>(ref);
    auto* const base = reinterpret_cast<word*>(ref.data);
    const auto hash_of = [&](std::size_t i) {
        return mode.kind == detail::KeyMode::mix64 ? mix64(keys[i], mode.seed) : keys[i];
    };
    std::uint64_t h[window];
    for (std::size_t i = 0; i < n && i < window; ++i) {
        h[i] = hash_of(i);
        __builtin_prefetch(base + layout::block_index(h[i], ref.blocks) * T::words, 1, 3);
    }
    unsigned before[T::words], after[T::words];
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t hi = h[i % window];
        if (i + window < n) {
            h[i % window] = hash_of(i + window);
            __builtin_prefetch(base + layout::block_index(h[i % window], ref.blocks) * T::words, 1, 3);
        }
        word* const block = base + layout::block_index(hi, ref.blocks) * T::words;
        const auto pattern = layout::make_pattern<S>(static_cast<std::uint32_t>(hi), ref.k);
        word missing[T::words], any = 0;  // the pattern's bits the block lacks
        for (unsigned j = 0; j < T::words; ++j) {
            missing[j] = pattern.w[j] & ~block[j];
            any |= missing[j];
        }
        if (any != 0) {
            for (unsigned j = 0; j < T::words; ++j) {
                before[j] = unsigned(__builtin_popcountll(block[j]));
                after[j] = before[j] + unsigned(__builtin_popcountll(missing[j]));
            }
            const double change = block_fpr<S>(after, ref.k) - block_fpr<S>(before, ref.k);
            if (s.sum + change > s.limit && s.held > 0) {
                s.sum = stage_fpr_sum<S>(ref);
                if (s.sum + change > s.limit) return i;
            }
            for (unsigned j = 0; j < T::words; ++j) block[j] |= missing[j];
            s.sum += change;
        }
        ++s.held;
    }
    return n;
}

template <class... A>
[[gnu::always_inline]] inline std::size_t fill_stage_any(const detail::FilterRef& ref, A&&... a) {
    switch (ref.shape) {
        case Shape::split256: return fill_stage_body<Shape::split256>(ref, a...);
        case Shape::word512: return fill_stage_body<Shape::word512>(ref, a...);
        case Shape::line512: return fill_stage_body<Shape::line512>(ref, a...);
    }
    return 0;
}

// The same code twice, the second compiled to count bits with the POPCNT instruction (without
// it, a bit count is a library call, and it took a quarter of a stage's insert). All of it is
// inlined into each (always_inline, flatten), so no code built for POPCNT is shared.
[[gnu::flatten]] std::size_t fill_stage_portable(const detail::FilterRef& ref, const std::uint64_t* h, std::size_t n,
                                                 detail::KeyMode mode, StageFill& s) {
    return fill_stage_any(ref, h, n, mode, s);
}
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__)
#define BATCHBLOOM_POPCNT_CLONE 1
[[gnu::flatten, gnu::target("popcnt")]] std::size_t fill_stage_popcnt(const detail::FilterRef& ref, const std::uint64_t* h,
                                                                      std::size_t n, detail::KeyMode mode, StageFill& s) {
    return fill_stage_any(ref, h, n, mode, s);
}
#endif

std::size_t fill_stage(const detail::FilterRef& ref, const std::uint64_t* h, std::size_t n, detail::KeyMode mode,
                       StageFill& s) {
#ifdef BATCHBLOOM_POPCNT_CLONE
    static const bool popcnt = __builtin_cpu_supports("popcnt");
    if (popcnt) return fill_stage_popcnt(ref, h, n, mode, s);
#endif
    return fill_stage_portable(ref, h, n, mode, s);
}

}  // namespace

ScalableParams ScalableParams::for_total_fpr(std::uint64_t initial_capacity, double total_fpr, double growth,
                                             double tightening, Shape shape) {
    if (!(total_fpr > 0.0 && total_fpr < 1.0))
        throw Error("scalable filter: total FPR must be in (0, 1), got " + detail::exact_text(total_fpr));
    // With an invalid tightening validate() names that, not the initial FPR.
    ScalableParams p{.initial_capacity = initial_capacity, .initial_fpr = total_fpr, .growth = growth,
                     .tightening = tightening, .shape = shape};
    if (tightening > 0.0 && tightening < 1.0) {
        // fpr_bound() divides by (1 - tightening): step down past any rounding that lands above.
        p.initial_fpr = total_fpr * (1.0 - tightening);
        while (p.initial_fpr / (1.0 - tightening) > total_fpr) p.initial_fpr = std::nextafter(p.initial_fpr, 0.0);
    }
    p.validate();
    return p;
}

void ScalableParams::validate() const {
    if (initial_capacity == 0) throw Error("scalable filter: initial capacity must be at least 1");
    if (!(initial_fpr > 0.0 && initial_fpr < 1.0))
        throw Error("scalable filter: initial FPR must be in (0, 1), got " + detail::exact_text(initial_fpr));
    if (!(growth >= 1.0 && std::isfinite(growth)))
        throw Error("scalable filter: growth factor must be >= 1, got " + detail::exact_text(growth));
    if (!(tightening > 0.0 && tightening < 1.0))
        throw Error("scalable filter: tightening ratio must be in (0, 1), got " + detail::exact_text(tightening));
    if (!layout::is_known(shape)) throw Error("scalable filter: unknown shape");
}

namespace {

// Their caps are set by size_scratch, which every constructor calls (through add_stage).
std::unique_ptr<detail::BatchScratch> new_scratch() { return std::make_unique<detail::BatchScratch>(0); }

}  // namespace

ScalableFilter::ScalableFilter(const ScalableParams& params, const Hashing& hashing, Backend backend)
    : params_(params), hashing_(hashing), probe_scratch_(new_scratch()) {
    params_.validate();
    validate(hashing_);
    set_backend(backend);  // throws if unavailable
    add_stage();
}

ScalableFilter::ScalableFilter(const ScalableParams& params, const Hashing& hashing, const Params& first_stage)
    : params_(params), hashing_(hashing), probe_scratch_(new_scratch()) {
    add_stage(first_stage);
}

ScalableFilter::ScalableFilter(const ScalableFilter& other)
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_), key_kinds_(other.key_kinds_), stages_(other.stages_), sizes_(other.sizes_),
      stages_remixed_(other.stages_remixed_), newest_closed_(other.newest_closed_),
      newest_fpr_sum_(other.newest_fpr_sum_), newest_fpr_stage_(other.newest_fpr_stage_),
      probe_scratch_(new_scratch()), stage_scratch_(other.stage_scratch_),
      scratch_limit_(other.scratch_limit_) {
    size_scratch();
}

ScalableFilter& ScalableFilter::operator=(const ScalableFilter& other) {
    if (this != &other) *this = ScalableFilter(other);
    return *this;
}

ScalableFilter::ScalableFilter(ScalableFilter&& other) noexcept
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_),
      key_kinds_(std::exchange(other.key_kinds_, KeyKinds::none())), stages_(std::move(other.stages_)),
      sizes_(std::move(other.sizes_)), stages_remixed_(other.stages_remixed_), newest_closed_(other.newest_closed_),
      newest_fpr_sum_(other.newest_fpr_sum_),
      newest_fpr_stage_(std::exchange(other.newest_fpr_stage_, static_cast<std::size_t>(-1))),
      probe_scratch_(std::move(other.probe_scratch_)), stage_scratch_(std::move(other.stage_scratch_)),
      scratch_limit_(other.scratch_limit_) {
    other.stages_.clear();  // a moved-from vector is only "valid": make it empty
    other.sizes_.clear();
}

ScalableFilter::~ScalableFilter() = default;

ScalableFilter& ScalableFilter::operator=(ScalableFilter&& other) noexcept {
    return detail::move_assign(*this, std::move(other));
}

std::uint64_t ScalableFilter::stage_capacity(std::size_t i) const { return detail::stage_capacity(params_, i); }
double ScalableFilter::stage_fpr(std::size_t i) const { return detail::stage_fpr(params_, i); }
Params ScalableFilter::stage_params(std::size_t i) const { return detail::stage_params(params_, i); }

void ScalableFilter::add_stage() { add_stage(stage_params(stages_.size())); }

void ScalableFilter::add_stage(const Params& params) {
    stages_.emplace_back(params, hashing_);
    sizes_.push_back(0);
    newest_closed_ = false;
    size_scratch();
}

void ScalableFilter::size_scratch() {
    const std::size_t half = scratch_limit_ ? *scratch_limit_ / 2 : detail::BatchScratch::default_limit(bytes());
    if (probe_scratch_) probe_scratch_->set_limit(scratch_limit_ ? *scratch_limit_ - half : half);
    stage_scratch_.set_scratch_limit(half);
    for (Filter& s : stages_) s.share_scratch_with(stage_scratch_);
}

void ScalableFilter::set_scratch_limit(std::size_t bytes) {
    scratch_limit_ = bytes;
    size_scratch();
}

std::size_t ScalableFilter::scratch_limit() const noexcept {
    return (probe_scratch_ ? probe_scratch_->limit() : 0) + stage_scratch_.scratch_limit();
}

namespace {

// Probes only read through it.
detail::FilterRef stage_ref(const Filter& stage) { return detail::filter_ref(stage.params(), stage.bytes().data()); }

}  // namespace

template <>
struct detail::Forms<ScalableFilter> {
    template <class Key, bool Hashed = false>
    static void insert_keys(ScalableFilter& f, std::span<const Key> keys) {
        if (f.stages_.empty()) detail::throw_moved_from("insert");
        if (keys.empty()) return;  // no keys: nothing to record, and no call to resolve
        if constexpr (!Hashed) f.add_key_kinds(detail::kinds_of<Key>(keys.size()));
        // The call's engine hashes the keys; they go in on this thread (insert_into_stage).
        const auto& kernels = detail::blocked_kernels(detail::bulk_call(f, keys.size()).backend);
        const std::size_t total = keys.size();
        while (!keys.empty()) {
            if (f.newest_closed_ || f.sizes_.back() == f.stage_capacity(f.stages_.size() - 1)) {
                // Growth fails where a stage cannot be had: its FPR (initial x tightening^i) too small
                // to size, or no memory. The keys before it are in; the error says how many.
                try {
                    f.add_stage();
                } catch (const Error& e) {
                    throw Error("scalable filter: cannot add stage " + std::to_string(f.stages_.size()) +
                                " (initial FPR x tightening^" + std::to_string(f.stages_.size()) + "): " + e.what() +
                                "; " + std::to_string(total - keys.size()) + " of the batch's " +
                                std::to_string(total) + " keys were inserted, the others were not");
                }
            }
            const std::uint64_t room = f.stage_capacity(f.stages_.size() - 1) - f.sizes_.back();
            const std::size_t take = room < keys.size() ? static_cast<std::size_t>(room) : keys.size();
            const std::size_t took = insert_into_stage<Key, Hashed>(f, kernels, f.stages_.size() - 1, keys.first(take));
            f.sizes_.back() += took;
            keys = keys.subspan(took);
            if (took < take) f.newest_closed_ = true;
        }
    }

    /// Inserts keys (or, Hashed, their hashes; else hashed by `kernels`) into stage i, remixed by
    /// stage_hash, until one would put the stage's measured FPR above its target; returns how
    /// many went in.
    ///
    /// A stage closes at its capacity or, before that, at the first key that would put its FPR
    /// for random probes, measured from its bits (block_fpr), above its target: keys that crowd
    /// into few of its blocks (an order that follows the stage's hash, which anyone can compute
    /// from the default seeds) fill those blocks past the model's load, and their stage measured
    /// 4-5x its target where closing on the key count alone. So the keys go in one at a time
    /// (fill_stage), on the scalar layout with the blocks ahead prefetched
    /// (cpu/scalar/pipelined.hpp).
    template <class Key, bool Hashed>
    static std::size_t insert_into_stage(ScalableFilter& f, const detail::BlockedKernels& kernels, std::size_t i,
                                         std::span<const Key> keys) {
        Filter& stage = f.stages_[i];
        if constexpr (!Hashed) stage.add_key_kinds(detail::kinds_of<Key>(keys.size()));
        const Params p = stage.params();
        StageFill fill{f.newest_fpr_stage_ == i ? f.newest_fpr_sum_ : std::numeric_limits<double>::quiet_NaN(),
                       f.stage_fpr(i) * double(p.blocks), f.sizes_[i]};
        const std::size_t chunk = std::min<std::size_t>(keys.size(), std::size_t(1) << 16);
        const auto hashes = std::make_unique_for_overwrite<std::uint64_t[]>(Hashed ? 0 : chunk);
        const detail::FilterRef ref = detail::filter_ref(p, stage.mutable_bytes().data());
        const detail::KeyMode mode = stage_mode(f.stages_remixed_, i);
        std::size_t done = 0;
        while (done < keys.size()) {
            const std::size_t n = std::min(chunk, keys.size() - done);
            const std::uint64_t* h = nullptr;
            if constexpr (Hashed) {
                h = keys.data() + done;
            } else {
                detail::hash_keys(f.hashing_, kernels, keys.subspan(done, n), hashes.get());
                h = hashes.get();
            }
            const std::size_t took = fill_stage(ref, h, n, mode, fill);
            f.newest_fpr_sum_ = fill.sum;
            f.newest_fpr_stage_ = i;
            done += took;
            if (took < n) break;
        }
        return done;
    }

    // Probes. The stages share the hashing, so each key is hashed once for all of them, and the
    // stages are asked one after the other, newest first (with growth 2 the newest holds about
    // half the keys), by the batch scheduler's stage probe (batch/stage_probe.hpp): in chunks on
    // the direct path, or, for a large batch of 64-bit values where some stage would not take the
    // direct path for it, stage by stage (scalable.hpp, scratch_bytes): each stage asked once for
    // all the keys left, through its own batch path. Out of cache that took 36.9-44.3 ns/key
    // where the chunked probe took 45.3-52.7 and the stages alone 40.2-52.5 (100M keys in 7
    // stages, 20M probes, 50% hits, one thread), but only with its 13 bytes per key kept between
    // calls: allocated in each call, 38.0-58.3 (docs/design.md, "The batch code's constants").
    // Every stage is asked under the call's context (bulk_call.hpp), in the scratch they share;
    // a scalable filter has no batch path setting, so each stage's path is the automatic rule.
    /// The stage-by-stage probe (see scratch_bytes) where it applies; false where it does not.
    template <bool Hashed>
    static bool probe_by_stage_if_it_pays(const ScalableFilter& f, const detail::BlockedKernels& kernels,
                                          const detail::BulkCall& call, std::span<const std::uint64_t> keys,
                                          std::span<std::uint8_t> out) {
        const std::size_t n = keys.size();
        if (n < detail::stage_probe_min_keys || kernels.backend == Backend::cuda || !f.probe_scratch_) return false;
        if (std::all_of(f.stages_.begin(), f.stages_.end(), [&](const Filter& s) {
                return detail::path_for(kernels, stage_ref(s), n, call, detail::Op::probe) == BatchPath::direct;
            }))
            return false;
        const std::size_t last = f.stages_.size();
        return detail::probe_by_stage(
            *f.probe_scratch_, last, Hashed ? keys.data() : nullptr, n, out.data(), call,
            [&](std::size_t begin, std::size_t len, std::uint64_t* hashes) {
                detail::hash_keys(f.hashing_, kernels, keys.subspan(begin, len), hashes);
            },
            [&](std::size_t s, const std::uint64_t* v, std::size_t count, std::uint8_t* answers) {
                const std::size_t i = last - 1 - s;
                detail::bulk_contains_bytes(kernels, stage_ref(f.stages_[i]), v, count, stage_mode(f.stages_remixed_, i),
                                            answers, call);
            });
    }

    template <class Key, bool Hashed = false>
    static void contains_keys(const ScalableFilter& f, std::span<const Key> keys, std::span<std::uint8_t> out) {
        if (keys.size() != out.size())
            throw Error("output has " + std::to_string(out.size()) + " entries for " + std::to_string(keys.size()) +
                        " keys");
        if (f.stages_.empty()) {  // moved from
            std::fill(out.begin(), out.end(), std::uint8_t{0});
            return;
        }
        if (keys.empty()) return;
        const detail::BulkCall call = detail::bulk_call(f, keys.size(), BatchPath::automatic, f.stage_scratch_.scratch());
        const auto& kernels = detail::blocked_kernels(call.backend);
        if constexpr (std::is_same_v<Key, std::uint64_t>)
            if (probe_by_stage_if_it_pays<Hashed>(f, kernels, call, keys, out)) return;
        // Newest first; probes only read the blocks. A stage larger than L2 is prefetched as the
        // batch layer prefetches any such filter (without, each of its keys waited on memory).
        const detail::Machine& machine = detail::machine();
        std::vector<detail::FilterRef> stages;
        std::vector<detail::KeyMode> modes;
        for (std::size_t i = f.stages_.size(); i-- > 0;) {
            stages.push_back(stage_ref(f.stages_[i]));
            if (f.stages_[i].bytes().size() > machine.l2_bytes) stages.back().prefetch = machine.prefetch_distance;
            modes.push_back(stage_mode(f.stages_remixed_, i));
        }
        detail::probe_in_chunks(kernels, stages, modes, keys.size(), out.data(), call,
                                [&](std::size_t begin, std::size_t n, std::uint64_t* hashes) {
                                    if constexpr (Hashed)
                                        std::copy_n(keys.data() + begin, n, hashes);
                                    else
                                        detail::hash_keys(f.hashing_, kernels, keys.subspan(begin, n), hashes);
                                });
    }

    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const ScalableFilter& f, std::span<const Key> keys) {
        std::vector<std::uint8_t> out(keys.size());
        contains_keys<Key, Hashed>(f, keys, out);
        return std::accumulate(out.begin(), out.end(), std::size_t{0});
    }

    static void insert_one_hash(ScalableFilter& f, std::uint64_t hash) { insert_keys<std::uint64_t, true>(f, {&hash, 1}); }

    static bool contains_one_hash(const ScalableFilter& f, std::uint64_t hash) {
        for (std::size_t i = f.stages_.size(); i-- > 0;)
            if (f.stages_[i].contains_hash(f.stage_hash(i, hash))) return true;
        return false;
    }
};


template class KeyForms<ScalableFilter>;
template class HashForms<ScalableFilter>;

std::uint64_t ScalableFilter::size() const noexcept { return std::accumulate(sizes_.begin(), sizes_.end(), std::uint64_t{0}); }

double ScalableFilter::predicted_fpr() const {
    double sum = 0;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
        // A stage closed short of its capacity closed on its measured FPR, at its target: keys
        // crowded into its blocks, and the model at its key count would predict far less.
        const bool closed_early = i + 1 < stages_.size() && sizes_[i] < stage_capacity(i);
        sum += closed_early ? stage_fpr(i) : batchbloom::predicted_fpr(stages_[i].params(), sizes_[i]);
    }
    return sum;
}

std::uint64_t ScalableFilter::bytes() const noexcept {
    std::uint64_t b = 0;
    for (const auto& s : stages_) b += s.params().bytes();
    return b;
}

std::size_t ScalableFilter::scratch_bytes() const noexcept {
    return (probe_scratch_ ? probe_scratch_->held() : 0) + stage_scratch_.scratch_bytes();
}

void ScalableFilter::release_scratch() noexcept {
    if (probe_scratch_) probe_scratch_->release();
    stage_scratch_.release_scratch();
}

bool operator==(const ScalableFilter& a, const ScalableFilter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ && a.stages_remixed_ == b.stages_remixed_ &&
           a.sizes_ == b.sizes_ && a.stages_ == b.stages_;
}

}  // namespace batchbloom
