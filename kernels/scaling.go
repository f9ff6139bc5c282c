package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/internal/satmath"
)

// Scaling is how a GEMM's e4m3 inputs are dequantised (real = stored ·
// scale); 16-bit inputs have none (ScalingTensor, the zero value, with no
// scales). The kernels apply the scales to the fp32 accumulator, before
// alpha, beta·C and bias.
type Scaling uint8

// The scaling modes. The zero value is per-tensor.
const (
	// ScalingTensor: one scale for A and one for B, as scalars or as device
	// pointers to one float32 each.
	ScalingTensor Scaling = iota
	// ScalingRow: a float32 per row of A (token) and per row of B (output
	// channel).
	ScalingRow
	// ScalingBlock: a float32 per 1×128 block of A and per 128×128 block of
	// B (the DeepSeek-V3 recipe); the products are promoted to fp32 at every
	// 128-element k-block.
	ScalingBlock
)

// ScaleBlockK is the one block size ScalingBlock takes: A's blocks are
// 1×ScaleBlockK, B's ScaleBlockK×ScaleBlockK.
const ScaleBlockK = 128

// scalingSpec is everything outside the CUDA sources that depends on a
// scaling mode: its name, the kernels' GR_SCALE_* code for scales read
// through device pointers, how many float32 each operand's scales hold and
// which of them element (m, n) of an M×N×K problem takes at k-block kb.
// Adding a mode is an entry here, its code in gemm_params.h and scales.cuh,
// and the kernels that apply it in the instance list.
type scalingSpec struct {
	name   string
	code   int32
	floats func(m, n, k int64) (a, b int64)       // m, n, k ≥ 0
	at     func(m, n, kb, rows, k int) (a, b int) // A's and B's index; rows is M
}

var scalings = [...]scalingSpec{
	ScalingTensor: {"tensor", ScaleTensor,
		func(_, _, _ int64) (int64, int64) { return 1, 1 },
		func(_, _, _, _, _ int) (int, int) { return 0, 0 }},
	ScalingRow: {"row", ScaleRow,
		func(m, n, _ int64) (int64, int64) { return m, n },
		func(m, n, _, _, _ int) (int, int) { return m, n }},
	ScalingBlock: {"block128", ScaleBlock,
		func(m, n, k int64) (int64, int64) {
			kb := scaleBlocks(k)
			return satmath.Mul(kb, m), satmath.Mul(scaleBlocks(n), kb)
		},
		func(m, n, kb, rows, k int) (int, int) {
			return kb*rows + m, n/ScaleBlockK*int(scaleBlocks(int64(k))) + kb
		}},
}

// scaleBlocks is ⌈x/ScaleBlockK⌉ for x ≥ 0, without overflow.
func scaleBlocks(x int64) int64 {
	if x%ScaleBlockK != 0 {
		return x/ScaleBlockK + 1
	}
	return x / ScaleBlockK
}

// Code is the kernels' Params.Scaling for mode s with its scales in device
// memory (ScaleTensor, ScaleRow, ScaleBlock; per-tensor scalars are folded
// into alpha instead: ScaleFolded).
func (s Scaling) Code() int32 { return scalings[s].code }

// Floats returns how many float32 A's and B's scales hold in mode s for an
// M×N×K problem (M, N, K ≥ 0): 1 and 1 (tensor), M and N (row), ⌈K/128⌉·M
// and ⌈N/128⌉·⌈K/128⌉ (block128); counts saturate at math.MaxInt64.
func (s Scaling) Floats(m, n, k int64) (a, b int64) { return scalings[s].floats(m, n, k) }

// At returns the indices into A's and B's scales that D[m, n]'s products
// take at k-block kb (K elements kb·128…) of a problem with rows = M and K,
// in the layouts Floats counts: row-major [⌈K/128⌉][M] for A's blocks,
// [⌈N/128⌉][⌈K/128⌉] for B's.
func (s Scaling) At(m, n, kb, rows, k int) (a, b int) { return scalings[s].at(m, n, kb, rows, k) }

// Valid reports whether s is one of the scaling modes.
func (s Scaling) Valid() bool { return int(s) < len(scalings) }

// String returns the short name used in manifests and tables ("row").
func (s Scaling) String() string {
	if s.Valid() {
		return scalings[s].name
	}
	return fmt.Sprintf("scaling(%d)", s)
}

// ParseScaling reads a short name ("tensor", "row", "block128").
func ParseScaling(s string) (Scaling, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if i := slices.IndexFunc(scalings[:], func(c scalingSpec) bool { return c.name == name }); i >= 0 {
		return Scaling(i), nil
	}
	return 0, fmt.Errorf("%w: unknown scaling %q: use %s", ErrInvalidArgument, s, scalingList(ScalingTensor))
}

// MarshalText writes the short name.
func (s Scaling) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("%w: %s", ErrInvalidArgument, s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a short name.
func (s *Scaling) UnmarshalText(b []byte) error {
	v, err := ParseScaling(string(b))
	*s = v
	return err
}
