// scales.cuh — dequantisation of e4m3 GEMMs: the per-tensor (device
// scalars) and per-row scales a kernel applies to its fp32 accumulator
// before the epilogue, and the per-k-block scales of the 128-block mode
// (gemm_params.h's GR_SCALE_*). 16-bit kernels never call them (their
// scaling is GR_SCALE_FOLDED: nothing to apply).
#pragma once
#include <stdint.h>
#include "gemm_params.h"

namespace gr {

// row_scale_a / row_scale_b are the row mode's scales of token m and output
// channel n, clamped to the problem (tail rows a kernel computes but does not
// store read valid scales).
__device__ __forceinline__ float row_scale_a(const gr_gemm_params &p, int64_t m) { return __ldg(p.scale_a + min(m, p.m - 1)); }
__device__ __forceinline__ float row_scale_b(const gr_gemm_params &p, int64_t n) { return __ldg(p.scale_b + min(n, p.n - 1)); }

// scale_at is the factor of accumulator element (m, n) in the tensor and row
// modes, 1 in the folded mode (the block mode scales in the main loop:
// block_scale_*). m and n are clamped to the problem, so tail elements a
// kernel computes but does not store read valid scales.
__device__ __forceinline__ float scale_at(const gr_gemm_params &p, int64_t m, int64_t n) {
  if (p.scaling == GR_SCALE_TENSOR) return __ldg(p.scale_a) * __ldg(p.scale_b);
  if (p.scaling == GR_SCALE_ROW) return row_scale_a(p, m) * row_scale_b(p, n);
  return 1.f;
}

// block_kblocks is the number of 128-element k-blocks, ceil(K/128): the
// row length of B's block scales.
__device__ __forceinline__ int64_t block_kblocks(const gr_gemm_params &p) {
  return (p.k + GR_SCALE_BLOCK_K - 1) / GR_SCALE_BLOCK_K;
}

// block_scale_a is A's scale of row m in k-block kb ([ceil(K/128)][M],
// M-major); block_scale_b is B's scale of row n in k-block kb
// ([ceil(N/128)][ceil(K/128)]). Rows past the problem are clamped.
__device__ __forceinline__ float block_scale_a(const gr_gemm_params &p, int64_t m, int64_t kb) {
  return __ldg(p.scale_a + kb * p.m + min(m, p.m - 1));
}
__device__ __forceinline__ float block_scale_b(const gr_gemm_params &p, int64_t n, int64_t kb, int64_t kblocks) {
  return __ldg(p.scale_b + min(n, p.n - 1) / GR_SCALE_BLOCK_K * kblocks + kb);
}

}  // namespace gr
