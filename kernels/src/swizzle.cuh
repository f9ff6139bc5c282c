// swizzle.cuh — the XOR swizzle of the tiled families' shared-memory tiles:
// [rows][BK] tiles of 16-bit elements, 16-byte chunks permuted per row.
#pragma once
#include <stdint.h>

namespace gr {

// swizzle<BK> places chunk c (8 elements) of row r of a [rows][BK] tile at
// chunk c ^ f(r): any 8 consecutive rows (an ldmatrix phase at one logical
// chunk) then cover the 8 16-byte bank groups of a 128-byte line. f repeats
// every 8 rows (so every 16), so a fragment's lane pattern holds for every
// m16/n16 block. swizzle<64> is the hardware's 128-byte swizzle (wgmma, TMA).
template <int BK> struct swizzle {
  static constexpr int CPR = BK / 8;                   // chunks per row
  static constexpr int RPL = CPR >= 8 ? 1 : 8 / CPR;   // rows per 128-byte line
  static constexpr int MASK = (CPR >= 8 ? 8 : CPR) - 1;
  static_assert(BK >= 16 && (BK & (BK - 1)) == 0, "BK is a power of two ≥ 16");
  // bytes is the byte offset of chunk c of row r.
  static __device__ __forceinline__ uint32_t bytes(int r, int c) { return (r * BK + ((c ^ ((r / RPL) & MASK)) << 3)) * 2; }
};

}  // namespace gr
