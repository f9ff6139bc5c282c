package kernels

import (
	"fmt"
	"strings"
)

// DType is an element type of a GEMM operand.
type DType uint8

// The element types gemmroute knows. Inputs are F16, BF16 or E4M3; outputs are
// F16 or BF16.
const (
	DTypeInvalid DType = iota
	F16                // IEEE binary16
	BF16               // bfloat16
	E4M3               // FP8 e4m3 (sm_89 and newer), needs per-tensor scales
	F32                // float32, used for split-K partials only
)

var dtypeNames = [...]string{DTypeInvalid: "invalid", F16: "f16", BF16: "bf16", E4M3: "e4m3", F32: "f32"}

// String returns the short name used in tables and kernel names ("bf16").
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", d)
}

// Size is the element size in bytes (0 for an invalid type).
func (d DType) Size() int {
	switch d {
	case F16, BF16:
		return 2
	case E4M3:
		return 1
	case F32:
		return 4
	}
	return 0
}

// ParseDType reads a short name ("f16", "fp16", "bf16", "e4m3", "fp8").
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "f16", "fp16", "half":
		return F16, nil
	case "bf16":
		return BF16, nil
	case "e4m3", "fp8", "fp8e4m3":
		return E4M3, nil
	case "f32", "fp32":
		return F32, nil
	}
	return DTypeInvalid, fmt.Errorf("%w: unknown dtype %q: use f16, bf16 or e4m3", ErrInvalidArgument, s)
}

// MarshalText writes the short name.
func (d DType) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a short name.
func (d *DType) UnmarshalText(b []byte) error {
	v, err := ParseDType(string(b))
	*d = v
	return err
}
