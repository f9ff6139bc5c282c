// decode_fma.cuh — CUDA-core decode (skinny-M) GEMM family.
//
// Block: WARPS warps on a BM x BN tile: BN output columns (rows of B) and BM
// tokens (rows of A). The block's threads walk K together, VEC elements
// each, so a warp reads 32*VEC contiguous elements of every row it touches;
// two register stages of U rounds each keep the next stage's loads in flight
// while one computes. Partial sums are reduced across lanes (shuffles) and
// across warps (shared memory, fixed order).
// Grid: (ceil(N/BN), ceil(M/BM), split_k).
//
// e4m3 (T one byte): the accumulator is scaled (scales.cuh) before the
// epilogue; VEC = 16 makes a 16-byte load.
//
// Constraints (written into the manifest by the generator):
//   VEC·sizeof(T) == 16: A and B 16-byte aligned, lda and ldb multiples of
//             VEC elements, K a multiple of VEC.     (ptr_align 16, ld_align 16, k_multiple VEC)
//   VEC == 1: none beyond element alignment.         (ptr_align and ld_align sizeof(T), k_multiple 1)
//   Offsets are 64-bit. Split-K: any factor, workspace reduction.
#pragma once
#include <stdint.h>
#include <type_traits>
#include "convert.cuh"
#include "epilogue.cuh"
#include "pipeline.cuh"
#include "scales.cuh"
#include "split_range.cuh"

namespace gr {

// vec<T, VEC> is the raw register type of VEC elements: a 16-byte vector
// (VEC·sizeof(T) == 16) or one element.
template <typename T, int VEC> struct vec { using type = std::conditional_t<VEC == 1, T, uint4>; };

template <typename T, int VEC>
__device__ __forceinline__ typename vec<T, VEC>::type load_raw(const T *p) {
  if constexpr (VEC > 1) return __ldg(reinterpret_cast<const uint4 *>(p));
  else return p[0];
}

// widen converts VEC raw elements to float.
template <typename T, int VEC>
__device__ __forceinline__ void widen(const typename vec<T, VEC>::type &raw, float (&out)[VEC]) {
  const T *e = reinterpret_cast<const T *>(&raw);
#pragma unroll
  for (int i = 0; i < VEC; ++i) out[i] = to_f32(e[i]);
}

template <typename T, typename TOut, int BM, int BN, int VEC, int WARPS, int U>
__device__ void decode_fma(const gr_gemm_params &p) {
  static_assert(VEC * sizeof(T) == 16 || VEC == 1, "VEC makes a 16-byte load, or is 1 (element loads)");
  using V = typename vec<T, VEC>::type;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t n0 = (int64_t)blockIdx.x * BN, m0 = (int64_t)blockIdx.y * BM;
  int64_t kb, ke;
  k_range(p, blockIdx.z, kb, ke);
  const T *A = reinterpret_cast<const T *>(p.a);
  const T *B = reinterpret_cast<const T *>(p.b);
  const T *brow[BN];
  const T *arow[BM];
  bool mok[BM];
#pragma unroll
  for (int r = 0; r < BN; ++r) brow[r] = B + min(n0 + r, p.n - 1) * p.ldb;  // clamped rows: results discarded
#pragma unroll
  for (int t = 0; t < BM; ++t) {
    mok[t] = m0 + t < p.m;
    arow[t] = A + min(m0 + t, p.m - 1) * p.lda;
  }
  float acc[BM][BN] = {};
  constexpr int64_t STEP = WARPS * 32 * VEC;  // K the block covers per round
  V w[2][U][BN], x[2][U][BM];
  const int64_t off = (int64_t)threadIdx.x * VEC;
  pipeline2(
      kb, ke, U * STEP,
      [&](auto b, int64_t base) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int64_t k = base + u * STEP + off;
          const bool kok = k < ke;  // K % VEC == 0: a vector is wholly in or out
#pragma unroll
          for (int r = 0; r < BN; ++r) w[b][u][r] = kok ? load_raw<T, VEC>(brow[r] + k) : V{};
#pragma unroll
          for (int t = 0; t < BM; ++t) x[b][u][t] = kok && mok[t] ? load_raw<T, VEC>(arow[t] + k) : V{};
        }
      },
      [&](auto b) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float wf[BN][VEC];
#pragma unroll
          for (int r = 0; r < BN; ++r) widen<T, VEC>(w[b][u][r], wf[r]);
#pragma unroll
          for (int t = 0; t < BM; ++t) {
            float xf[VEC];
            widen<T, VEC>(x[b][u][t], xf);
#pragma unroll
            for (int r = 0; r < BN; ++r)
#pragma unroll
              for (int i = 0; i < VEC; ++i) acc[t][r] = fmaf(xf[i], wf[r][i], acc[t][r]);
          }
        }
      });
  // Lanes, then warps in order: the same sum for the same inputs every run.
  __shared__ float red[WARPS][BM * BN];
#pragma unroll
  for (int t = 0; t < BM; ++t)
#pragma unroll
    for (int r = 0; r < BN; ++r) {
      float v = acc[t][r];
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
      if (lane == 0) red[warp][t * BN + r] = v;
    }
  __syncthreads();
  for (int i = threadIdx.x; i < BM * BN; i += WARPS * 32) {
    const int t = i / BN, r = i % BN;
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) v += red[w][i];
    if (sizeof(T) == 1) v *= scale_at(p, m0 + t, n0 + r);
    if (m0 + t < p.m && n0 + r < p.n) finish<TOut>(p, blockIdx.z, m0 + t, n0 + r, v);
  }
}

}  // namespace gr
