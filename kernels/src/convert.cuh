// convert.cuh — the element types gemmroute serves (bf16, f16 and, in the
// sm_90 image (GR_HOPPER), e4m3) and their conversion to and from fp32.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#if defined(GR_HOPPER)
#include <cuda_fp8.h>
#endif

namespace gr {

__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
#if defined(GR_HOPPER)
__device__ __forceinline__ float to_f32(__nv_fp8_e4m3 x) { return float(x); }
#endif
template <typename T> __device__ __forceinline__ T from_f32(float x);
template <> __device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

}  // namespace gr
