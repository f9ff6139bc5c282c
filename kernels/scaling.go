package kernels

import (
	"fmt"
	"slices"
	"strings"
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

var scalingNames = [...]string{ScalingTensor: "tensor", ScalingRow: "row", ScalingBlock: "block128"}

// Valid reports whether s is one of the scaling modes.
func (s Scaling) Valid() bool { return int(s) < len(scalingNames) }

// String returns the short name used in manifests and tables ("row").
func (s Scaling) String() string {
	if s.Valid() {
		return scalingNames[s]
	}
	return fmt.Sprintf("scaling(%d)", s)
}

// ParseScaling reads a short name ("tensor", "row", "block128").
func ParseScaling(s string) (Scaling, error) {
	if i := slices.Index(scalingNames[:], strings.ToLower(strings.TrimSpace(s))); i >= 0 {
		return Scaling(i), nil
	}
	return 0, fmt.Errorf("%w: unknown scaling %q: use tensor, row or block128", ErrInvalidArgument, s)
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
