#pragma once
// The AVX-512 gather probe of the classic filter (double_hashing scheme). Declared here,
// compiled with AVX-512 flags in classic_avx512.cpp only; callers check
// cpu_has_avx512() first.
#include <cstddef>
#include <cstdint>

namespace batchbloom::detail {

/// out[i] = 1 if all k positions of hashes[i] are set in `words` (m bits, m < 2^32), else 0.
/// Bit-identical to DoubleHashingScheme probing the same hashes.
void classic_probe_avx512(const std::uint64_t* words, std::uint64_t m, unsigned k, const std::uint64_t* hashes,
                          std::size_t n, std::uint8_t* out);

}  // namespace batchbloom::detail
