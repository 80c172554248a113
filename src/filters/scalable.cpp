#include "batchbloom/scalable.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "engine/engine.hpp"
#include "engine/machine.hpp"
#include "engine/parallel.hpp"
#include "engine/scratch.hpp"
#include "filters/key_forms.hpp"
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

/// out[j] = hash_key(h, keys[j]), on the engine's kernels.
template <class Key>
void hash_keys(const Hashing& h, const detail::BlockedKernels& kernels, std::span<const Key> keys, std::uint64_t* out) {
    detail::feed_keys(h, keys, [&](const std::uint64_t* k, std::size_t m, detail::KeyMode mode, std::size_t at) {
        kernels.hash(k, m, mode, out + at);
    });
}

}  // namespace

ScalableParams ScalableParams::for_total_fpr(std::uint64_t initial_capacity, double total_fpr, double growth,
                                             double tightening, Shape shape) {
    if (!(total_fpr > 0.0 && total_fpr < 1.0))
        throw Error("scalable filter: total FPR must be in (0, 1), got " + std::to_string(total_fpr));
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
        throw Error("scalable filter: initial FPR must be in (0, 1), got " + std::to_string(initial_fpr));
    if (!(growth >= 1.0 && std::isfinite(growth)))
        throw Error("scalable filter: growth factor must be >= 1, got " + std::to_string(growth));
    if (!(tightening > 0.0 && tightening < 1.0))
        throw Error("scalable filter: tightening ratio must be in (0, 1), got " + std::to_string(tightening));
    if (!layout::is_known(shape)) throw Error("scalable filter: unknown shape");
}

// Its cap is set by share_scratch, which every constructor calls (through add_stage).
struct ScalableFilter::Scratch : detail::BatchScratch {
    Scratch() : BatchScratch(0) {}
};

ScalableFilter::ScalableFilter(const ScalableParams& params, const Hashing& hashing, Backend backend)
    : params_(params), hashing_(hashing), backend_(backend), scratch_(std::make_unique<Scratch>()) {
    params_.validate();
    validate(hashing_);
    if (backend != Backend::automatic) resolve_backend(backend);  // throws if unavailable
    add_stage();
}

ScalableFilter::ScalableFilter(const ScalableParams& params, const Hashing& hashing, Backend backend,
                               const Params& first_stage)
    : params_(params), hashing_(hashing), backend_(backend), scratch_(std::make_unique<Scratch>()) {
    add_stage(first_stage);
}

ScalableFilter::ScalableFilter(const ScalableFilter& other)
    : params_(other.params_), hashing_(other.hashing_), backend_(other.backend_), threads_(other.threads_),
      key_kinds_(other.key_kinds_), stages_(other.stages_), sizes_(other.sizes_),
      stages_remixed_(other.stages_remixed_), scratch_(std::make_unique<Scratch>()),
      scratch_limit_(other.scratch_limit_) {
    share_scratch();  // the stages' copies each came with scratch of their own
}

ScalableFilter& ScalableFilter::operator=(const ScalableFilter& other) {
    if (this != &other) *this = ScalableFilter(other);
    return *this;
}

ScalableFilter::ScalableFilter(ScalableFilter&& other) noexcept
    : params_(other.params_), hashing_(other.hashing_), backend_(other.backend_), threads_(other.threads_),
      key_kinds_(std::exchange(other.key_kinds_, KeyKinds::none())), stages_(std::move(other.stages_)),
      sizes_(std::move(other.sizes_)), stages_remixed_(other.stages_remixed_), scratch_(std::move(other.scratch_)),
      scratch_limit_(other.scratch_limit_) {
    other.stages_.clear();  // a moved-from vector is only "valid": make it empty
    other.sizes_.clear();
}

ScalableFilter::~ScalableFilter() = default;

ScalableFilter& ScalableFilter::operator=(ScalableFilter&& other) noexcept {
    return detail::move_assign(*this, std::move(other));
}

void ScalableFilter::set_backend(Backend b) {
    for (auto& s : stages_) s.set_backend(b);
    backend_ = b;
}

void ScalableFilter::set_threads(unsigned threads) noexcept {
    for (auto& s : stages_) s.set_threads(threads);
    threads_ = threads;
}

std::uint64_t ScalableFilter::stage_capacity(std::size_t i) const { return detail::stage_capacity(params_, i); }
double ScalableFilter::stage_fpr(std::size_t i) const { return detail::stage_fpr(params_, i); }
Params ScalableFilter::stage_params(std::size_t i) const { return detail::stage_params(params_, i); }

void ScalableFilter::add_stage() { add_stage(stage_params(stages_.size())); }

void ScalableFilter::add_stage(const Params& params) {
    Filter f(params, hashing_, backend_);
    f.set_threads(threads_);
    stages_.push_back(std::move(f));
    sizes_.push_back(0);
    share_scratch();
}

void ScalableFilter::share_scratch() {
    const std::size_t half = scratch_limit_ ? *scratch_limit_ / 2 : detail::BatchScratch::default_limit(bytes());
    if (scratch_) scratch_->set_limit(scratch_limit_ ? *scratch_limit_ - half : half);
    for (Filter& s : stages_) s.scratch_ = stages_.front().scratch_;
    if (!stages_.empty()) stages_.front().set_scratch_limit(half);
}

void ScalableFilter::set_scratch_limit(std::size_t bytes) {
    scratch_limit_ = bytes;
    share_scratch();
}

std::size_t ScalableFilter::scratch_limit() const noexcept {
    return (scratch_ ? scratch_->limit() : 0) + (stages_.empty() ? 0 : stages_.front().scratch_limit());
}

template <class Key, bool Hashed>
void ScalableFilter::insert_keys(std::span<const Key> keys) {
    if (stages_.empty()) detail::throw_moved_from("insert");
    if constexpr (!Hashed) add_key_kinds(detail::kinds_of<Key>(keys.size()));
    const std::size_t total = keys.size();
    while (!keys.empty()) {
        if (sizes_.back() == stage_capacity(stages_.size() - 1)) {
            // Growth fails where a stage cannot be had: its FPR (initial x tightening^i) too small
            // to size, or no memory. The keys before it are in; the error says how many.
            try {
                add_stage();
            } catch (const Error& e) {
                throw Error("scalable filter: cannot add stage " + std::to_string(stages_.size()) +
                            " (initial FPR x tightening^" + std::to_string(stages_.size()) + "): " + e.what() + "; " +
                            std::to_string(total - keys.size()) + " of the batch's " + std::to_string(total) +
                            " keys were inserted, the others were not");
            }
        }
        const std::uint64_t room = stage_capacity(stages_.size() - 1) - sizes_.back();
        const std::size_t take = room < keys.size() ? static_cast<std::size_t>(room) : keys.size();
        insert_into_stage<Key, Hashed>(stages_.size() - 1, keys.first(take));
        sizes_.back() += take;
        keys = keys.subspan(take);
    }
}

template <class Key, bool Hashed>
void ScalableFilter::insert_into_stage(std::size_t i, std::span<const Key> keys) {
    Filter& stage = stages_[i];
    if (!stages_remixed_) {  // as such a file's stages were built: each takes the keys' own hashes
        if constexpr (Hashed)
            stage.insert_hashes(keys);
        else
            stage.insert(keys);
        return;
    }
    const detail::KeyMode mode = stage_mode(true, i);
    if constexpr (Hashed) {
        stage.insert_values(keys, mode);
    } else {
        stage.add_key_kinds(detail::kinds_of<Key>(keys.size()));
        // Hashes of up to 1M keys at a time, so that the stage's batch path still sees large
        // batches (and may partition them) at 8 MiB of memory.
        const auto& kernels = detail::blocked_kernels(backend_);
        const std::size_t chunk = std::min<std::size_t>(keys.size(), std::size_t(1) << 20);
        const auto hashes = std::make_unique_for_overwrite<std::uint64_t[]>(chunk);
        for (std::size_t b = 0; b < keys.size(); b += chunk) {
            const std::size_t n = std::min(chunk, keys.size() - b);
            hash_keys(hashing_, kernels, keys.subspan(b, n), hashes.get());
            stage.insert_values(std::span<const std::uint64_t>(hashes.get(), n), mode);
        }
    }
}

namespace {

/// dst[j] |= hits[j] for j < n; returns how many hits[j] are 1. Answers are 0 or 1 bytes, so
/// both are done eight at a time on 64-bit words: the count adds the words bytewise (a byte
/// sums at most 255 words before the lanes are folded).
std::size_t or_answers(std::uint8_t* dst, const std::uint8_t* hits, std::size_t n) {
    std::size_t found = 0, j = 0;
    const std::size_t words_end = n & ~std::size_t(7);
    while (j < words_end) {
        std::uint64_t sums = 0;
        for (const std::size_t end = std::min(words_end, j + 8 * 255); j < end; j += 8) {
            std::uint64_t h, d;
            std::memcpy(&h, hits + j, 8);
            std::memcpy(&d, dst + j, 8);
            d |= h;
            std::memcpy(dst + j, &d, 8);
            sums += h;
        }
        sums = (sums & 0x00FF00FF00FF00FFULL) + ((sums >> 8) & 0x00FF00FF00FF00FFULL);
        found += static_cast<std::size_t>((sums * 0x0001000100010001ULL) >> 48);
    }
    for (; j < n; ++j) {
        dst[j] |= hits[j];
        found += hits[j];
    }
    return found;
}

/// Compacts the `left` values still asked, from[0, left), into to[0, kept) (to may be from):
/// those whose answer in dst is still 0, with their positions in dst (position[j] already holds
/// value j's when `moved`, else j is its own). Returns kept.
std::size_t keep_unanswered(const std::uint64_t* from, std::uint64_t* to, std::uint32_t* position, bool moved,
                            const std::uint8_t* dst, std::size_t left) {
    std::size_t kept = 0;
    for (std::size_t j = 0; j < left; ++j) {
        const std::uint32_t p = moved ? position[j] : static_cast<std::uint32_t>(j);
        to[kept] = from[j];
        position[kept] = p;
        kept += dst[p] ^ 1u;
    }
    return kept;
}

/// ORs a stage's answers hits[0, m) into dst: at the positions pos[0, m) of compacted values,
/// or (pos null) into dst[0, m) in order. Returns how many it found.
std::size_t or_found(std::uint8_t* dst, const std::uint8_t* hits, const std::uint32_t* pos, std::size_t m) {
    if (pos == nullptr) return or_answers(dst, hits, m);
    std::size_t found = 0;
    for (std::size_t j = 0; j < m; ++j) {
        dst[pos[j]] |= hits[j];
        found += hits[j];
    }
    return found;
}

/// Memory of a stage-by-stage probe of n keys: the keys still asked and their positions in the
/// batch once compacted, and a stage's answers.
struct ByStage {
    static constexpr std::size_t bytes_per_key = sizeof(std::uint64_t) + sizeof(std::uint32_t) + 1;
    std::uint64_t* kept;
    std::uint32_t* position;
    std::uint8_t* hits;
    ByStage(std::byte* mem, std::size_t n)
        : kept(reinterpret_cast<std::uint64_t*>(mem)),
          position(reinterpret_cast<std::uint32_t*>(mem + n * sizeof(std::uint64_t))),
          hits(reinterpret_cast<std::uint8_t*>(mem + n * (sizeof(std::uint64_t) + sizeof(std::uint32_t)))) {}
};

/// Probes n 64-bit values stage by stage, newest first (stage 0 here): probe(s, values, m,
/// answers) asks stage s for m values at once, and the values some stage found are dropped
/// (compacted into m.kept, with their positions) by the chunked probe's rule
/// (ScalableFilter::contains_keys). dst: one answer per value. A stage's answers are ORed in
/// on t threads (the stages' own calls take theirs): on one, that pass was a serial part of
/// every stage.
template <class Probe>
void probe_by_stage(std::size_t stages, const std::uint64_t* values, std::size_t n, std::uint8_t* dst, const ByStage& m,
                    unsigned t, Probe&& probe) {
    probe(0, values, n, dst);
    const std::uint64_t* asked = values;
    bool moved = false;  // asked has been compacted (m.position holds where each value was)
    std::size_t left = n;
    auto found = static_cast<std::size_t>(std::count(dst, dst + n, 1));
    std::vector<std::size_t> found_by(t);
    for (std::size_t s = 1; s < stages; ++s) {
        if (found * (stages - s) >= left) {
            left = keep_unanswered(asked, m.kept, m.position, moved, dst, left);
            asked = m.kept;
            moved = true;
            found = 0;
            if (left == 0) return;
        }
        probe(s, asked, left, m.hits);
        // Each value's answer is its own byte of dst: the parts never write the same one.
        detail::each_thread(t, [&](unsigned v) {
            const detail::Range r = detail::part(left, t, v, 64);
            found_by[v] = or_found(moved ? dst : dst + r.begin, m.hits + r.begin, moved ? m.position + r.begin : nullptr,
                                   r.size());
        });
        for (const std::size_t f : found_by) found += f;
    }
}

}  // namespace

// Probes. The stages share the hashing, so each key is hashed once for all of them, a chunk
// of keys at a time. Then the stages are asked for the chunk one after the other, newest first
// (with growth 2 the newest holds about half the keys). A key some stage has found is not
// asked again: the keys left are compacted (hash and position) when that pays, i.e. when the
// keys found since the last compaction, times the stages still to ask, outnumber the keys left
// (a compaction pass costs about one probe per key; all-absent probes never pay for one, and
// OR each stage's answers in). Chunks of 16K keys keep the hashes in L2; chunks of 64K and 1M
// keys (each stage kept in cache over a longer run) measured no faster (bench/RESULTS.md).
// Threads split the batch (CPU engines). The stages are probed on the direct path: a chunk
// brings too few keys per cache line of a stage larger than the cache for the partitioned one.
// So a large batch of 64-bit values, where some stage would not take the direct path for it,
// goes stage by stage instead (scalable.hpp, scratch_bytes): each stage asked once for all the
// keys left, through its own batch path. Out of cache that took 36.9-44.3 ns/key where the
// chunked probe took 45.3-52.7 and the stages alone 40.2-52.5 (100M keys in 7 stages, 20M
// probes, 50% hits, one thread), but only with its 13 bytes per key kept between calls:
// allocated in each call, 38.0-58.3 (bench/RESULTS.md).
template <bool Hashed>
bool ScalableFilter::probe_by_stage_if_it_pays(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    constexpr std::size_t min_keys = std::size_t(1) << 17;  // below, every stage runs direct
    const std::size_t n = keys.size();
    if (n < min_keys || detail::blocked_kernels(backend_).backend == Backend::cuda || !scratch_) return false;
    if (std::all_of(stages_.begin(), stages_.end(),
                    [&](const Filter& s) { return s.batch_path_for(n, false) == BatchPath::direct; }))
        return false;
    // Parts of at most the cap, and few enough keys for 32-bit positions.
    const std::size_t cap = scratch_->limit() / ByStage::bytes_per_key;
    const std::size_t part = std::min<std::size_t>({n, cap, std::numeric_limits<std::uint32_t>::max()});
    if (part < min_keys) return false;
    detail::BatchScratch::Lease lease(scratch_.get(), 1);
    if (!lease) return false;  // another probe of this filter has it
    std::byte* mem = nullptr;
    try {
        mem = lease.arena(0).get(part * ByStage::bytes_per_key);
    } catch (const std::bad_alloc&) {
        return false;
    }
    const ByStage m(mem, part);
    const std::size_t last = stages_.size();
    const auto& kernels = detail::blocked_kernels(backend_);
    for (std::size_t b = 0; b < n; b += part) {
        const std::size_t len = std::min(part, n - b);
        const std::uint64_t* values = keys.data() + b;
        if constexpr (!Hashed) {  // hashed once for every stage, where the compaction keeps them
            hash_keys(hashing_, kernels, keys.subspan(b, len), m.kept);
            values = m.kept;
        }
        probe_by_stage(last, values, len, out.data() + b, m, detail::threads_for(len, detail::resolve_threads(threads_)),
                       [&](std::size_t s, const std::uint64_t* v, std::size_t count, std::uint8_t* answers) {
                           const std::size_t i = last - 1 - s;
                           stages_[i].contains_values(std::span<const std::uint64_t>(v, count),
                                                      stage_mode(stages_remixed_, i),
                                                      std::span<std::uint8_t>(answers, count));
                       });
    }
    return true;
}

template <class Key, bool Hashed>
void ScalableFilter::contains_keys(std::span<const Key> keys, std::span<std::uint8_t> out) const {
    if (keys.size() != out.size())
        throw Error("output has " + std::to_string(out.size()) + " entries for " + std::to_string(keys.size()) + " keys");
    if (stages_.empty()) {  // moved from
        std::fill(out.begin(), out.end(), std::uint8_t{0});
        return;
    }
    if (keys.empty()) return;
    const auto& kernels = detail::blocked_kernels(backend_);
    if constexpr (std::is_same_v<Key, std::uint64_t>)
        if (probe_by_stage_if_it_pays<Hashed>(keys, out)) return;
    // Newest first; probes only read the blocks. A stage larger than L2 is prefetched as the
    // batch layer prefetches any such filter (without, each of its keys waited on memory).
    const detail::Machine& machine = detail::machine();
    std::vector<detail::FilterRef> stages;
    for (auto s = stages_.rbegin(); s != stages_.rend(); ++s)
        stages.push_back({const_cast<std::byte*>(s->bytes().data()), s->params().blocks, s->params().shape,
                          s->params().k, s->bytes().size() > machine.l2_bytes ? machine.prefetch_distance : 0});
    const std::size_t last = stages.size();
    std::vector<detail::KeyMode> modes;  // newest first, as `stages`
    for (std::size_t s = 0; s < last; ++s) modes.push_back(stage_mode(stages_remixed_, last - 1 - s));
    // The CUDA engine moves each call's data to the device itself, from one host thread, so
    // it gets chunks of 1M keys at once, not L1-sized pieces (whose answers are ORed in while
    // in L1).
    const bool cuda = kernels.backend == Backend::cuda;
    const std::size_t chunk = cuda ? std::size_t(1) << 20 : std::size_t(1) << 14;
    const std::size_t piece = cuda ? chunk : 4096;
    const unsigned t = cuda ? 1u : detail::threads_for(keys.size(), detail::resolve_threads(threads_));
    detail::each_thread(t, [&](unsigned v) {
        const detail::Range range = detail::part(keys.size(), t, v, 1);
        const std::size_t scratch = std::min(chunk, range.size());
        // Not zeroed; position[] (in the chunk, of hashes[j] once compacted) only once keys
        // were found.
        const auto hash_buf = std::make_unique_for_overwrite<std::uint64_t[]>(scratch);
        std::unique_ptr<std::uint32_t[]> position_buf;
        const auto hit_buf = std::make_unique_for_overwrite<std::uint8_t[]>(std::min(piece, scratch));
        std::uint64_t* const hashes = hash_buf.get();
        std::uint32_t* position = nullptr;
        std::uint8_t* const hits = hit_buf.get();
        for (std::size_t begin = range.begin; begin < range.end; begin += chunk) {
            const std::size_t n = std::min(chunk, range.end - begin);
            std::uint8_t* const dst = out.data() + begin;
            if constexpr (Hashed) {
                std::copy_n(keys.data() + begin, n, hashes);
            } else {
                hash_keys(hashing_, kernels, keys.subspan(begin, n), hashes);
            }
            kernels.contains_bytes(stages[0], hashes, n, modes[0], dst);
            std::size_t left = n;  // keys still asked: hashes[0, left)
            bool moved = false;    // whether they have been compacted (position[] holds where they were)
            // Of the keys still asked, those found since the last compaction (or so many: a key
            // two stages found counts twice).
            auto found = static_cast<std::size_t>(std::count(dst, dst + n, 1));
            for (std::size_t s = 1; s < last; ++s) {
                if (found * (last - s) >= left) {
                    if (position == nullptr) {
                        position_buf = std::make_unique_for_overwrite<std::uint32_t[]>(scratch);
                        position = position_buf.get();
                    }
                    left = keep_unanswered(hashes, hashes, position, moved, dst, left);
                    moved = true;
                    found = 0;
                    if (left == 0) break;
                }
                for (std::size_t b = 0; b < left; b += piece) {
                    const std::size_t m = std::min(piece, left - b);
                    kernels.contains_bytes(stages[s], hashes + b, m, modes[s], hits);
                    found += or_found(moved ? dst : dst + b, hits, moved ? position + b : nullptr, m);
                }
            }
        }
    });
}

void ScalableFilter::insert_hashes(std::span<const std::uint64_t> hashes) { insert_keys<std::uint64_t, true>(hashes); }
void ScalableFilter::contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const {
    contains_keys<std::uint64_t, true>(hashes, out);
}

bool ScalableFilter::contains_hash(std::uint64_t hash) const {
    for (std::size_t i = stages_.size(); i-- > 0;)
        if (stages_[i].contains_hash(stage_hash(i, hash))) return true;
    return false;
}

bool ScalableFilter::contains(std::uint64_t key) const { return contains_hash(hash(key)); }
bool ScalableFilter::contains(std::string_view key) const { return contains_hash(hash(key)); }

template <class Key, bool Hashed>
std::size_t ScalableFilter::count_keys(std::span<const Key> keys) const {
    std::vector<std::uint8_t> out(keys.size());
    contains_keys<Key, Hashed>(keys, out);
    return std::accumulate(out.begin(), out.end(), std::size_t{0});
}

std::size_t ScalableFilter::count_hashes(std::span<const std::uint64_t> hashes) const {
    return count_keys<std::uint64_t, true>(hashes);
}

template class KeyForms<ScalableFilter>;

std::uint64_t ScalableFilter::size() const noexcept { return std::accumulate(sizes_.begin(), sizes_.end(), std::uint64_t{0}); }

double ScalableFilter::predicted_fpr() const {
    double sum = 0;
    for (std::size_t i = 0; i < stages_.size(); ++i) sum += batchbloom::predicted_fpr(stages_[i].params(), sizes_[i]);
    return sum;
}

std::uint64_t ScalableFilter::bytes() const noexcept {
    std::uint64_t b = 0;
    for (const auto& s : stages_) b += s.params().bytes();
    return b;
}

std::size_t ScalableFilter::scratch_bytes() const noexcept {
    std::size_t held = scratch_ ? scratch_->held() : 0;
    if (!stages_.empty()) held += stages_.front().scratch_bytes();  // every stage's
    return held;
}

void ScalableFilter::release_scratch() noexcept {
    if (scratch_) scratch_->release();
    if (!stages_.empty()) stages_.front().release_scratch();  // every stage's
}

bool operator==(const ScalableFilter& a, const ScalableFilter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ && a.stages_remixed_ == b.stages_remixed_ &&
           a.sizes_ == b.sizes_ && a.stages_ == b.stages_;
}

}  // namespace batchbloom
