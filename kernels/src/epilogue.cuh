// epilogue.cuh — element conversion and the shared epilogue.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "gemm_params.h"
#if defined(GR_WITH_FP8)
#include <cuda_fp8.h>
#endif

namespace gr {

__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
#if defined(GR_WITH_FP8)
__device__ __forceinline__ float to_f32(__nv_fp8_e4m3 x) { return float(x); }
#endif
template <typename T> __device__ __forceinline__ T from_f32(float x);
template <> __device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// store_out applies the epilogue alpha*acc + beta*C + bias to D[m,n].
template <typename TOut>
__device__ __forceinline__ void store_out(const gr_gemm_params &p, int64_t m, int64_t n, float acc) {
  float v = p.alpha * acc;
  if (p.beta != 0.f) v += p.beta * to_f32(reinterpret_cast<const TOut *>(p.c)[m * p.ldc + n]);
  if (p.bias) v += to_f32(reinterpret_cast<const TOut *>(p.bias)[n]);
  reinterpret_cast<TOut *>(p.d)[m * p.ldc + n] = from_f32<TOut>(v);
}

// finish writes one output element: split_k == 1 applies the epilogue,
// otherwise the fp32 partial goes to the workspace slice blockIdx.z.
template <typename TOut>
__device__ __forceinline__ void finish(const gr_gemm_params &p, int64_t m, int64_t n, float acc) {
  if (p.split_k > 1)
    p.workspace[((int64_t)blockIdx.z * p.m + m) * p.n + n] = acc;
  else
    store_out<TOut>(p, m, n, acc);
}

// store_fragments finishes a warp's MI x NI accumulator fragments in
// mma.sync's m16n8 C layout (also wgmma's, per warp): fragment (mi, ni, e)
// is row row0 + 16mi + 8(e/2), column col0 + 8ni + e%2, where row0 and col0
// already hold the lane's offsets (lane/4 and 2·(lane%4)). Elements past M
// or N are not stored.
template <typename TOut, int MI, int NI>
__device__ __forceinline__ void store_fragments(const gr_gemm_params &p, const float (&acc)[MI][NI][4], int64_t row0,
                                                int64_t col0) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t m = row0 + mi * 16 + (e >> 1) * 8, n = col0 + ni * 8 + (e & 1);
        if (m < p.m && n < p.n) finish<TOut>(p, m, n, acc[mi][ni][e]);
      }
}

// k_range is the slice of K that split blockIdx.z covers.
__device__ __forceinline__ void k_range(const gr_gemm_params &p, int64_t &k0, int64_t &k1) {
  k0 = (int64_t)blockIdx.z * p.k_per_split;
  k1 = min(p.k, k0 + p.k_per_split);
}

}  // namespace gr
