// block_tile.cuh — which tile of D and which k-tiles a tiled block works
// on: the grouped rasterization of the grid and the split's K range.
#pragma once
#include <stdint.h>
#include "gemm_params.h"
#include "split_range.cuh"

namespace gr {

// raster maps the block to its (M tile, N tile) so that consecutive blocks
// sweep RASTER_GROUP M tiles per N tile: a wave then reads each weight tile
// from DRAM once for RASTER_GROUP M tiles (plain x-major order re-streams
// all weights per M tile). A bijection of the grid (gridDim.x N tiles,
// gridDim.y M tiles); the last group may hold fewer M tiles.
constexpr int RASTER_GROUP = 8;
__device__ __forceinline__ void raster(int64_t &tile_m, int64_t &tile_n) {
  const int64_t nt = gridDim.x, mt = gridDim.y, id = (int64_t)blockIdx.y * nt + blockIdx.x;
  const int64_t first = id / (RASTER_GROUP * nt) * RASTER_GROUP, within = id % (RASTER_GROUP * nt);
  const int64_t rows = min((int64_t)RASTER_GROUP, mt - first);
  tile_m = first + within % rows;
  tile_n = within / rows;
}

// block_tile is a tiled block's prologue: its BM x BN tile of D (first row
// of A m0, of B n0, rasterized), its split z (blockIdx.z) and the split's K
// range [kb, ke) in `tiles` k-tiles of BK (the last one may be partial).
template <int BM, int BN, int BK> struct block_tile {
  int64_t m0, n0, z, kb, ke, tiles;
  __device__ __forceinline__ explicit block_tile(const gr_gemm_params &p) {
    raster(m0, n0);
    m0 *= BM, n0 *= BN;
    z = blockIdx.z;
    k_range(p, z, kb, ke);
    tiles = ke > kb ? (ke - kb + BK - 1) / BK : 0;
  }
};

}  // namespace gr
