// split_range.cuh — the slice of K a block's split covers: split blockIdx.z
// of p.split_k, k_per_split elements each (the last one may be shorter).
#pragma once
#include <stdint.h>
#include "gemm_params.h"

namespace gr {

// k_range is the slice [k0, k1) of K that split blockIdx.z covers.
__device__ __forceinline__ void k_range(const gr_gemm_params &p, int64_t &k0, int64_t &k1) {
  k0 = (int64_t)blockIdx.z * p.k_per_split;
  k1 = min(p.k, k0 + p.k_per_split);
}

}  // namespace gr
