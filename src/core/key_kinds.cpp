#include "batchbloom/key_kinds.hpp"

namespace batchbloom {

std::string to_string(const KeyKinds& kinds) {
    if (!kinds.recorded) return "not recorded";
    if (kinds.integers && kinds.bytes) return "integers and byte strings";
    if (kinds.integers) return "integers";
    if (kinds.bytes) return "byte strings";
    return "none";
}

}  // namespace batchbloom
