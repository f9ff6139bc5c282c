// split_range.cuh — the slice of K a split covers: split z of p.split_k,
// k_per_split elements each (the last one may be shorter).
#pragma once
#include <stdint.h>
#include "gemm_params.h"

namespace gr {

// k_range is the slice [k0, k1) of K that split z covers.
__device__ __forceinline__ void k_range(const gr_gemm_params &p, int64_t z, int64_t &k0, int64_t &k1) {
  k0 = z * p.k_per_split;
  k1 = min(p.k, k0 + p.k_per_split);
}

}  // namespace gr
