// global_load.cuh — load policies of the decode families: how the 16-byte
// global loads of a register stage are issued, and which cache levels keep
// the bytes.
#pragma once
#include <stdint.h>

namespace gr {

// ld_cached: each load an __ldg under a condition (decode_mma.cuh's
// mma_load); ptxas may move it to just before its first use (it does: one
// register stage in flight).
struct ld_cached {};

// ld_stream: each load one predicated ld.global.nc in a volatile asm, so a
// stage's loads are issued where the source issues them (the next stage's
// before the current one is converted). Weights skip L1
// (L1::no_allocate: each byte is read once), so the token vectors that
// every block re-reads stay there.
struct ld_stream {
  // weights returns the 16 bytes at p (zeros, without reading, when ok is
  // false), past L1; activations the same through L1.
  static __device__ __forceinline__ uint4 weights(const void *p, bool ok) {
    uint4 v;
    asm volatile(
        "{\n.reg .pred q;\nsetp.ne.b32 q, %5, 0;\nmov.b32 %0, 0;\nmov.b32 %1, 0;\nmov.b32 %2, 0;\nmov.b32 %3, 0;\n"
        "@q ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n}\n"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "r"((int)ok));
    return v;
  }
  static __device__ __forceinline__ uint4 activations(const void *p, bool ok) {
    uint4 v;
    asm volatile(
        "{\n.reg .pred q;\nsetp.ne.b32 q, %5, 0;\nmov.b32 %0, 0;\nmov.b32 %1, 0;\nmov.b32 %2, 0;\nmov.b32 %3, 0;\n"
        "@q ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n}\n"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "r"((int)ok));
    return v;
  }
};

}  // namespace gr
