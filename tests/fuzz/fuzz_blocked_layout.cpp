// libFuzzer target for the readers of the blocked-layout types (counting, deletable, scalable):
// CountingFilter::load, DeletableFilter::load and ScalableFilter::load (one file format,
// src/format/file_header.hpp; the kind byte says which class a file belongs to). Every input
// goes to all three loaders; each must refuse the other kinds.
//
// Checked on every input, and again with its checksums recomputed (fuzz::resealed), for each
// loader:
//   * load returns a filter or throws batchbloom::Error; a seekable and an unseekable stream
//     over the same bytes agree (accepted or not, the same filter, the same bytes consumed);
//   * at most one of the three loaders accepts the input;
//   * an accepted filter re-saves to exactly the bytes it was read from, which load back equal;
//   * load_any accepts the input exactly when the loader accepts all of it, as the same filter;
//   * an accepted filter answers probes (bulk and single-key agree), and keys inserted into it
//     are then found (and, in a counting filter, can be erased again).
#include <string>

#include "fuzz_common.hpp"

namespace fuzz {

using batchbloom::CountingFilter;
using batchbloom::DeletableFilter;
using batchbloom::ScalableFilter;

void write_seeds(const std::filesystem::path& dir) {
    auto fill = [](auto& f, unsigned keys, unsigned variant) {
        for (unsigned i = 0; i < keys; ++i) {
            if (variant % 3 != 1) f.insert(std::uint64_t{i} * 0x9E3779B97F4A7C15ULL);
            if (variant % 3 != 0) f.insert(std::string_view("key" + std::to_string(i)));
        }
    };
    {
        CountingFilter a(Params::make(Shape::word512, 1, 8));
        CountingFilter b(Params::make(Shape::split256, 2, 8), {HashKind::murmur3, 7});
        fill(b, 12, 0);
        CountingFilter c(Params::make(Shape::line512, 1, 4), {HashKind::xxh3, 0xABCDEF});
        fill(c, 300, 2);  // saturates counters
        write_seed(dir, "counting-0.bbf", saved(a));
        write_seed(dir, "counting-1.bbf", saved(b));
        write_seed(dir, "counting-2.bbf", saved(c));
    }
    {
        DeletableFilter a(Params::make(Shape::word512, 1, 8));
        DeletableFilter b(Params::make(Shape::split256, 2, 6), 32, {HashKind::murmur3, 3});
        fill(b, 20, 1);
        DeletableFilter c(Params::make(Shape::line512, 1, 8), 1, {HashKind::xxh3, 99});
        fill(c, 10, 2);
        write_seed(dir, "deletable-0.bbf", saved(a));
        write_seed(dir, "deletable-1.bbf", saved(b));
        write_seed(dir, "deletable-2.bbf", saved(c));
    }
    {
        batchbloom::ScalableParams p;
        p.initial_capacity = 8;
        ScalableFilter a(p);
        p.initial_capacity = 4;
        p.growth = 1.5;
        p.tightening = 0.5;
        p.shape = Shape::split256;
        ScalableFilter b(p, {HashKind::murmur3, 11});
        fill(b, 40, 0);  // several stages
        write_seed(dir, "scalable-0.bbf", saved(a));
        write_seed(dir, "scalable-1.bbf", saved(b));
    }
}

namespace {

template <class T>
std::optional<T> check_kind(std::string_view input, const std::optional<batchbloom::AnyFilter>& any, const char* what) {
    auto a = load_both_ways<T>(input, what, [](std::istream& in) { return T::load(in); });
    check_load_any(any, a.filter, input, a.consumed);
    if (a.filter) {
        check_round_trip(*a.filter, input, a.consumed, what);
        check_probes_and_inserts(*a.filter);
    }
    return std::move(a.filter);
}

void check(std::string_view input) {
    const auto any = load_any_of(input);
    int accepted = 0;
    if (auto c = check_kind<CountingFilter>(input, any, "CountingFilter::load")) {
        ++accepted;
        (void)c->saturated_counters();
        (void)c->to_filter();
        for (std::uint64_t k : int_keys) c->insert(k);
        for (std::uint64_t k : int_keys)
            if (!c->erase(k)) fail("a counting filter refuses to erase a key just inserted");
    }
    if (auto d = check_kind<DeletableFilter>(input, any, "DeletableFilter::load")) {
        ++accepted;
        for (std::uint64_t k : int_keys) d->insert(k);
        for (std::uint64_t k : int_keys) (void)d->erase(k);
    }
    if (const auto s = check_kind<ScalableFilter>(input, any, "ScalableFilter::load")) {
        ++accepted;
        (void)s->predicted_fpr();
        (void)s->size();
    }
    if (accepted > 1) fail("more than one loader of the blocked-layout types accepts the same bytes");
}

}  // namespace

void fuzz_one(std::string_view input) {
    check(input);
    if (const auto sealed = resealed(input)) check(*sealed);
}

}  // namespace fuzz
