// The CUDA engine's kernels for word512 blocks (see kernels.cuh); one file per shape so that nvcc
// builds the shapes in parallel.
#include "cuda/kernels.cuh"

namespace batchbloom::cuda_impl {
template struct ShapeLaunch<Shape::word512>;
}  // namespace batchbloom::cuda_impl
