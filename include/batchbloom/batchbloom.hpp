#pragma once
// Umbrella header: everything a user of batchbloom needs.
#include "backend.hpp"
#include "error.hpp"
#include "filter.hpp"
#include "hash.hpp"
#include "layout.hpp"
#include "params.hpp"
