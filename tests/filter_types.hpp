#pragma once
// The filter types that own their bits and save to files (every type but ConcurrentFilter, a
// view over shared words), as one list for the typed tests that every such type must pass.
#include <gtest/gtest.h>

#include <batchbloom/classic.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/scalable.hpp>

namespace batchbloom::testing {

using FilterTypes = ::testing::Types<Filter, CountingFilter, DeletableFilter, ScalableFilter, ClassicFilter>;

}  // namespace batchbloom::testing
