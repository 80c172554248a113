#pragma once
// The CPU engine behind a join filter. A CUDA join filter probes whole columns on the device,
// but its host filter (the build, single chunks) and the join plan's cost model run on the best
// CPU engine: the model's measured probe is a CPU one (the device's per-batch cost is its
// transfers', which the model does not see).
#include "batchbloom/backend.hpp"

namespace batchbloom::detail {

inline Backend join_host_engine(Backend b) { return b == Backend::cuda ? Backend::automatic : b; }

}  // namespace batchbloom::detail
