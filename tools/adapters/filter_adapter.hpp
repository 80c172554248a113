#pragma once
// One adapter per filter type: what the commands need to build, open, probe, change, combine
// and describe a filter, behind one small interface. The commands (tools/commands) know only
// this header; each <type>_adapter.cpp knows its library class.
//
//   FilterFile   a filter in memory, opened from a file (open_filter_file) or made by build
//   FilterType   a value of `build --format`: its options, how it is sized and made
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/hash.hpp>
#include <batchbloom/key_kinds.hpp>
#include <batchbloom/params.hpp>

#include "common/args.hpp"
#include "common/key_input.hpp"

namespace batchbloom {
class Filter;
class CountingFilter;
class DeletableFilter;
class ScalableFilter;
class ClassicFilter;
}  // namespace batchbloom

namespace batchbloom::cli {

/// What an erase did, key by key.
struct EraseCounts {
    std::uint64_t erased = 0;
    std::uint64_t absent = 0;         ///< tested negative: certainly not in the filter
    std::uint64_t not_deletable = 0;  ///< deletable filters: every bit in a collided region
};

enum class SetOp { union_, intersection };

class FilterFile {
public:
    virtual ~FilterFile() = default;

    /// The `build --format` name of the type ("blocked", "counting", ..., "spark").
    virtual std::string type_name() const = 0;
    /// The key kinds the filter records as inserted (not recorded: files written before the
    /// record existed, Spark's format).
    virtual KeyKinds key_kinds() const = 0;
    /// Adds to the record (insert_hashes records nothing: the caller says what it hashed).
    virtual void add_key_kinds(const KeyKinds& kinds) = 0;

    /// out[i] |= 1 for every key i of `keys` that may be present (out.size() == keys.size).
    virtual void contains(const TypedKeys& keys, std::span<std::uint8_t> out) const = 0;
    /// Inserts the keys (every occurrence).
    virtual void insert(const TypedKeys& keys) = 0;
    /// Threads of the bulk calls (0: every core). Streaming inserts use one: a threaded insert
    /// may give each thread a private copy of the filter, a cost per call that batches of a
    /// streamed input do not repay.
    virtual void set_threads(unsigned threads) = 0;
    /// The 64-bit hashing keys go through, for types addressed by one hash per key (they then
    /// take insert_hashes); nullopt for types that hash keys their own way (classic).
    virtual std::optional<Hashing> key_hashing() const = 0;
    virtual void insert_hashes(std::span<const std::uint64_t> hashes);
    /// Whether the type can erase keys; erase throws, naming the type, where it cannot.
    virtual bool can_erase() const { return false; }
    /// Erases the keys in batch order.
    virtual EraseCounts erase(const TypedKeys& keys);

    /// The filter in its file format (for write_output).
    virtual void write(std::ostream& out) const = 0;
    /// `info`: a description on stdout.
    virtual void describe(const std::string& path) const = 0;

    /// Union or intersection with `other` in place. Throws (naming both types) unless both are
    /// of a type with set algebra and the same parameters.
    virtual void combine(SetOp op, const FilterFile& other);
    /// The filter at half its size. Throws for types that cannot fold.
    virtual std::unique_ptr<FilterFile> folded() const;

    /// For build's report and its overfill warning: whether the filter grows with its keys
    /// (then it cannot be overfilled), the FPR of an absent key against the bits as they are,
    /// the distinct keys estimated from the fill (infinity when full), and the FPR predicted
    /// for n distinct keys.
    virtual bool grows() const { return false; }
    virtual double current_fpr() const = 0;
    virtual double estimated_keys() const = 0;
    virtual double predicted_fpr(std::uint64_t n) const = 0;
    /// One line of layout for build's report ("123 blocks, k=7, 7872 bytes").
    virtual std::string layout() const = 0;
};

/// Opens any filter file (every batchbloom kind, or a Spark serialized filter), chosen by its
/// first bytes. Throws FormatError / Error naming the problem.
std::unique_ptr<FilterFile> open_filter_file(const std::filesystem::path& path);

struct FilterType {
    std::string_view name;  ///< the --format value
    /// Throws UsageError for options of `build` that do not apply to this type (its name).
    void (*check_options)(const ParsedArgs& args, std::string_view type);
    /// An empty filter sized for n keys from the options (--fpr / --bits-per-key, ...).
    std::unique_ptr<FilterFile> (*create)(const ParsedArgs& args, std::uint64_t n);
    /// The 64-bit hashing of the filter `create` makes, for types addressed by one hash per key
    /// (build then keeps hashes, not keys, while it counts them); nullptr for the others.
    Hashing (*key_hashing)(const ParsedArgs& args);
    /// Whether build inserts each distinct key once (otherwise every occurrence, streaming).
    bool distinct_keys;
    /// How build types text lines when --key-type is not given: string for the types whose
    /// file records the key kinds (a text line is the same key to every front end: Python's
    /// and C++'s strings are byte strings, so "007" built here is found from there), auto for
    /// Spark's form, which records nothing.
    KeyType default_key_type;
    /// For `size`: a line with this type's bytes for a blocked filter of params p, or nullptr.
    void (*print_size)(const Params& p, std::uint64_t n);
};

/// The --format option of build, and the type it names (UsageError if unknown).
OptionSpec format_option();
const FilterType& build_filter_type(const ParsedArgs& args);
std::span<const FilterType* const> filter_types();

// The types, one per adapter file.
extern const FilterType blocked_type, counting_type, deletable_type, scalable_type, classic_type, spark_type,
    spark_v1_type;

// The adapter of each loaded filter type (open_filter_file loads a file with batchbloom::load_any
// and picks one). `spark_form`: whether a classic filter came in Spark's form rather than
// batchbloom's (the form is the type's name).
std::unique_ptr<FilterFile> open_blocked(Filter f);
std::unique_ptr<FilterFile> open_counting(CountingFilter f);
std::unique_ptr<FilterFile> open_deletable(DeletableFilter f);
std::unique_ptr<FilterFile> open_scalable(ScalableFilter f);
std::unique_ptr<FilterFile> open_classic(ClassicFilter f, bool spark_form);

enum class KeyUse { probe, insert, erase };

/// How a command reads text keys against a filter file. --key-type when given; otherwise the
/// key kinds the filter records decide: only integers: auto; only strings, or none yet:
/// string; both: both for probes and inserts (a decimal line is tried as either, so a key
/// inserted by any front end is found) and a usage error for erase (erasing a key that was
/// never inserted can remove another); no record (Spark's form, files from before the record):
/// a decimal line is an error that asks for --key-type, since reading it either way would miss
/// the keys inserted the other way; other lines are strings.
class KeyTyping {
public:
    KeyTyping(const FilterFile& f, std::string path, const ParsedArgs& args, KeyUse use);
    KeyType type() const { return type_; }
    /// Call after split_keys with each batch (the refusal above).
    void check(const TypedKeys& keys) const;

private:
    KeyType type_ = KeyType::per_line;
    bool refuse_decimal_ = false;
    std::string path_;
};

}  // namespace batchbloom::cli
