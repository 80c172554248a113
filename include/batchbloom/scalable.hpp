#pragma once
// Scalable Bloom filter (Almeida, Baquero, Preguiça, Hutchison 2007): a filter that grows.
//
// It starts as one blocked Filter sized for `initial_capacity` keys at `initial_fpr`. Stage i
// is sized (by the blocked-filter model, Params::for_fpr) for initial_capacity * growth^i keys
// at initial_fpr * tightening^i. A key is inserted into the newest stage only; a probe hashes it
// once and asks the stages, newest first, until one has it.
//
// The newest stage closes, and the next key starts a new stage, when it has taken its
// capacity or, before that, when one more key would put its FPR above its target, measured
// from its bits: the mean over its blocks of the chance that all of a random probe's bits are
// set there. Keys spread over a stage's blocks as the model expects close it at its capacity
// (or a few keys short of it, as the blocks' fill varies); keys that crowd into few blocks (an
// order that follows the stage's hash, which anyone can compute where the seeds are the
// defaults) close it early instead of pushing its FPR past the target. So each stage's FPR
// stays at or below its target, and the FPR of the whole at or below their sum (union bound):
//
//     initial_fpr * (1 + r + r^2 + ...) = initial_fpr / (1 - tightening)   (fpr_bound()),
//
// for keys inserted in any order, streamed or in batches, duplicates included. What the
// promise assumes: probes (the keys asked for that were never inserted) chosen without
// knowledge of the hash seeds. An adversary who knows the seeds can always find false positives
// (keys whose bits happen to be set); who fears one sets a secret seed (Hashing).
//
// Every key handed to insert counts against the newest stage's capacity, duplicates
// included: a filter cannot tell a repeat from a false positive without probing every stage
// first. A repeat sets no bits, so it never closes a stage early. All stages share the hashing.
//
// To ask for the FPR of the whole instead of the first stage's, use
// ScalableParams::for_total_fpr (as the CLI's --fpr and Python's fpr= do).
//
// Keys go into a stage one at a time on the scalar layout code (each block's FPR is read before
// and after the key), whatever the backend: inserts run at the scalar engine's speed on one
// thread. Adding a stage sizes it with Params::for_fpr, which takes milliseconds (a search over k
// and the block count under the blocked-filter model): with a small initial capacity that, not
// the inserts, dominates the cost of growing.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"
#include "bulk_settings.hpp"
#include "error.hpp"
#include "filter.hpp"
#include "hash.hpp"
#include "key_forms.hpp"
#include "key_kinds.hpp"
#include "params.hpp"

namespace batchbloom {

struct ScalableParams {
    std::uint64_t initial_capacity = 0;  ///< keys of the first stage, >= 1
    double initial_fpr = 0.01;           ///< FPR of the first stage at capacity, in (0, 1)
    double growth = 2.0;                 ///< capacity factor per stage ("s"), >= 1
    double tightening = 0.85;            ///< FPR factor per stage ("r"), in (0, 1)
    Shape shape = Shape::word512;

    /// Params whose whole filter stays at or below `total_fpr` at any size: the first stage
    /// gets total_fpr * (1 - tightening), the largest initial FPR whose fpr_bound() is still
    /// <= total_fpr. Throws Error on invalid arguments (as validate()).
    static ScalableParams for_total_fpr(std::uint64_t initial_capacity, double total_fpr, double growth = 2.0,
                                        double tightening = 0.85, Shape shape = Shape::word512);

    /// Throws Error naming the first invalid field.
    void validate() const;
    friend bool operator==(const ScalableParams&, const ScalableParams&) = default;
};

/// Engines and threads (BulkSettings): the engine hashes the keys of every bulk call and runs
/// the probes, on the threads set; inserts place the bits on the scalar layout code, on the
/// calling thread (above). The stages are Filters of a Filter's default settings: this filter's
/// calls take this filter's settings.
class ScalableFilter : public KeyForms<ScalableFilter>, public HashForms<ScalableFilter>, public BulkSettings {
public:
    /// The first stage is allocated at once. Throws Error on invalid params or hashing.
    explicit ScalableFilter(const ScalableParams& params, const Hashing& hashing = {},
                            Backend backend = Backend::automatic);

    /// A copy has scratch of its own (none held yet) and the same scratch limit.
    ScalableFilter(const ScalableFilter& other);
    ScalableFilter& operator=(const ScalableFilter& other);
    /// A moved-from scalable filter is empty, as a moved-from Filter is (filter.hpp, "After a
    /// move"): no stages, size() 0, bytes() 0; probes answer 0, predicted_fpr() is 0; insert
    /// and save throw Error.
    ScalableFilter(ScalableFilter&& other) noexcept;
    ScalableFilter& operator=(ScalableFilter&& other) noexcept;
    ~ScalableFilter();

    const ScalableParams& params() const noexcept { return params_; }
    const Hashing& hashing() const noexcept { return hashing_; }

    // ---- keys (insert, contains, count: KeyForms, key_forms.hpp) -------------------------
    // An insert throws Error if the filter would need more than 64 stages (or a stage beyond
    // Params::for_fpr's limits); the keys before that point are inserted. A key may be present
    // if it may be present in any stage.

    // ---- pre-computed hashes (hash_key() of this filter's hashing; HashForms, key_forms.hpp)
    std::uint64_t hash(std::uint64_t key) const noexcept { return hash_key(hashing_, key); }
    std::uint64_t hash(std::string_view key) const noexcept { return hash_key(hashing_, key); }

    /// The kinds of keys inserted (key_kinds.hpp; as Filter). Saved for the whole filter: the
    /// stages of a loaded filter all report it.
    KeyKinds key_kinds() const noexcept { return key_kinds_; }
    /// For keys inserted as hashes (insert_hashes records nothing).
    void add_key_kinds(const KeyKinds& kinds) noexcept { key_kinds_ = key_kinds_ | kinds; }

    /// Keys inserted so far (duplicates included).
    std::uint64_t size() const noexcept;
    /// The stages, oldest first, and the keys each took. Stage i holds stage_hash(i, hash) for
    /// each key's hash, not the hash itself: ask it with stages()[i].contains_hash(stage_hash(i,
    /// hash(key))).
    const std::vector<Filter>& stages() const noexcept { return stages_; }
    /// What stage i is asked for a key of hash `hash`: mix64(hash, a seed of the stage's own,
    /// 0xA0761D6478BD642F * (i + 1)), so that no order of the keys places a stage's keys in a
    /// narrow range of its blocks (keys sorted by hash would otherwise fill the first stage's
    /// first blocks only). A filter saved before stages were remixed (docs/format.md, "Payloads", the scalable row)
    /// loads with stage_hash(i, h) == h, as it was built.
    std::uint64_t stage_hash(std::size_t i, std::uint64_t hash) const noexcept {
        return stages_remixed_ ? mix64(hash, stage_seed(i)) : hash;
    }
    static constexpr std::uint64_t stage_seed(std::size_t i) noexcept { return 0xA0761D6478BD642FULL * (i + 1); }
    const std::vector<std::uint64_t>& stage_sizes() const noexcept { return sizes_; }
    /// Capacity and target FPR of stage i, allocated or not; stage_capacity throws Error for
    /// i >= 64.
    std::uint64_t stage_capacity(std::size_t i) const;
    double stage_fpr(std::size_t i) const;
    /// initial_fpr / (1 - tightening): the bound on the FPR at any size.
    double fpr_bound() const noexcept { return params_.initial_fpr / (1.0 - params_.tightening); }
    /// Sum over stages of the blocked model's FPR at each stage's current load, or the target
    /// of a stage closed short of its capacity (it closed on its measured FPR): the union bound
    /// of the compound FPR, now.
    double predicted_fpr() const;
    /// Bytes of all stages.
    std::uint64_t bytes() const noexcept;

    /// A large batch of 64-bit keys or hashes (from 128K) against stages some of which are
    /// larger than the cache is probed stage by stage: each stage is asked at once for every
    /// key no newer stage has found, through its own batch path (which may partition the
    /// batch, as Filter does), rather than chunk by chunk on the direct path. The keys still
    /// unanswered are kept in scratch memory between calls (13 bytes per key, at most its half
    /// of scratch_limit(); a larger batch goes in parts), taken by one probe at a time: a
    /// concurrent probe of the same filter goes chunk by chunk. The stages' partitioned path
    /// (Filter::set_scratch_limit) works in one scratch they all share, since they are asked one
    /// at a time: it holds what the largest call needs, not the sum of every stage's.
    /// Bytes held by the two, as of the end of the last calls that used them.
    std::size_t scratch_bytes() const noexcept;
    /// Gives both back (the next calls that need them allocate them again).
    void release_scratch() noexcept;
    /// The most the two may hold together, half each: the probe's keys of a part, the stages'
    /// partitioned rounds (a round too small to pay runs direct, and a part too small for a
    /// stage-by-stage probe goes chunk by chunk; 0: neither ever holds any). By default each
    /// half is Filter's default cap for a filter of bytes(), growing as stages are added; a
    /// limit set stays as set. Lowering it below what is held gives the excess back.
    void set_scratch_limit(std::size_t bytes);
    std::size_t scratch_limit() const noexcept;

    friend bool operator==(const ScalableFilter& a, const ScalableFilter& b) noexcept;

    // ---- persistence (the blocked layout's file format, kind "scalable") -------------------------
    void save(std::ostream& out) const;
    void save(const std::filesystem::path& path) const;  ///< atomic
    /// Checks that every stage is the one the params imply; throws FormatError otherwise.
    static ScalableFilter load(std::istream& in);
    static ScalableFilter load(const std::filesystem::path& path);

private:
    friend detail::Forms<ScalableFilter>;  // implements the bulk forms (key_forms.hpp)
    /// For load(): params validated and the first stage sized already.
    ScalableFilter(const ScalableParams& params, const Hashing& hashing, const Params& first_stage);
    Params stage_params(std::size_t i) const;
    void add_stage();
    void add_stage(const Params& params);
    /// Sets the two scratches' caps (set_scratch_limit) and has every stage share stage_scratch_.
    void size_scratch();

    ScalableParams params_;
    Hashing hashing_;
    KeyKinds key_kinds_ = KeyKinds::none();
    std::vector<Filter> stages_;
    std::vector<std::uint64_t> sizes_;  // keys inserted into each stage
    bool stages_remixed_ = true;        // stage_hash; false only for files saved before it
    // The newest stage refused a key (its measured FPR is at its target), so the next key
    // starts a stage; set only between that key and the stage added for it (which an error
    // adding it can leave pending), so never saved.
    bool newest_closed_ = false;
    // Stage newest_fpr_stage_'s sum of block FPRs from its bits (insert_into_stage); recomputed
    // from the bits whenever another stage (or none yet: a new or loaded filter) is newest.
    double newest_fpr_sum_ = 0.0;
    std::size_t newest_fpr_stage_ = static_cast<std::size_t>(-1);

    /// The scratch every stage's batch path works in (the stages are asked one at a time):
    /// each stage shares it (BatchTuning::share_scratch_with).
    struct StageScratch : BatchTuning {
        StageScratch() : BatchTuning(0) {}
        using BatchTuning::scratch;
    };
    /// The stage-by-stage probe's memory. Every constructor makes its own, a copy's included;
    /// null only when moved from.
    std::unique_ptr<detail::BatchScratch> probe_scratch_;
    StageScratch stage_scratch_;
    std::optional<std::size_t> scratch_limit_;  // set_scratch_limit's, if called
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<ScalableFilter>;
extern template class HashForms<ScalableFilter>;

}  // namespace batchbloom
