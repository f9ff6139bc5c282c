package dispatch

import "strings"

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
}

// Presets of the GPUs people serve inference on. The H200's bandwidth and
// rate are ceilings the team measured (2026-11-30); the others are leads
// from datasheets (memory bandwidth, dense 16-bit tensor rate with fp32
// accumulation), good for ranking kernels, not for predicting times. What an
// engine allows a plan (its split-K workspace) is no part of a device: see
// Limits.
var (
	A100 = DeviceInfo{Name: "NVIDIA A100-SXM4-80GB", Arch: SM80, SMs: 108, L2Bytes: 40 << 20,
		SmemOptIn: 163 << 10, MemBytes: 80 << 30, ReadBandwidth: 1.8e12, PeakFLOPS: 280e12}
	H100 = DeviceInfo{Name: "NVIDIA H100 80GB HBM3", Arch: SM90, SMs: 132, L2Bytes: 50 << 20,
		SmemOptIn: 227 << 10, MemBytes: 80 << 30, ReadBandwidth: 3.0e12, PeakFLOPS: 750e12}
	H200 = DeviceInfo{Name: "NVIDIA H200", Arch: SM90, SMs: 132, L2Bytes: 60 << 20,
		SmemOptIn: 227 << 10, MemBytes: 141 << 30, ReadBandwidth: 4.54e12, PeakFLOPS: 750e12}
)

// presets are every device DevicePreset knows, by short name, with the
// substrings of the driver's device name that identify each, most specific
// first: "L40S" before "L4", "A100" before "A10", "H100 PCIe" before "H100".
var presets = []struct {
	short string
	match []string
	info  DeviceInfo
}{
	{"rtx4090", []string{"RTX 4090"}, DeviceInfo{Name: "NVIDIA GeForce RTX 4090", Arch: SM89, SMs: 128, L2Bytes: 72 << 20,
		SmemOptIn: 99 << 10, MemBytes: 24 << 30, ReadBandwidth: 1.0e12, PeakFLOPS: 165e12}},
	{"l40s", []string{"L40S"}, DeviceInfo{Name: "NVIDIA L40S", Arch: SM89, SMs: 142, L2Bytes: 96 << 20,
		SmemOptIn: 99 << 10, MemBytes: 48 << 30, ReadBandwidth: 0.864e12, PeakFLOPS: 362e12}},
	{"l4", []string{"L4"}, DeviceInfo{Name: "NVIDIA L4", Arch: SM89, SMs: 58, L2Bytes: 48 << 20,
		SmemOptIn: 99 << 10, MemBytes: 24 << 30, ReadBandwidth: 0.3e12, PeakFLOPS: 121e12}},
	{"a100-40", []string{"A100-SXM4-40GB", "A100-PCIE-40GB", "A100 40GB"}, DeviceInfo{Name: "NVIDIA A100-SXM4-40GB", Arch: SM80, SMs: 108,
		L2Bytes: 40 << 20, SmemOptIn: 163 << 10, MemBytes: 40 << 30, ReadBandwidth: 1.4e12, PeakFLOPS: 280e12}},
	{"a100", []string{"A100"}, A100},
	{"a10", []string{"A10"}, DeviceInfo{Name: "NVIDIA A10", Arch: SM86, SMs: 72, L2Bytes: 6 << 20,
		SmemOptIn: 99 << 10, MemBytes: 24 << 30, ReadBandwidth: 0.6e12, PeakFLOPS: 125e12}},
	{"h100-pcie", []string{"H100 PCIe"}, DeviceInfo{Name: "NVIDIA H100 PCIe", Arch: SM90, SMs: 114, L2Bytes: 50 << 20,
		SmemOptIn: 227 << 10, MemBytes: 80 << 30, ReadBandwidth: 1.8e12, PeakFLOPS: 600e12}},
	{"h100", []string{"H100"}, H100},
	{"h200", []string{"H200"}, H200},
	// Blackwell: no sm_100 image ships; the sm80 image's compute_80 PTX is
	// JIT-compiled there (correct, not tuned).
	{"b200", []string{"B200"}, DeviceInfo{Name: "NVIDIA B200", Arch: 100, SMs: 148, L2Bytes: 126 << 20,
		SmemOptIn: 227 << 10, MemBytes: 180 << 30, ReadBandwidth: 7.0e12, PeakFLOPS: 2000e12}},
}

// DevicePreset returns a preset by short name (DevicePresetNames lists
// them), for planning without a GPU.
func DevicePreset(name string) (DeviceInfo, error) {
	for _, p := range presets {
		if strings.EqualFold(name, p.short) {
			return p.info, nil
		}
	}
	return DeviceInfo{}, &ArgError{Field: "device preset", Value: name, Rule: "unknown device preset: use one of " + strings.Join(DevicePresetNames(), ", ")}
}

// DevicePresetNames lists the short names DevicePreset takes.
func DevicePresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.short
	}
	return out
}

// presetFor returns the preset whose identifying substring the driver's
// device name holds (the first in presets' order, most specific first), for
// its bandwidth and rate; ok is false for devices without one.
func presetFor(name string) (DeviceInfo, bool) {
	for _, p := range presets {
		for _, m := range p.match {
			if strings.Contains(name, m) {
				return p.info, true
			}
		}
	}
	return DeviceInfo{}, false
}
