// mma_sm80.cuh — sm_80 warp-level primitives as inline PTX: mma.sync
// m16n8k16 (fp32 accumulate; in the sm_90 image also a k32 step on e4m3,
// converted exactly to f16), ldmatrix and cp.async.
#pragma once
#include <stdint.h>
#include "convert.cuh"

namespace gr {

// mma_op<T>::run: d += a (16xK, row) * b (Kx8, col), fragments as PTX
// defines them for m16n8k16 (16-bit T) or, for e4m3, laid out as m16n8k32's
// would be (mma_op<e4m3> below runs them as two converted m16n8k16 steps):
// either way each register holds 4 bytes of K, so the byte layout of the
// fragments is the same for both, and K per call is 32 bytes.
template <typename T> struct mma_op;
#define GR_MMA_M16N8(T, SHAPE, PTX)                                                                                                        \
  template <> struct mma_op<T> {                                                                                                       \
    static __device__ __forceinline__ void run(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,                      \
                                               uint32_t b0, uint32_t b1) {                                                             \
      asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." PTX "." PTX ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n" \
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                                                    \
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                                                            \
    }                                                                                                                                  \
  };
GR_MMA_M16N8(__nv_bfloat16, "m16n8k16", "bf16")
GR_MMA_M16N8(__half, "m16n8k16", "f16")
#undef GR_MMA_M16N8

#if defined(GR_HOPPER)
// e4m3x4_to_f16 converts the four e4m3 of w (element 0 in the low byte)
// exactly to f16 pairs: lo holds elements 0, 1 and hi 2, 3.
// (Both halves in one asm: ptxas then reads the high half in place, no shift.)
__device__ __forceinline__ void e4m3x4_to_f16(uint32_t w, uint32_t &lo, uint32_t &hi) {
  asm("{\n.reg .b16 l, h;\nmov.b32 {l, h}, %2;\ncvt.rn.f16x2.e4m3x2 %0, l;\ncvt.rn.f16x2.e4m3x2 %1, h;\n}\n"
      : "=r"(lo), "=r"(hi)
      : "r"(w));
}

// mma_op<e4m3>: the k32 step as two m16n8k16 f16 steps on the exactly
// converted operands (mma.sync on e4m3 gave wrong sums on the H200 in
// docs/perf/2026-12-01-h200-fp8). Register r's elements 0, 1 and 2, 3 take
// the k16 step's k-slots of its low and high f16 pair, for A and B alike,
// so the pairing of A's and B's K is kept.
template <> struct mma_op<__nv_fp8_e4m3> {
  static __device__ __forceinline__ void run(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                             uint32_t b0, uint32_t b1) {
    uint32_t a[4][2], b[2][2];
    e4m3x4_to_f16(a0, a[0][0], a[0][1]);
    e4m3x4_to_f16(a1, a[1][0], a[1][1]);
    e4m3x4_to_f16(a2, a[2][0], a[2][1]);
    e4m3x4_to_f16(a3, a[3][0], a[3][1]);
    e4m3x4_to_f16(b0, b[0][0], b[0][1]);
    e4m3x4_to_f16(b1, b[1][0], b[1][1]);
    mma_op<__half>::run(d, a[0][0], a[1][0], a[0][1], a[1][1], b[0][0], b[0][1]);
    mma_op<__half>::run(d, a[2][0], a[3][0], a[2][1], a[3][1], b[1][0], b[1][1]);
  }
};
#endif

// smem_addr is the shared-window address of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// ldmatrix_x4 loads four 8x8 b16 matrices; lanes 8i..8i+7 give the row
// addresses of matrix i, which lands in r[i].
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// cp_async16 copies 16 bytes global→shared, bypassing L1; with full false
// it reads nothing and writes 16 zero bytes (src-size 0).
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool full) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(full ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// cp_async_wait returns once at most N of this thread's groups are pending.
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// st_shared16 stores 16 bytes to shared memory.
__device__ __forceinline__ void st_shared16(uint32_t dst, const uint4 &v) {
  asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

}  // namespace gr
