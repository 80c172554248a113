#pragma once
// Engines. Every engine implements the same bulk operations on the same layout; the scalar
// engine is the reference and the fallback. `Backend::automatic` takes the best engine this
// machine supports, unless the environment variable BATCHBLOOM_BACKEND names one.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace batchbloom {

enum class Backend : std::uint8_t {
    automatic = 0,
    scalar = 1,
    avx2 = 2,
    avx512 = 3,
    cuda = 4,
};

std::string_view to_string(Backend b);
/// "auto", "scalar", "avx2", "avx512", "cuda"; throws Error on anything else.
Backend parse_backend(std::string_view name);

/// Names of the engines usable on this machine, best first.
std::vector<std::string> available_backends();

/// The engine `b` resolves to here: automatic -> BATCHBLOOM_BACKEND if set (as last read,
/// environment.hpp), else the best supported engine. Throws Error if `b` (or the environment's choice) is not usable here.
Backend resolve_backend(Backend b);

}  // namespace batchbloom
