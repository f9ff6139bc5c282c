// fragments.cuh — storing accumulator fragments in mma.sync's m16n8 C
// layout (also wgmma's, per warp) through the epilogue.
#pragma once
#include <stdint.h>
#include "epilogue.cuh"

namespace gr {

// store_fragments finishes a warp's MI x NI accumulator fragments in
// mma.sync's m16n8 C layout (also wgmma's, per warp): fragment (mi, ni, e)
// is row row0 + 16mi + 8(e/2), column col0 + 8ni + e%2, where row0 and col0
// already hold the lane's offsets (lane/4 and 2·(lane%4)); z is the block's
// split. Elements past M or N are not stored.
template <typename TOut, int MI, int NI>
__device__ __forceinline__ void store_fragments(const gr_gemm_params &p, int64_t z, const float (&acc)[MI][NI][4],
                                                int64_t row0, int64_t col0) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t m = row0 + mi * 16 + (e >> 1) * 8, n = col0 + ni * 8 + (e & 1);
        if (m < p.m && n < p.n) finish<TOut>(p, z, m, n, acc[mi][ni][e]);
      }
}

}  // namespace gr
