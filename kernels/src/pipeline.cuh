// pipeline.cuh — the two-stage register pipeline both decode families use.
#pragma once
#include <stdint.h>

namespace gr {

// stage<I> names register buffer I at compile time (it converts to I).
template <int I> struct stage {
  __host__ __device__ constexpr operator int() const { return I; }
};
using stage0 = stage<0>;
using stage1 = stage<1>;

// pipeline2 walks K from base (warp-uniform) to end in steps of `stage`,
// with two register buffers: while the loads of one stage are in flight the
// other stage is computed. load(buffer, k) must zero-fill past end;
// compute(buffer) consumes a loaded buffer. Buffers are compile-time tags, so
// register arrays are indexed statically.
template <class Load, class Compute>
__device__ __forceinline__ void pipeline2(int64_t base, int64_t end, int64_t stage, Load &&load, Compute &&compute) {
  load(stage0{}, base);
  while (base < end) {
    load(stage1{}, base + stage);
    compute(stage0{});
    base += stage;
    if (base >= end) break;
    load(stage0{}, base + stage);
    compute(stage1{});
    base += stage;
  }
}

}  // namespace gr
