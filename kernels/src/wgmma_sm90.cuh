// wgmma_sm90.cuh — sm_90a warpgroup primitives as inline PTX: wgmma.mma_async
// m64n128k16 (both operands K-major in shared memory, fp32 accumulate), its
// fences, and the shared-memory matrix descriptor of the 128-byte swizzle.
#pragma once
#include "convert.cuh"

namespace gr {

// smem_desc describes, for wgmma, a K-major operand tile in shared memory:
// rows of 64 16-bit elements (128 bytes), 16-byte chunk c of row r stored at
// chunk c ^ (r % 8) (swizzle<64>, the hardware's 128-byte swizzle), 8-row
// atoms of 1024 bytes one after the other. addr is the tile's first atom
// (1024-byte aligned) plus 32 bytes per k16 step into the row.
// Fields: start >> 4 (bits 0-13), leading byte offset >> 4 (16-29; unused by
// swizzled K-major, 16 by convention), stride byte offset >> 4 (32-45: 1024,
// atom to atom), swizzle mode (62-63: 1 = 128-byte).
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(16 >> 4) << 16 | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62;
}

// wgmma_fence orders the warpgroup's register accesses to the accumulators
// before the wgmma that follow; wgmma_commit closes a group of issued wgmma;
// wgmma_wait returns once at most N groups are pending.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }

// fence_proxy_async makes this thread's generic-proxy writes to shared
// memory (cp.async, st.shared) visible to the async proxy that wgmma reads
// through; a barrier after it covers the whole block.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// pin_registers keeps the compiler from moving accumulator registers while
// a wgmma that writes them may be in flight.
template <int N> __device__ __forceinline__ void pin_registers(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// wgmma_n128<T>::run: d (64x128 fp32, the warpgroup's accumulator
// fragments) += A (64x16, descriptor da) · B (128x16, descriptor db)ᵀ. Per
// warp w of the warpgroup and lane l, d[4i + e] is row 16w + l/4 + 8(e/2),
// column 8i + 2(l%4) + e%2 — mma.sync's C layout for n8 block i.
template <typename T> struct wgmma_n128;
#define GR_WGMMA_N128(T, PTX)                                                                                                                                                                                                                                                                    \
template <> struct wgmma_n128<T> {                                                                                                                                                                                                                                                               \
  static __device__ __forceinline__ void run(float (&d)[64], uint64_t da, uint64_t db) {                                                                                                                                                                                                         \
    asm volatile(                                                                                                                                                                                                                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                                                                                                                                                                                                                               \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." PTX "." PTX " "                                                                                                                                                                                                                           \
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n" \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),                                                                                                                                                                            \
                   "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),                                                                                                                                                                        \
                   "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),                                                                                                                                                                       \
                   "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),                                                                                                                                                                       \
                   "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),                                                                                                                                                                       \
                   "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),                                                                                                                                                                       \
                   "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),                                                                                                                                                                       \
                   "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                                                                                                                                                                                     \
        : "l"(da), "l"(db));                                                                                                                                                                                                                                                                     \
  }                                                                                                                                                                                                                                                                                              \
};
GR_WGMMA_N128(__nv_bfloat16, "bf16")
GR_WGMMA_N128(__half, "f16")
#undef GR_WGMMA_N128

}  // namespace gr
