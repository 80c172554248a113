#include "batch/scratch.hpp"

#include "batchbloom/batch_tuning.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "engine/machine.hpp"

namespace batchbloom::detail {

namespace {

/// The spare arenas' memory, smallest first.
class Spares {
    using Clock = std::chrono::steady_clock;

public:
    static Spares& get() {
        static Spares* s = new Spares;  // never destroyed: arenas of static filters outlive it otherwise
        return *s;
    }

    /// The smallest spare of `least` to `most` bytes, or an empty buffer.
    AlignedBuffer take(std::size_t least, std::size_t most) {
        const std::lock_guard lock(mutex_);
        last_ = Clock::now();
        const auto fit = std::find_if(held_.begin(), held_.end(), [&](const AlignedBuffer& b) { return b.size() >= least; });
        if (fit == held_.end() || fit->size() > most) return {};
        AlignedBuffer b = std::move(*fit);
        held_.erase(fit);
        bytes_.store(bytes_.load(std::memory_order_relaxed) - b.size(), std::memory_order_relaxed);
        return b;
    }

    /// Keeps b (moved from) if it fits under the cap; else b is left as it was.
    void give(AlignedBuffer&& b) noexcept {
        if (b.empty() || b.mapped() || b.size() > spare_cap) return;
        try {
            const std::lock_guard lock(mutex_);
            last_ = Clock::now();
            if (bytes_.load(std::memory_order_relaxed) + b.size() > spare_cap) return;  // left to its owner, who frees it
            const std::size_t size = b.size();
            const auto at = std::find_if(held_.begin(), held_.end(), [&](const AlignedBuffer& h) { return h.size() >= size; });
            held_.insert(at, std::move(b));
            bytes_.store(bytes_.load(std::memory_order_relaxed) + size, std::memory_order_relaxed);
        } catch (...) {  // no memory for the list (or a lock that failed): b is left to its owner
        }
    }

    bool release_idle(Clock::duration idle) noexcept {
        std::vector<AlignedBuffer> freed;  // freed outside the lock
        const std::lock_guard lock(mutex_);
        if (Clock::now() - last_ >= idle) {
            freed.swap(held_);
            bytes_.store(0, std::memory_order_relaxed);
        }
        return !held_.empty();
    }

    std::size_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }

private:
    std::mutex mutex_;
    std::vector<AlignedBuffer> held_;
    std::atomic<std::size_t> bytes_{0};  // read without the lock
    Clock::time_point last_{};
};

}  // namespace

std::size_t spare_bytes() noexcept { return Spares::get().bytes(); }

AlignedBuffer take_spare(std::size_t least, std::size_t most) { return Spares::get().take(least, most); }

void leave_spare(AlignedBuffer&& b) noexcept { Spares::get().give(std::move(b)); }

bool release_idle_spares(std::chrono::steady_clock::duration idle) noexcept {
    return spare_bytes() != 0 && Spares::get().release_idle(idle);
}

ScratchArena& ScratchArena::operator=(ScratchArena&& other) noexcept {
    if (this != &other) {
        leave_spare(std::move(buf_));
        buf_ = std::move(other.buf_);
    }
    return *this;
}

ScratchArena::~ScratchArena() { leave_spare(std::move(buf_)); }

std::byte* ScratchArena::get(std::size_t bytes, bool touch, std::size_t spare_most) {
    if (bytes <= buf_.size()) return buf_.data();
    leave_spare(std::move(buf_));
    buf_.reset();  // what the spares did not keep, freed before the new one is had
    buf_ = take_spare(bytes, std::max(bytes, spare_most));
    if (!buf_.empty()) return buf_.data();  // its pages are in
    buf_ = AlignedBuffer(bytes, AlignedBuffer::Init::uninitialized);
    // Its pages are faulted in now, in address order, rather than by the scatter's first
    // stores at random.
    constexpr std::size_t page = 4096;
    for (std::size_t at = 0; touch && at < bytes; at += page) static_cast<volatile std::byte*>(buf_.data())[at] = std::byte{0};
    return buf_.data();
}

std::size_t BatchScratch::default_limit(std::uint64_t filter_bytes) {
    const std::uint64_t floor = std::uint64_t(256) << 20;
    return static_cast<std::size_t>(std::max(floor, std::min(filter_bytes, machine().memory_bytes / 8)));
}

void BatchScratch::set_limit(std::size_t bytes) {
    limit_ = bytes;
    if (held() > limit_) release();
}

void BatchScratch::publish_held() noexcept {
    std::size_t total = 0;
    for (const auto& a : arenas_) total += a.bytes();
    held_.store(total, std::memory_order_relaxed);
}

void BatchScratch::release() {
    bool idle = false;
    if (!busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return;
    arenas_.clear();
    publish_held();
    busy_.store(false, std::memory_order_release);
}

BatchScratch::Lease::Lease(BatchScratch* s, unsigned threads) : s_(nullptr), threads_(threads) {
    bool idle = false;
    if (s == nullptr || !s->busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return;
    s_ = s;
    try {
        if (s->arenas_.size() < threads) s->arenas_.resize(threads);
    } catch (...) {
        s->busy_.store(false, std::memory_order_release);
        throw;
    }
    // Arenas a smaller share can no longer justify are given back before new ones grow.
    for (auto& a : s->arenas_)
        if (a.bytes() > per_thread()) a.release();
}

BatchScratch::Lease::~Lease() {
    if (s_ == nullptr) return;
    s_->publish_held();
    s_->busy_.store(false, std::memory_order_release);
}

}  // namespace batchbloom::detail

namespace batchbloom {

BatchTuning::BatchTuning(std::uint64_t filter_bytes)
    : scratch_(std::make_shared<detail::BatchScratch>(detail::BatchScratch::default_limit(filter_bytes))) {}

// A copy of a moved-from filter (no scratch) gets the cap of an empty filter.
BatchTuning::BatchTuning(const BatchTuning& other)
    : path_(other.path_),
      scratch_(std::make_shared<detail::BatchScratch>(other.scratch_ ? other.scratch_->limit()
                                                                     : detail::BatchScratch::default_limit(0))) {}

BatchTuning::BatchTuning(BatchTuning&& other) noexcept : path_(other.path_), scratch_(std::move(other.scratch_)) {}

BatchTuning::~BatchTuning() = default;

void BatchTuning::set_scratch_limit(std::size_t bytes) {
    if (scratch_) scratch_->set_limit(bytes);
}
std::size_t BatchTuning::scratch_limit() const noexcept { return scratch_ ? scratch_->limit() : 0; }
std::size_t BatchTuning::scratch_bytes() const noexcept { return scratch_ ? scratch_->held() : 0; }
void BatchTuning::release_scratch() noexcept {
    if (scratch_) scratch_->release();
}
void BatchTuning::share_scratch_with(const BatchTuning& other) noexcept {
    if (scratch_ && other.scratch_) scratch_ = other.scratch_;
}

}  // namespace batchbloom
