#pragma once
// How a scalable filter's params size its stages: ScalableFilter grows by them, and its loader
// (format/scalable_format.cpp) recomputes them to check a file's stages before allocating any.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "batchbloom/error.hpp"
#include "batchbloom/params.hpp"
#include "batchbloom/scalable.hpp"

namespace batchbloom::detail {

inline constexpr std::size_t max_stages = 64;

// Stage targets by repeated multiplication (exactly rounded in IEEE arithmetic, unlike pow),
// so that a saved filter's stages are recomputed identically wherever it is loaded.
inline double nth_power_product(double start, double factor, std::size_t i) {
    double v = start;
    for (std::size_t j = 0; j < i; ++j) v *= factor;
    return v;
}

inline std::uint64_t stage_capacity(const ScalableParams& p, std::size_t i) {
    const double cap = std::ceil(nth_power_product(double(p.initial_capacity), p.growth, i));
    if (i >= max_stages || !(cap < 9.2e18))
        throw Error("scalable filter: stage " + std::to_string(i) + " would exceed the size limit");
    return static_cast<std::uint64_t>(cap);
}

inline double stage_fpr(const ScalableParams& p, std::size_t i) {
    return nth_power_product(p.initial_fpr, p.tightening, i);
}

inline Params stage_params(const ScalableParams& p, std::size_t i) {
    return Params::for_fpr(stage_capacity(p, i), stage_fpr(p, i), p.shape);
}

}  // namespace batchbloom::detail
