// tile_loader.cuh — global → shared k-tile loads of the tiled families:
// cp.async (16-byte aligned operands) or element loads through registers
// (any alignment, any K), into swizzled [rows][BK] tiles.
#pragma once
#include <stdint.h>
#include "mma_sm80.cuh"
#include "swizzle.cuh"

namespace gr {

// tile_loader moves one operand's k-tiles (ROWS rows of the operand from
// row0 on, BK columns) from global to shared memory: issue starts the loads
// of a k-tile, land finishes them into a stage.
template <typename T, int ROWS, int BK, int THREADS, bool ALIGNED>
struct tile_loader {
  using S = swizzle<BK>;
  static constexpr int STEP = THREADS / S::CPR;  // rows between a thread's chunks
  static constexpr int N = ROWS / STEP;          // chunks per thread and k-tile
  static_assert(THREADS % S::CPR == 0 && ROWS % STEP == 0, "the threads must tile the k-tile's chunks");
  static_assert(N <= 32, "row bits fit a word");
  const T *base;   // the operand (a valid address for zero-fill copies)
  const T *src;    // row row0 + r0, column col, at K = 0
  int64_t stride;  // STEP rows, in elements
  int r0, col;     // this thread's first row in the tile, its chunk's first column
  uint32_t rows;   // bit i: row r0 + i*STEP lies inside the operand
  uint4 reg[ALIGNED ? 1 : N];  // !ALIGNED: loaded chunks between issue and land

  __device__ __forceinline__ tile_loader(const T *op, int64_t ld, int64_t row0, int64_t nrows)
      : base(op), stride(STEP * ld), r0(threadIdx.x / S::CPR), col(threadIdx.x % S::CPR * 8), rows(0) {
    src = op + (row0 + r0) * ld + col;
#pragma unroll
    for (int i = 0; i < N; ++i) rows |= uint32_t(row0 + r0 + i * STEP < nrows) << i;
  }

  // issue starts loading the k-tile at K = k (ALIGNED: straight into the
  // shared tile at address tile; else into registers). ke is the split's K end.
  __device__ __forceinline__ void issue(uint32_t tile, int64_t k, int64_t ke) {
    const int64_t kc = k + col;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const bool rok = (rows >> i) & 1;
      const T *g = src + i * stride + k;
      if constexpr (ALIGNED) {
        const bool in = rok && kc < ke;  // K % 8 == 0: a chunk is wholly in or out
        cp_async16(tile + S::bytes(r0 + i * STEP, col / 8), in ? g : base, in);
      } else {
        const unsigned short *e = reinterpret_cast<const unsigned short *>(g);
        const int64_t room = rok ? ke - kc : 0;  // elements of this chunk inside the operand
        uint32_t w[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const uint32_t lo = 2 * j < room ? __ldg(e + 2 * j) : 0u;
          const uint32_t hi = 2 * j + 1 < room ? __ldg(e + 2 * j + 1) : 0u;
          w[j] = lo | hi << 16;
        }
        reg[i] = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }

  // land stores what issue loaded into the shared tile (!ALIGNED only).
  __device__ __forceinline__ void land(uint32_t tile) const {
    if constexpr (!ALIGNED) {
#pragma unroll
      for (int i = 0; i < N; ++i) st_shared16(tile + S::bytes(r0 + i * STEP, col / 8), reg[i]);
    }
  }
};

}  // namespace gr
