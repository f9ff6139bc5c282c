// ws_epilogue.cuh — the warp-specialized kernels' epilogue: a consumer
// warpgroup's 64 x COLS fp32 accumulator (wgmma layout) to D — alpha,
// beta·C, bias, convert, store, M and N tails predicated — or, with split_k >
// 1, to the split's fp32 partials in the workspace (splitk_reduce applies the
// epilogue); and the e4m3 tensor and row scales applied before it.
#pragma once
#include <type_traits>
#include "convert.cuh"
#include "gemm_params.h"
#include "scales.cuh"

namespace gr {

__device__ __forceinline__ float2 to_f32x2(__nv_bfloat162 x) { return __bfloat1622float2(x); }
__device__ __forceinline__ float2 to_f32x2(__half2 x) { return __half22float2(x); }
template <typename T> struct pair_of;
template <> struct pair_of<__nv_bfloat16> {
  using type = __nv_bfloat162;
  static __device__ __forceinline__ type from(float a, float b) { return __floats2bfloat162_rn(a, b); }
};
template <> struct pair_of<__half> {
  using type = __half2;
  static __device__ __forceinline__ type from(float a, float b) { return __floats2half2_rn(a, b); }
};

// The register epilogues below run once per tile on one or two warps per
// scheduler, so they are written for few instructions per element: row
// pointers hoisted, column offsets compile-time, uniform branches for beta,
// bias and split-K, per-element predicates only at the M/N tails. (The tails
// once called an out-of-line store per element, which reloaded p through a
// generic pointer each time: 10 µs more for the last 64x96 tile of an
// N = 4096 row on an H100, docs/perf/2026-12-07-h200, call 1.)
// d is a warpgroup's 64 x COLS accumulator (wgmma layout); r0 is this
// thread's first accumulator row (global), q0 its first column (global).

// ws_epilogue_mn: accumulator rows are D's rows (m), columns D's columns
// (n); column pairs go out in one 4-byte access (8 bytes for partials) when
// ldc is even and c, d, bias 4-byte aligned (partials: N even, workspace
// 8-byte aligned).
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_mn(const gr_gemm_params &p, int z, const float (&d)[COLS / 2], int64_t r0,
                                               int64_t q0) {
  using P = typename pair_of<TOut>::type;
  const bool all_n = q0 + COLS - 7 < p.n;  // this thread's last column pair lies inside N
  if (p.split_k > 1) {
    const bool vec = (p.n & 1) == 0 && ((uintptr_t)p.workspace & 7) == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t m = r0 + 8 * h;
      if (m >= p.m) continue;
      float *w = p.workspace + ((int64_t)z * p.m + m) * p.n + q0;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i) {
        const float v0 = d[4 * i + 2 * h], v1 = d[4 * i + 2 * h + 1];
        if (vec && (all_n || q0 + 8 * i + 1 < p.n)) {
          *reinterpret_cast<float2 *>(w + 8 * i) = make_float2(v0, v1);
        } else {
          if (q0 + 8 * i < p.n) w[8 * i] = v0;
          if (q0 + 8 * i + 1 < p.n) w[8 * i + 1] = v1;
        }
      }
    }
    return;
  }
  const bool vec = (p.ldc & 1) == 0 && (((uintptr_t)p.d | (uintptr_t)p.c | (uintptr_t)p.bias) & 3) == 0;
  if (!vec || !all_n) {  // N tails and unaligned outputs: element by element, epilogue.cuh's store_out in order
    const float alpha = p.alpha, beta = p.beta;
    const TOut *bias = reinterpret_cast<const TOut *>(p.bias);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t m = r0 + 8 * h;
      if (m >= p.m) continue;
      TOut *dr = reinterpret_cast<TOut *>(p.d) + m * p.ldc;
      const TOut *cr = reinterpret_cast<const TOut *>(p.c) + m * p.ldc;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
        for (int b = 0; b < 2; ++b) {
          const int64_t n = q0 + 8 * i + b;
          if (n >= p.n) continue;
          float v = alpha * d[4 * i + 2 * h + b];
          if (beta != 0.f) v += beta * to_f32(cr[n]);
          if (bias) v += to_f32(bias[n]);
          dr[n] = from_f32<TOut>(v);
        }
    }
    return;
  }
  // rows: PLAIN (beta == 0, no bias) is alpha·acc alone
  auto rows = [&](auto plain) {
    const float alpha = p.alpha, beta = p.beta;
    const TOut *bias = reinterpret_cast<const TOut *>(p.bias) + q0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t m = r0 + 8 * h;
      if (m >= p.m) continue;
      TOut *dr = reinterpret_cast<TOut *>(p.d) + m * p.ldc + q0;
      const TOut *cr = reinterpret_cast<const TOut *>(p.c) + m * p.ldc + q0;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i) {
        float v0 = alpha * d[4 * i + 2 * h], v1 = alpha * d[4 * i + 2 * h + 1];
        if (!decltype(plain)::value) {
          if (beta != 0.f) {
            const float2 c = to_f32x2(*reinterpret_cast<const P *>(cr + 8 * i));
            v0 += beta * c.x, v1 += beta * c.y;
          }
          if (p.bias) {
            const float2 b = to_f32x2(*reinterpret_cast<const P *>(bias + 8 * i));
            v0 += b.x, v1 += b.y;
          }
        }
        *reinterpret_cast<P *>(dr + 8 * i) = pair_of<TOut>::from(v0, v1);
      }
    }
  };
  if (p.beta == 0.f && !p.bias)
    rows(std::true_type{});
  else
    rows(std::false_type{});
}

// ws_epilogue_nm (ws_swap_ab): accumulator rows are D's columns (n, the weights),
// columns D's rows (m, the tokens); each element is one store, at row
// stride ldc. bias[n] is read once per accumulator row.
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_nm(const gr_gemm_params &p, int z, const float (&d)[COLS / 2], int64_t r0,
                                               int64_t q0) {
  const bool all_m = q0 + COLS - 7 < p.m;  // this thread's last token lies inside M
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int64_t n = r0 + 8 * h;
    if (n >= p.n) continue;
    if (p.split_k > 1) {
      float *w = p.workspace + ((int64_t)z * p.m + q0) * p.n + n;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
        for (int b = 0; b < 2; ++b)
          if (all_m || q0 + 8 * i + b < p.m) w[(8 * i + b) * p.n] = d[4 * i + 2 * h + b];
      continue;
    }
    const float alpha = p.alpha, beta = p.beta, bn = p.bias ? to_f32(reinterpret_cast<const TOut *>(p.bias)[n]) : 0.f;
    TOut *dc = reinterpret_cast<TOut *>(p.d) + q0 * p.ldc + n;
    const TOut *cc = reinterpret_cast<const TOut *>(p.c) + q0 * p.ldc + n;
#pragma unroll
    for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
      for (int b = 0; b < 2; ++b)
        if (all_m || q0 + 8 * i + b < p.m) {
          float v = alpha * d[4 * i + 2 * h + b];
          if (beta != 0.f) v += beta * to_f32(cc[(8 * i + b) * p.ldc]);
          dc[(8 * i + b) * p.ldc] = from_f32<TOut>(v + bn);
        }
  }
}

// ws_scale multiplies a warpgroup's 64 x COLS accumulator by the e4m3
// tensor or row scales (nothing in the folded mode): r0 is this thread's
// first accumulator row, q0 its first column, both global (rows are m,
// columns n; with ROLE ws_swap_ab the other way round).
template <class ROLE, int COLS>
__device__ __forceinline__ void ws_scale(const gr_gemm_params &p, float (&d)[COLS / 2], int64_t r0, int64_t q0) {
  if (p.scaling != GR_SCALE_TENSOR && p.scaling != GR_SCALE_ROW) return;
  float sr[2], sq[COLS / 4];
#pragma unroll
  for (int h = 0; h < 2; ++h)
    sr[h] = p.scaling == GR_SCALE_TENSOR ? scale_at(p, 0, 0) : ROLE::swap ? row_scale_b(p, r0 + 8 * h) : row_scale_a(p, r0 + 8 * h);
#pragma unroll
  for (int j = 0; j < COLS / 4; ++j) {
    const int64_t q = q0 + 8 * (j / 2) + j % 2;
    sq[j] = p.scaling == GR_SCALE_TENSOR ? 1.f : ROLE::swap ? row_scale_a(p, q) : row_scale_b(p, q);
  }
#pragma unroll
  for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) d[4 * i + e] *= sr[e >> 1] * sq[2 * i + (e & 1)];
}

}  // namespace gr
