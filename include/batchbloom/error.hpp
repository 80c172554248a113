#pragma once
#include <stdexcept>
#include <string>

namespace batchbloom {

/// Every error the library reports: bad parameters, incompatible filters, unavailable
/// backends. The message names the problem and the offending value.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A saved filter that cannot be loaded: truncated, corrupted, wrong magic or version.
class FormatError : public Error {
public:
    using Error::Error;
};

}  // namespace batchbloom
