// The engine registry: which engine's kernels run for each filter type under each backend,
// the same rule for every type (engine.hpp), and the table in docs/architecture.md generated
// from the registry itself.
#include <gtest/gtest.h>

#include <batchbloom/batchbloom.hpp>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace bb = batchbloom;
using bb::Backend;
using bb::detail::KernelTable;

namespace {

const KernelTable all_types[] = {KernelTable::blocked, KernelTable::concurrent, KernelTable::counting, KernelTable::deletable,
                                KernelTable::classic};
const Backend all_backends[] = {Backend::scalar, Backend::avx2, Backend::avx512, Backend::cuda};

bool available(Backend b) {
    const auto names = bb::available_backends();
    return std::find(names.begin(), names.end(), std::string(bb::to_string(b))) != names.end();
}

const bb::detail::Engine* registered(Backend b) {
    for (const auto* e : bb::detail::engines())
        if (e->backend == b) return e;
    return nullptr;
}

bool has_kernels(const bb::detail::Engine& e, KernelTable t) {
    switch (t) {
        case KernelTable::blocked: return e.blocked != nullptr;
        case KernelTable::concurrent: return e.concurrent != nullptr;
        case KernelTable::counting: return e.counting != nullptr;
        case KernelTable::deletable: return e.deletable != nullptr;
        case KernelTable::classic: return e.classic != nullptr;
    }
    return false;
}

/// The rule of engine.hpp, written out independently of the registry's code: the engine's own
/// kernels, else the best available CPU engine ranked below it (any CPU engine below cuda).
Backend expected(KernelTable t, Backend b) {
    const auto* asked = registered(b);
    if (has_kernels(*asked, t)) return b;
    const std::vector<Backend> cpu_rank{Backend::avx512, Backend::avx2, Backend::scalar};
    auto from = b == Backend::cuda ? cpu_rank.begin() : std::find(cpu_rank.begin(), cpu_rank.end(), b) + 1;
    for (auto it = from; it != cpu_rank.end(); ++it)
        if (available(*it) && has_kernels(*registered(*it), t)) return *it;
    return Backend::scalar;
}

// Sets the backend on one filter of each type (the way each type takes it).
const std::vector<std::pair<std::string, std::function<void(Backend)>>>& setters() {
    static const std::vector<std::pair<std::string, std::function<void(Backend)>>> s = {
        {"Filter", [](Backend b) { bb::Filter(bb::Params::for_fpr(100, 0.01)).set_backend(b); }},
        {"CountingFilter", [](Backend b) { bb::CountingFilter(bb::Params::for_fpr(100, 0.01)).set_backend(b); }},
        {"DeletableFilter", [](Backend b) { bb::DeletableFilter(bb::Params::for_fpr(100, 0.01)).set_backend(b); }},
        {"ClassicFilter", [](Backend b) { bb::ClassicFilter(bb::ClassicParams::for_fpr(100, 0.01)).set_backend(b); }},
        {"ScalableFilter",
         [](Backend b) {
             bb::ScalableParams p;
             p.initial_capacity = 100;
             bb::ScalableFilter(p).set_backend(b);
         }},
        {"JoinFilter",
         [](Backend b) {
             const std::uint64_t keys[] = {1, 2, 3};
             bb::JoinFilterOptions o;
             o.backend = b;
             bb::JoinFilter(std::span<const std::uint64_t>(keys), o);
         }},
    };
    return s;
}

}  // namespace

TEST(Registry, KernelsPerFilterTypeFollowOneRule) {
    for (const Backend b : all_backends) {
        if (!available(b)) continue;
        for (const KernelTable t : all_types) {
            SCOPED_TRACE(std::string(bb::to_string(b)) + ", filter type " + std::to_string(int(t)));
            EXPECT_EQ(bb::detail::kernels_engine(t, b), expected(t, b));
        }
        // The tables handed to the filters are the ones of the engine the rule names.
        EXPECT_EQ(bb::detail::blocked_kernels(b).backend, expected(KernelTable::blocked, b));
        EXPECT_EQ(bb::detail::concurrent_kernels(b).backend, expected(KernelTable::concurrent, b));
        EXPECT_EQ(bb::detail::counting_kernels(b).backend, expected(KernelTable::counting, b));
        EXPECT_EQ(bb::detail::deletable_kernels(b).backend, expected(KernelTable::deletable, b));
        EXPECT_EQ(bb::detail::classic_kernels(b).backend, expected(KernelTable::classic, b));
    }
}

// What runs on this machine, spelled out: a regression here means an engine gained or lost
// kernels, and docs/architecture.md must say so.
TEST(Registry, WhatRunsWhere) {
    using bb::detail::kernels_engine;
    EXPECT_EQ(kernels_engine(KernelTable::blocked, Backend::scalar), Backend::scalar);
    EXPECT_EQ(kernels_engine(KernelTable::counting, Backend::scalar), Backend::scalar);
    for (const KernelTable t : {KernelTable::concurrent, KernelTable::deletable, KernelTable::classic})
        for (const Backend b : all_backends)
            if (available(b)) {
                EXPECT_EQ(kernels_engine(t, b), Backend::scalar);
            }
    if (available(Backend::avx2)) {
        EXPECT_EQ(kernels_engine(KernelTable::blocked, Backend::avx2), Backend::avx2);
        EXPECT_EQ(kernels_engine(KernelTable::counting, Backend::avx2), Backend::avx2);
    }
    if (available(Backend::avx512)) {
        EXPECT_EQ(kernels_engine(KernelTable::blocked, Backend::avx512), Backend::avx512);
        EXPECT_EQ(kernels_engine(KernelTable::counting, Backend::avx512), Backend::avx2);
    }
    if (available(Backend::cuda)) {
        EXPECT_EQ(kernels_engine(KernelTable::blocked, Backend::cuda), Backend::cuda);
        EXPECT_EQ(kernels_engine(KernelTable::counting, Backend::cuda),
                  available(Backend::avx2) ? Backend::avx2 : Backend::scalar);
    }
    // automatic never means cuda, and follows BATCHBLOOM_BACKEND like every filter type.
    if (std::getenv("BATCHBLOOM_BACKEND") == nullptr) {
        EXPECT_EQ(kernels_engine(KernelTable::blocked, Backend::automatic), bb::resolve_backend(Backend::automatic));
    }
}

// An engine this machine cannot run is an Error for every filter type, with the same message;
// one it can run is accepted by every filter type.
TEST(Registry, UnavailableEngineIsTheSameErrorEverywhere) {
    for (const Backend b : all_backends) {
        std::string first_message;
        for (const auto& [type, set] : setters()) {
            SCOPED_TRACE(type + " " + std::string(bb::to_string(b)));
            if (available(b)) {
                if (b == Backend::cuda && type == "JoinFilter") continue;  // builds a GPU copy
                EXPECT_NO_THROW(set(b));
                continue;
            }
            try {
                set(b);
                ADD_FAILURE() << "no error";
            } catch (const bb::Error& e) {
                const std::string m = e.what();
                EXPECT_NE(m.find(std::string(bb::to_string(b))), std::string::npos) << m;
                if (first_message.empty()) first_message = m;
                EXPECT_EQ(m, first_message);
            }
        }
    }
}

// docs/architecture.md holds the engine x filter type table between two markers; it must be
// the table this build's registry implies (rows for the engines built here).
TEST(Registry, DocumentedTableMatchesTheRegistry) {
    const char* names[] = {"blocked", "concurrent", "counting", "deletable", "classic"};
    std::ifstream doc(std::string(BATCHBLOOM_SOURCE_DIR) + "/docs/architecture.md");
    ASSERT_TRUE(doc) << "docs/architecture.md not found";
    std::stringstream text;
    text << doc.rdbuf();
    const std::string all = text.str();
    for (const auto* e : bb::detail::engines()) {
        std::string row = "| ";
        row += e->name;
        row += " |";
        for (const KernelTable t : all_types) {
            if (has_kernels(*e, t)) {
                row += " own |";
                continue;
            }
            // The fallback on a CPU with every engine of this build.
            const std::vector<Backend> cpu_rank{Backend::avx512, Backend::avx2, Backend::scalar};
            auto from = e->cpu ? std::find(cpu_rank.begin(), cpu_rank.end(), e->backend) + 1 : cpu_rank.begin();
            for (auto it = from; it != cpu_rank.end(); ++it)
                if (const auto* f = registered(*it); f != nullptr && has_kernels(*f, t)) {
                    row += ' ';
                    row += f->name;
                    row += " |";
                    break;
                }
        }
        EXPECT_NE(all.find(row), std::string::npos)
            << "docs/architecture.md lacks the row\n"
            << row << "\n(columns: engine, " << names[0] << ", " << names[1] << ", " << names[2] << ", " << names[3]
            << ", " << names[4] << ")";
    }
}
