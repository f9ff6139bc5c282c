// epilogue.cuh — the epilogue every GEMM kernel ends with, per output
// element: alpha·acc + beta·C + bias into D, or the fp32 partial of a split.
#pragma once
#include <stdint.h>
#include "convert.cuh"
#include "gemm_params.h"

namespace gr {

// store_out applies the epilogue alpha*acc + beta*C + bias to D[m,n].
template <typename TOut>
__device__ __forceinline__ void store_out(const gr_gemm_params &p, int64_t m, int64_t n, float acc) {
  float v = p.alpha * acc;
  if (p.beta != 0.f) v += p.beta * to_f32(reinterpret_cast<const TOut *>(p.c)[m * p.ldc + n]);
  if (p.bias) v += to_f32(reinterpret_cast<const TOut *>(p.bias)[n]);
  reinterpret_cast<TOut *>(p.d)[m * p.ldc + n] = from_f32<TOut>(v);
}

// finish writes one output element: split_k == 1 applies the epilogue,
// otherwise the fp32 partial goes to the workspace slice of split z.
template <typename TOut>
__device__ __forceinline__ void finish(const gr_gemm_params &p, int64_t z, int64_t m, int64_t n, float acc) {
  if (p.split_k > 1)
    p.workspace[(z * p.m + m) * p.n + n] = acc;
  else
    store_out<TOut>(p, m, n, acc);
}

}  // namespace gr
