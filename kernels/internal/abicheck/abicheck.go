//go:build cgo

// Package abicheck reads the C layout of gr_gemm_params so that a test can
// compare it with kernels.Params. It needs a C compiler, not CUDA.
package abicheck

// #cgo CFLAGS: -I${SRCDIR}/../../src
// #include <stddef.h>
// #include "gemm_params.h"
// static size_t gr_offsets[] = {
//   offsetof(gr_gemm_params, a), offsetof(gr_gemm_params, b), offsetof(gr_gemm_params, c),
//   offsetof(gr_gemm_params, d), offsetof(gr_gemm_params, bias), offsetof(gr_gemm_params, workspace),
//   offsetof(gr_gemm_params, m), offsetof(gr_gemm_params, n), offsetof(gr_gemm_params, k),
//   offsetof(gr_gemm_params, lda), offsetof(gr_gemm_params, ldb), offsetof(gr_gemm_params, ldc),
//   offsetof(gr_gemm_params, k_per_split), offsetof(gr_gemm_params, alpha), offsetof(gr_gemm_params, beta),
//   offsetof(gr_gemm_params, split_k), offsetof(gr_gemm_params, tail_parts), offsetof(gr_gemm_params, pad),
//   offsetof(gr_gemm_params, tma_a), offsetof(gr_gemm_params, tma_b), offsetof(gr_gemm_params, scale_a),
//   offsetof(gr_gemm_params, scale_b), offsetof(gr_gemm_params, scaling), offsetof(gr_gemm_params, pad3),
//   offsetof(gr_gemm_params, flags), offsetof(gr_gemm_params, pack_a), offsetof(gr_gemm_params, pack_b),
//   offsetof(gr_gemm_params, pack_lda), offsetof(gr_gemm_params, pack_ldb), offsetof(gr_gemm_params, pack_k),
//   offsetof(gr_gemm_params, pad2), offsetof(gr_gemm_params, tma_d)};
// static size_t gr_offset(int i) { return gr_offsets[i]; }
// static int gr_streamk_flags(void) { return GR_STREAMK_FLAGS; }
// static int gr_scale_codes[] = {GR_SCALE_FOLDED, GR_SCALE_TENSOR, GR_SCALE_ROW, GR_SCALE_BLOCK, GR_SCALE_BLOCK_K};
// static int gr_scale_code(int i) { return gr_scale_codes[i]; }
import "C"

// Fields is the number of fields of gr_gemm_params.
const Fields = 32

// Size is sizeof(gr_gemm_params).
func Size() uintptr { return uintptr(C.sizeof_gr_gemm_params) }

// Offset is the offset of field i, in declaration order.
func Offset(i int) uintptr { return uintptr(C.gr_offset(C.int(i))) }

// StreamKFlags is GR_STREAMK_FLAGS.
func StreamKFlags() int { return int(C.gr_streamk_flags()) }

// ScaleCodes is gemm_params.h's GR_SCALE_FOLDED, GR_SCALE_TENSOR,
// GR_SCALE_ROW and GR_SCALE_BLOCK, in that order, then GR_SCALE_BLOCK_K.
func ScaleCodes() []int32 {
	codes := make([]int32, 5)
	for i := range codes {
		codes[i] = int32(C.gr_scale_code(C.int(i)))
	}
	return codes
}
