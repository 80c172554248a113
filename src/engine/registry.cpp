// The engine registry: every engine in priority order, each with the check that says whether
// this machine can run it and its kernels per filter type (engine.hpp); which engine
// `automatic` means (BATCHBLOOM_BACKEND overrides it), and which kernels run for a filter type.
#include <array>
#include <string>

#include "batchbloom/bulk_settings.hpp"
#include "batchbloom/error.hpp"
#include "core/enum_names.hpp"
#include "core/environment.hpp"
#include "engine/engine.hpp"
#if BATCHBLOOM_HAVE_CUDA
#include "batchbloom/cuda.hpp"
#endif

namespace batchbloom {
namespace detail {
namespace {

// Best first.
constexpr std::array registry{
#if BATCHBLOOM_HAVE_AVX512
    &avx512_engine,
#endif
#if BATCHBLOOM_HAVE_SIMD
    &avx2_engine,
#endif
#if BATCHBLOOM_HAVE_CUDA
    &cuda_engine,
#endif
    &scalar_engine,
};

const Engine* find(Backend b) {
    for (const Engine* e : registry)
        if (e->backend == b) return e;
    return nullptr;
}

}  // namespace

// Why an engine cannot run here, in words a user can act on.
std::string unavailable_reason(Backend b, const Engine* e) {
    switch (b) {
        case Backend::cuda:
#if BATCHBLOOM_HAVE_CUDA
            return cuda_unavailable_reason();
#else
            return "this build has no CUDA engine (configure with nvcc on the PATH and -DBATCHBLOOM_CUDA=AUTO or ON)";
#endif
        case Backend::avx2:
        case Backend::avx512:
            if (e != nullptr) return "this CPU (or its operating system) does not support " + std::string(to_string(b));
            return BATCHBLOOM_HAVE_SIMD ? "this build has no AVX-512 engine (-DBATCHBLOOM_AVX512=ON)"
                                        : "this build has no SIMD engines (-DBATCHBLOOM_SIMD=ON on x86-64)";
        default:
            return "not an engine";
    }
}

std::span<const Engine* const> engines() { return registry; }

const Engine& engine_for(Backend resolved) {
    const Engine* e = find(resolved);
    if (e == nullptr || !e->supported()) {
        std::string avail;
        for (const auto& n : available_backends()) avail += (avail.empty() ? "" : ", ") + n;
        throw Error("backend '" + std::string(to_string(resolved)) + "' is not available: " +
                    unavailable_reason(resolved, e) + " (available: " + avail + ")");
    }
    return *e;
}

namespace {

/// The engine whose `Kernels` run when `requested` is asked for (the rule in engine.hpp).
/// The registry is ordered best first, so "ranked below" is "later in it".
template <class Kernels>
const Engine& running(Backend requested, const Kernels* Engine::*kernels) {
    const Engine& asked = engine_for(resolve_backend(requested));
    if (asked.*kernels != nullptr) return asked;
    bool below = !asked.cpu;  // a non-CPU engine falls back to the best CPU engine
    for (const Engine* e : registry) {
        if (below && e->cpu && e->*kernels != nullptr && e->supported()) return *e;
        below = below || e == &asked;
    }
    return scalar_engine;  // unreachable: the scalar engine has every kernel
}

}  // namespace

const BlockedKernels& blocked_kernels(Backend b) { return *running(b, &Engine::blocked).blocked; }
const ConcurrentKernels& concurrent_kernels(Backend b) { return *running(b, &Engine::concurrent).concurrent; }
const CountingKernels& counting_kernels(Backend b) { return *running(b, &Engine::counting).counting; }
const DeletableKernels& deletable_kernels(Backend b) { return *running(b, &Engine::deletable).deletable; }
const ClassicKernels& classic_kernels(Backend b) { return *running(b, &Engine::classic).classic; }

Backend kernels_engine(KernelTable type, Backend requested) {
    switch (type) {
        case KernelTable::blocked: return running(requested, &Engine::blocked).backend;
        case KernelTable::concurrent: return running(requested, &Engine::concurrent).backend;
        case KernelTable::counting: return running(requested, &Engine::counting).backend;
        case KernelTable::deletable: return running(requested, &Engine::deletable).backend;
        case KernelTable::classic: return running(requested, &Engine::classic).backend;
    }
    throw Error("unknown kernel table");
}

}  // namespace detail

namespace {
constexpr detail::EnumName<Backend> backend_names[] = {{Backend::automatic, "auto"},
                                                       {Backend::scalar, "scalar"},
                                                       {Backend::avx2, "avx2"},
                                                       {Backend::avx512, "avx512"},
                                                       {Backend::cuda, "cuda"}};
}  // namespace

std::string_view to_string(Backend b) { return detail::name_of(backend_names, b); }
Backend parse_backend(std::string_view name) { return detail::value_named(backend_names, name, "backend"); }

std::vector<std::string> available_backends() {
    std::vector<std::string> names;
    for (const detail::Engine* e : detail::registry)
        if (e->supported()) names.emplace_back(e->name);
    return names;
}

Backend resolve_backend(Backend b) {
    if (b == Backend::automatic) {
        if (const auto& forced = detail::environment().backend.get(); forced && *forced != Backend::automatic)
            b = *forced;
    }
    if (b == Backend::automatic) {
        // The CUDA engine copies the filter to the device and back on every call, which a
        // host-side bulk call rarely pays for; it is used when asked for (see docs/cuda.md).
        for (const detail::Engine* e : detail::registry)
            if (e->cpu && e->supported()) return e->backend;
    }
    detail::engine_for(b);  // throws if unavailable
    return b;
}

// `automatic` is resolved by each bulk call, so that BATCHBLOOM_BACKEND (as last read:
// reload_environment) is followed when it runs.
void BulkSettings::set_backend(Backend b) {
    if (b != Backend::automatic) detail::engine_for(b);  // throws if unavailable
    backend_ = b;
}

}  // namespace batchbloom
