package kernels

import (
	"fmt"
	"strconv"
	"strings"
)

// Arch is a compute capability written as major*10+minor (SM80 = 8.0).
type Arch int

// The architectures gemmroute plans for.
const (
	SM80 Arch = 80 // A100
	SM86 Arch = 86 // RTX 30xx, A10, A40
	SM89 Arch = 89 // L4, L40, RTX 40xx
	SM90 Arch = 90 // H100, H200
)

// ArchFromCC returns the Arch of a compute capability.
func ArchFromCC(major, minor int) Arch { return Arch(major*10 + minor) }

// String writes "sm_90".
func (a Arch) String() string { return "sm_" + strconv.Itoa(int(a)) }

// ParseArch reads "sm_90", "sm90" or "90".
func ParseArch(s string) (Arch, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "sm"), "_")
	t = strings.TrimSuffix(t, "a")
	n, err := strconv.Atoi(t)
	if err != nil || n < 50 || n > 200 {
		return 0, fmt.Errorf("%w: unknown arch %q: use sm_80, sm_86, sm_89, sm_90 or sm_100", ErrInvalidArgument, s)
	}
	return Arch(n), nil
}

// MarshalText writes "sm_90".
func (a Arch) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads "sm_90".
func (a *Arch) UnmarshalText(b []byte) error {
	v, err := ParseArch(string(b))
	*a = v
	return err
}

// SupportsFP8 reports whether the architecture has e4m3 arithmetic (sm_89+).
func (a Arch) SupportsFP8() bool { return a >= SM89 }
