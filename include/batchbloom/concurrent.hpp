#pragma once
// ConcurrentFilter: a view of a Filter that any number of caller threads may insert into and
// probe at the same time, without a lock. A query engine builds one join filter from many
// worker threads this way, each inserting its own morsel of the build side.
//
//     batchbloom::Filter f(params);
//     batchbloom::ConcurrentFilter view(f);
//     // on each worker thread:
//     view.insert(morsel);                 // lock-free; other threads insert and probe meanwhile
//     // after the workers are joined, f itself holds every key (and probes at full speed)
//
// How. An insert sets each word of the key's pattern with a relaxed atomic OR on the whole
// word (std::atomic_ref), skipped where the word already holds the pattern's bits; a probe
// reads each word with a relaxed atomic load. Bits are only ever set, and OR commutes, so the
// filter ends bit-identical to one built sequentially from the same keys, whatever the threads
// and their interleaving.
//
// The guarantee: a probe never misses a key whose insert returned before the probe started,
// "before" meaning that the insert's return happens-before the probe's start (the caller's
// threads synchronize somehow: a join, a mutex, a barrier, a release/acquire flag, a task
// queue). Why: every bit of the key was set by an atomic read-modify-write that happens-before
// the insert's return (the insert's own OR, or — where it skipped the OR — the OR whose result
// its relaxed load read, and that load happens-before the return). So each load of the probe
// happens after an operation that saw the bit set, and by coherence (the probe's load reads a
// value no earlier in the word's modification order than what an operation that happens-before
// it read or wrote) it reads that value or a later one; later values only add bits. A probe
// that overlaps an insert in time may or may not see that key, as with any concurrent set.
//
// Saving while other threads insert. The view's save, snapshot and saved_size calls may run
// while inserts are in flight: they read the words with relaxed atomic loads, a chunk at a
// time, and checksum the bytes they read, so the file always loads, and it holds every key
// whose insert returned before the save began (bits are only ever set; a key inserted during
// the save may or may not be in it). Filter::save would checksum one state of the words and
// write a later one: a file that fails its checksum.
//
// Only these calls may run concurrently with one another. The viewed Filter's own members
// (insert, contains, clear, |=, save, ...) must not run while a ConcurrentFilter call is in
// flight on another thread: they read and write the words without atomics. Once the threads
// have synchronized with the ones that inserted (joined them, say), every member of the Filter
// sees every key. The view holds a reference: the Filter must outlive it. A view of a moved-from
// Filter (filter.hpp, "After a move") finds no key, and its inserts throw Error.
//
// Every engine runs the scalar engine's concurrent kernels (atomic operations are per word;
// docs/architecture.md, "Engines"); they prefetch the blocks of the keys a few places ahead.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "filter.hpp"
#include "key_forms.hpp"

namespace batchbloom {

class ConcurrentFilter : public KeyForms<ConcurrentFilter>, public HashForms<ConcurrentFilter> {
public:
    explicit ConcurrentFilter(Filter& filter) noexcept : filter_(&filter) {}

    Filter& filter() const noexcept { return *filter_; }

    // ---- keys: inserts lock-free from any number of threads, probes safe while other threads
    // insert (insert, contains, count: KeyForms; of hashes: HashForms, key_forms.hpp). The
    // inserts record no key kinds: the filter's record is a plain value the threads would race
    // on (add_key_kinds on the filter, once they are done, records them).
    /// hash_key() of the filter's hashing, as Filter::hash.
    std::uint64_t hash(std::uint64_t key) const noexcept { return filter_->hash(key); }
    std::uint64_t hash(std::string_view key) const noexcept { return filter_->hash(key); }

    // ---- snapshots: safe while other threads insert (see above) --------------------------
    /// Bytes of the uncompressed file (64-byte header + blocks): what save(span) fills.
    std::size_t saved_size() const;
    /// Writes the file Filter::save writes (uncompressed) into `out`, exactly saved_size() bytes
    /// (else Error): the blocks first, a chunk at a time, then the header with their checksum.
    /// No memory beyond `out`.
    void save(std::span<std::byte> out) const;
    /// A copy of the filter, read the same way.
    Filter snapshot() const;
    /// The file of snapshot(), as Filter::save writes it (with SaveOptions' compression too).
    /// A stream needs the header, and so the checksum, before the blocks: these take the
    /// snapshot first, which costs the filter's size in memory once more for the call.
    void save(std::ostream& out, const SaveOptions& options = {}) const;
    void save(const std::filesystem::path& path, const SaveOptions& options = {}) const;

private:
    friend detail::Forms<ConcurrentFilter>;  // implements the bulk forms (key_forms.hpp)

    Filter* filter_;
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<ConcurrentFilter>;
extern template class HashForms<ConcurrentFilter>;

}  // namespace batchbloom
