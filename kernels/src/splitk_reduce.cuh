// splitk_reduce.cuh — sums split-K partials in fixed order (deterministic) and
// applies the epilogue. Launch: grid (ceil(M*N/256)), block 256, params as the
// GEMM kernel's. Constraints: none beyond the GEMM kernel's.
#pragma once
#include <stdint.h>
#include "epilogue.cuh"

namespace gr {
template <typename TOut>
__device__ void splitk_reduce(const gr_gemm_params &p) {
  const int64_t mn = p.m * p.n;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < mn; i += (int64_t)gridDim.x * blockDim.x) {
    float acc = 0.f;
    for (int z = 0; z < p.split_k; ++z) acc += p.workspace[z * mn + i];
    const int64_t m = i / p.n;
    store_out<TOut>(p, m, i - m * p.n, acc);
  }
}
}  // namespace gr
