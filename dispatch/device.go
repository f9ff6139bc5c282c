package dispatch

import (
	"fmt"
	"strings"
)

// DeviceInfo describes a GPU for planning. It can be filled from a live device
// (Engine does) or from a preset, so plans can be made without a GPU.
type DeviceInfo struct {
	Name          string  // e.g. "NVIDIA H200"
	Arch          Arch    // compute capability
	SMs           int     // streaming multiprocessors
	L2Bytes       int64   // L2 cache size
	SmemOptIn     int     // opt-in shared memory per block, bytes
	MemBytes      int64   // device memory
	ReadBandwidth float64 // measured pure-read bandwidth, bytes/s (0: unknown)
	PeakFLOPS     float64 // measured dense 16-bit tensor rate, FLOP/s (0: unknown)
	// WorkspaceBytes caps the split-K workspace a plan may need (an engine
	// sets its per-stream reservation, Options.WorkspaceBytes); 0: no cap.
	WorkspaceBytes int64
}

// Presets of common devices. Bandwidth and rate are measured ceilings where
// the team measured them (H200, 2026-11-30) and datasheet leads otherwise.
var (
	A100 = DeviceInfo{Name: "NVIDIA A100-SXM4-80GB", Arch: SM80, SMs: 108, L2Bytes: 40 << 20,
		SmemOptIn: 163 << 10, MemBytes: 80 << 30, ReadBandwidth: 1.8e12, PeakFLOPS: 280e12}
	H100 = DeviceInfo{Name: "NVIDIA H100 80GB HBM3", Arch: SM90, SMs: 132, L2Bytes: 50 << 20,
		SmemOptIn: 227 << 10, MemBytes: 80 << 30, ReadBandwidth: 3.0e12, PeakFLOPS: 750e12}
	H200 = DeviceInfo{Name: "NVIDIA H200", Arch: SM90, SMs: 132, L2Bytes: 60 << 20,
		SmemOptIn: 227 << 10, MemBytes: 141 << 30, ReadBandwidth: 4.54e12, PeakFLOPS: 750e12}
)

// DevicePreset returns a preset by short name: "a100", "h100" or "h200".
func DevicePreset(name string) (DeviceInfo, error) {
	switch strings.ToLower(name) {
	case "a100":
		return A100, nil
	case "h100":
		return H100, nil
	case "h200":
		return H200, nil
	}
	return DeviceInfo{}, fmt.Errorf("unknown device preset %q: use a100, h100 or h200", name)
}

// withoutWorkspace is d for plans that must not split K (a stream being
// captured with no workspace): a workspace cap that no split-K plan fits
// under, its fp32 partials needing at least 8 bytes.
func (d DeviceInfo) withoutWorkspace() DeviceInfo {
	d.WorkspaceBytes = 1
	return d
}
