// repack.cuh — the operand repack of the TMA kernels' repack variants
// (KernelSpec.Repack): for a 16-bit GEMM whose pointers, leading dimensions
// or K rule out TMA (16-byte aligned bases and row pitches), it copies A
// [M, K] (pitch pack_lda) and B [N, K] (pitch pack_ldb) from pack_a and
// pack_b into the workspace at p.a and p.b with a pitch of p.k = K' =
// ⌈K/8⌉·8 elements (16 bytes), the K tail zero-filled, so that the GEMM
// launch that follows runs on the copies (lda = ldb = K = K': the zero tail
// adds nothing). A null pack_a (pack_b) leaves that operand where it is.
// Launch: a grid-stride loop over the copies' 16-byte vectors, block 256;
// each thread reads 8 elements (2-byte loads: the source may be aligned to
// 2 bytes only) and writes one vector. Constraints: none beyond 16-bit
// elements; offsets are 64-bit.
#pragma once
#include <stdint.h>
#include "gemm_params.h"

namespace gr {

__device__ inline void repack_b16(const gr_gemm_params &p) {
  const int64_t kv = p.k / 8;  // 16-byte vectors per copied row
  const int64_t rows_a = p.pack_a ? p.m : 0, rows = rows_a + (p.pack_b ? p.n : 0);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * kv; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = i / kv, v = i - r * kv;
    const bool in_a = r < rows_a;
    const int64_t row = in_a ? r : r - rows_a;
    const uint16_t *src = static_cast<const uint16_t *>(in_a ? p.pack_a : p.pack_b) + row * (in_a ? p.pack_lda : p.pack_ldb);
    uint16_t *dst = const_cast<uint16_t *>(static_cast<const uint16_t *>(in_a ? p.a : p.b)) + row * p.k + v * 8;
    uint32_t w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t k = v * 8 + 2 * j;
      const uint32_t lo = k < p.pack_k ? src[k] : 0u, hi = k + 1 < p.pack_k ? src[k + 1] : 0u;
      w[j] = lo | hi << 16;
    }
    *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

}  // namespace gr
