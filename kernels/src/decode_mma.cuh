// decode_mma.cuh — tensor-core decode (skinny-M) GEMM family, operands swapped.
//
// mma.sync m16n8k16 (for e4m3, each 32-byte k-step converted exactly to f16
// and run as two m16n8k16 steps: mma_sm80.cuh) with the weights as the 16-row "A"
// operand and the tokens as the 8-column "B" operand, so 1..16 tokens fill
// NT8 (1 or 2) n8 tiles. Fragments are loaded straight from global memory
// with 16-byte loads of EV = 16/sizeof(T) elements: in a slice of 4·EV·LV K
// elements, lane (g = lane/4, t = lane%4) reads LV vectors at k + EV*LV*t of
// its rows (so each row segment a warp reads is 64*LV contiguous bytes); the
// two mma steps of each vector take its halves. e4m3: the accumulator is
// scaled (scales.cuh) before the epilogue. Because A and B use the same K permutation, the dot products
// are exact. Each warp owns RG groups of 16 output columns; the block's WARPS
// warps split K in interleaved slices, two register stages of U slices each
// (the next stage's loads in flight while the current one computes); partial
// sums are reduced across warps in shared memory in fixed order. LD is the
// load policy (global_load.cuh): ld_cached (decode_mma), or ld_stream
// (decode_mma_stream: the next stage's loads issued before the current
// stage is converted, weights past L1).
// Block tile: BM = 8*NT8 tokens x BN = 16*RG output columns.
// Grid: (ceil(N/BN), ceil(M/BM), split_k).
//
// Constraints: A and B 16-byte aligned, lda and ldb multiples of EV elements,
// K a multiple of EV (ptr_align 16, ld_align 16, k_multiple EV); sm_80+
// (e4m3: sm_89+, the sm_90 image);
// 64-bit offsets; split-K: any factor, workspace reduction.
#pragma once
#include <stdint.h>
#include <type_traits>
#include "epilogue.cuh"
#include "global_load.cuh"
#include "mma_sm80.cuh"
#include "pipeline.cuh"
#include "scales.cuh"
#include "split_range.cuh"

namespace gr {

// mma_load fills one register stage of U vectors per row: vector u is at
// k + (u / LV) * STEP + (u % LV) * EV (LV vectors per slice, slices STEP
// apart); vectors at or past ke load zeros (K is a multiple of EV, so a
// vector is wholly in or out).
template <typename T, int NT8, int RG, int U, int LV, int64_t STEP>
__device__ __forceinline__ void mma_load(uint4 (&w)[U][RG][2], uint4 (&x)[U][NT8], const T *const (&wrow)[RG][2],
                                         const T *const (&xrow)[NT8], const bool (&xok)[NT8], int64_t k, int64_t ke) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t ku = k + (u / LV) * STEP + (u % LV) * (16 / (int)sizeof(T));
    const bool kok = ku < ke;
#pragma unroll
    for (int rg = 0; rg < RG; ++rg)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        w[u][rg][h] = kok ? __ldg(reinterpret_cast<const uint4 *>(wrow[rg][h] + ku)) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < NT8; ++j)
      x[u][j] = kok && xok[j] ? __ldg(reinterpret_cast<const uint4 *>(xrow[j] + ku)) : make_uint4(0, 0, 0, 0);
  }
}

// mma_load_stream is mma_load through ld_stream.
template <typename T, int NT8, int RG, int U, int LV, int64_t STEP>
__device__ __forceinline__ void mma_load_stream(uint4 (&w)[U][RG][2], uint4 (&x)[U][NT8], const T *const (&wrow)[RG][2],
                                                const T *const (&xrow)[NT8], const bool (&xok)[NT8], int64_t k, int64_t ke) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t ku = k + (u / LV) * STEP + (u % LV) * (16 / (int)sizeof(T));
    const bool kok = ku < ke;
#pragma unroll
    for (int rg = 0; rg < RG; ++rg)
#pragma unroll
      for (int h = 0; h < 2; ++h) w[u][rg][h] = ld_stream::weights(wrow[rg][h] + ku, kok);
#pragma unroll
    for (int j = 0; j < NT8; ++j) x[u][j] = ld_stream::activations(xrow[j] + ku, kok && xok[j]);
  }
}

// mma_stage multiplies one register stage into the accumulators: per vector
// and row group, two k16 steps (halves of each lane's 8-element vector).
template <typename T, int NT8, int RG, int U>
__device__ __forceinline__ void mma_stage(float (&acc)[RG][NT8][4], const uint4 (&w)[U][RG][2], const uint4 (&x)[U][NT8]) {
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int rg = 0; rg < RG; ++rg)
#pragma unroll
      for (int j = 0; j < NT8; ++j) {
        const uint4 lo = w[u][rg][0], hi = w[u][rg][1], xv = x[u][j];
        mma_op<T>::run(acc[rg][j], lo.x, hi.x, lo.y, hi.y, xv.x, xv.y);
        mma_op<T>::run(acc[rg][j], lo.z, hi.z, lo.w, hi.w, xv.z, xv.w);
      }
}

template <typename T, typename TOut, int NT8, int RG, int WARPS, int U, int LV, class LD = ld_cached>
__device__ void decode_mma(const gr_gemm_params &p) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t4 = lane & 3;
  constexpr int BM = 8 * NT8, BN = 16 * RG;  // block tile: tokens, output columns
  const int64_t n0 = (int64_t)blockIdx.x * BN, m0 = (int64_t)blockIdx.y * BM;
  int64_t kb, ke;
  k_range(p, blockIdx.z, kb, ke);
  const T *A = reinterpret_cast<const T *>(p.a);
  const T *B = reinterpret_cast<const T *>(p.b);
  const T *wrow[RG][2];
  const T *xrow[NT8];
  bool xok[NT8];
#pragma unroll
  for (int rg = 0; rg < RG; ++rg)
#pragma unroll
    for (int h = 0; h < 2; ++h) wrow[rg][h] = B + min(n0 + rg * 16 + h * 8 + g, p.n - 1) * p.ldb;
#pragma unroll
  for (int j = 0; j < NT8; ++j) {
    xok[j] = m0 + j * 8 + g < p.m;
    xrow[j] = A + min(m0 + j * 8 + g, p.m - 1) * p.lda;
  }
  float acc[RG][NT8][4] = {};
  constexpr int EV = 16 / sizeof(T);            // elements per 16-byte vector
  constexpr int SLICE = 4 * EV * LV;            // K elements per warp slice
  constexpr int64_t STEP = (int64_t)WARPS * SLICE;  // K the block covers per slice round
  uint4 w[2][U * LV][RG][2], x[2][U * LV][NT8];
  // The warp's slices start at kb + SLICE*warp + i*STEP; this lane reads LV
  // vectors of EV elements at slice + EV*LV*t4.
  pipeline2(
      kb + warp * SLICE, ke, U * STEP,
      [&](auto b, int64_t base) {
        if constexpr (std::is_same_v<LD, ld_stream>)
          mma_load_stream<T, NT8, RG, U * LV, LV, STEP>(w[b], x[b], wrow, xrow, xok, base + t4 * EV * LV, ke);
        else
          mma_load<T, NT8, RG, U * LV, LV, STEP>(w[b], x[b], wrow, xrow, xok, base + t4 * EV * LV, ke);
      },
      [&](auto b) { mma_stage<T, NT8, RG, U * LV>(acc, w[b], x[b]); });
  // Warps in order through shared memory: deterministic.
  constexpr int V = RG * NT8 * 4;
  __shared__ float red[WARPS][V][32];
#pragma unroll
  for (int rg = 0; rg < RG; ++rg)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) red[warp][(rg * NT8 + j) * 4 + e][lane] = acc[rg][j][e];
  __syncthreads();
  for (int i = threadIdx.x; i < V * 32; i += WARPS * 32) {
    const int v = i / 32, l = i % 32;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) s += red[w][v][l];
    const int rg = v / (NT8 * 4), j = (v / 4) % NT8, e = v % 4;
    const int64_t n = n0 + rg * 16 + (e >> 1) * 8 + (l >> 2);
    const int64_t m = m0 + j * 8 + (l & 3) * 2 + (e & 1);
    if (sizeof(T) == 1) s *= scale_at(p, m, n);
    if (m < p.m && n < p.n) finish<TOut>(p, blockIdx.z, m, n, s);
  }
}

}  // namespace gr
