// wgmma_sm90.cuh — sm_90a warpgroup primitives as inline PTX: wgmma.mma_async
// m64nNk16 (bf16, f16) and m64nNk32 (e4m3) for N = 16, 32, 64, 96, 104, 128, 136,
// 152, 160, 176, 192, 208, 224, 256
// (both operands K-major in shared memory, fp32 accumulate), its fences, and
// the shared-memory matrix descriptor of the 128-byte swizzle. Either way one
// wgmma consumes 32 bytes of each operand row.
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

// wgmma<T, N>::run: d (64xN fp32, the warpgroup's accumulator fragments) +=
// A (64xK, descriptor da) · B (NxK, descriptor db)ᵀ, K = 32 bytes of T
// (k16 for 16-bit types, k32 for e4m3; e4m3 takes no transpose operands), for the N listed
// above. Per warp w of the warpgroup and lane l, d[4i + e] is row
// 16w + l/4 + 8(e/2), column 8i + 2(l%4) + e%2 — mma.sync's C layout for n8
// block i. (104 … 208: the token widths that fit M's tiles to the waves, as
// cuBLAS's nvjet 128x136 at M = 513; 160: a consumer's half of cuBLAS's
// 320-row weight tile at large M; 224: the weight width that fits
// M = 1024's 128-token tiles on 14336 rows to 3.9 waves of 132 SMs.) The operand lists below are written out per N (PTX names every
// accumulator register).
template <typename T, int N> struct wgmma;

#define GR_WGMMA_OPS_16 "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9"
// GR_O8(b) / GR_O4(b): the 8 (4) accumulator operands d[b] … of an asm statement.
#define GR_O8(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
#define GR_O4(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3])
#define GR_WGMMA_OUT_16 GR_O8(0)
#define GR_WGMMA_OPS_32 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17"
#define GR_WGMMA_OUT_32 GR_O8(0), GR_O8(8)
#define GR_WGMMA_OPS_64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33"
#define GR_WGMMA_OUT_64 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24)
#define GR_WGMMA_OPS_96 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, %48, %49"
#define GR_WGMMA_OUT_96 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40)
#define GR_WGMMA_OPS_104 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51}, %52, %53"
#define GR_WGMMA_OUT_104 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O4(48)
#define GR_WGMMA_OPS_128 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65"
#define GR_WGMMA_OUT_128 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56)
#define GR_WGMMA_OPS_136 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67}, %68, %69"
#define GR_WGMMA_OUT_136 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O4(64)
#define GR_WGMMA_OPS_152 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75}, %76, %77"
#define GR_WGMMA_OUT_152 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O4(72)
#define GR_WGMMA_OPS_160 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79}, %80, %81"
#define GR_WGMMA_OUT_160 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72)
#define GR_WGMMA_OPS_176 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87}, %88, %89"
#define GR_WGMMA_OUT_176 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72), GR_O8(80)
#define GR_WGMMA_OPS_192 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95}, %96, %97"
#define GR_WGMMA_OUT_192 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72), GR_O8(80), GR_O8(88)
#define GR_WGMMA_OPS_208 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103}, %104, %105"
#define GR_WGMMA_OUT_208 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72), GR_O8(80), GR_O8(88), GR_O8(96)
#define GR_WGMMA_OPS_224 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111}, %112, %113"
#define GR_WGMMA_OUT_224 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72), GR_O8(80), GR_O8(88), GR_O8(96), GR_O8(104)
#define GR_WGMMA_OPS_256 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129"
#define GR_WGMMA_OUT_256 GR_O8(0), GR_O8(8), GR_O8(16), GR_O8(24), GR_O8(32), GR_O8(40), GR_O8(48), GR_O8(56), GR_O8(64), GR_O8(72), GR_O8(80), GR_O8(88), GR_O8(96), GR_O8(104), GR_O8(112), GR_O8(120)
// run_first is run with d's old values ignored (d = A·Bᵀ: scale-d false),
// which starts a chain without instructions that zero d between wgmma.
// TAIL: scale-d (p), imm-scale-a, imm-scale-b, and for 16-bit types the
// transpose flags (0: K-major).
#define GR_WGMMA_FN(NAME, ACC, T, PTX, K, TAIL, N)                                            \
  static __device__ __forceinline__ void NAME(float (&d)[N / 2], uint64_t da, uint64_t db) {   \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " ACC ", 0;\n"                              \
                 "wgmma.mma_async.sync.aligned.m64n" #N K ".f32." PTX "." PTX " "              \
                 GR_WGMMA_OPS_##N TAIL ";\n}\n"                                              \
                 : GR_WGMMA_OUT_##N                                                            \
                 : "l"(da), "l"(db));                                                          \
  }
#define GR_WGMMA(T, PTX, K, TAIL, N)                  \
  template <> struct wgmma<T, N> {                    \
    GR_WGMMA_FN(run, "1", T, PTX, K, TAIL, N)         \
    GR_WGMMA_FN(run_first, "0", T, PTX, K, TAIL, N)   \
  };
#define GR_WGMMA_ALL_N(T, PTX, K, TAIL)                                                                      \
  GR_WGMMA(T, PTX, K, TAIL, 16) GR_WGMMA(T, PTX, K, TAIL, 32) GR_WGMMA(T, PTX, K, TAIL, 64)                  \
  GR_WGMMA(T, PTX, K, TAIL, 96) GR_WGMMA(T, PTX, K, TAIL, 104) GR_WGMMA(T, PTX, K, TAIL, 128)                \
  GR_WGMMA(T, PTX, K, TAIL, 136) GR_WGMMA(T, PTX, K, TAIL, 152) GR_WGMMA(T, PTX, K, TAIL, 160)              \
  GR_WGMMA(T, PTX, K, TAIL, 176) GR_WGMMA(T, PTX, K, TAIL, 192) GR_WGMMA(T, PTX, K, TAIL, 208)              \
  GR_WGMMA(T, PTX, K, TAIL, 224) GR_WGMMA(T, PTX, K, TAIL, 256)
GR_WGMMA_ALL_N(__nv_bfloat16, "bf16", "k16", ", p, 1, 1, 0, 0")
GR_WGMMA_ALL_N(__half, "f16", "k16", ", p, 1, 1, 0, 0")
#if defined(GR_HOPPER)
GR_WGMMA_ALL_N(__nv_fp8_e4m3, "e4m3", "k32", ", p, 1, 1")
#endif
#undef GR_WGMMA_ALL_N
#undef GR_WGMMA
#undef GR_WGMMA_FN

#undef GR_WGMMA_OPS_16
#undef GR_WGMMA_OUT_16
#undef GR_WGMMA_OPS_32
#undef GR_WGMMA_OUT_32
#undef GR_WGMMA_OPS_64
#undef GR_WGMMA_OUT_64
#undef GR_WGMMA_OPS_96
#undef GR_WGMMA_OUT_96
#undef GR_WGMMA_OPS_128
#undef GR_WGMMA_OUT_128
#undef GR_WGMMA_OPS_192
#undef GR_WGMMA_OUT_192
#undef GR_WGMMA_OPS_256
#undef GR_WGMMA_OUT_256
#undef GR_WGMMA_OPS_104
#undef GR_WGMMA_OUT_104
#undef GR_WGMMA_OPS_136
#undef GR_WGMMA_OUT_136
#undef GR_WGMMA_OPS_152
#undef GR_WGMMA_OUT_152
#undef GR_WGMMA_OPS_160
#undef GR_WGMMA_OUT_160
#undef GR_WGMMA_OPS_176
#undef GR_WGMMA_OUT_176
#undef GR_WGMMA_OPS_208
#undef GR_WGMMA_OUT_208
#undef GR_WGMMA_OPS_224
#undef GR_WGMMA_OUT_224
#undef GR_O8
#undef GR_O4

// wgmma_n128 is the m64n128k16 shape the tiled_wgmma family uses.
template <typename T> using wgmma_n128 = wgmma<T, 128>;

}  // namespace gr
