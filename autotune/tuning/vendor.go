package tuning

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
)

// VendorMeasurer is a Measurer that also measures cuBLASLt's algorithms
// (the GPU harness's, whose engine loaded the library): Check, Time and
// Events take its candidates as they take ours.
type VendorMeasurer interface {
	Measurer
	// VendorLibrary is the measurer's cuBLASLt: the loaded version, or
	// why none is loaded.
	VendorLibrary() dispatch.VendorLibrary
	// VendorAlgorithms returns up to n of the algorithms cuBLASLt's
	// heuristic proposes for w at M = m, best first, as candidates
	// (dispatch.Planner.VendorAlgorithms, with the engine's layouts and
	// workspace).
	VendorAlgorithms(w Weight, m, n int) ([]Candidate, error)
	// VendorFits returns nil when cuBLASLt candidate c runs w at M = m
	// (dispatch.Planner.PlanVendor), else why not: an error wrapping
	// dispatch.ErrNoKernel when the library does not take it there, any
	// other error when asking failed.
	VendorFits(w Weight, m int, c Candidate) error
}

// DefaultVendorAlgorithms is how many of cuBLASLt's heuristic algorithms
// DefaultConfig times per bucket beside our kernels.
const DefaultVendorAlgorithms = 8

// VendorUse says how many of cuBLASLt's algorithms per bucket a run of cfg
// on ms takes as candidates, and a line saying so for the run's log:
// cfg.VendorAlgorithms when every measurer is a VendorMeasurer with the
// same version of cuBLASLt loaded; else 0, the run tuning our kernels
// only (the line says why: off, absent on a device, or versions that
// differ).
func (cfg *Config) VendorUse(ms []Measurer) (n int, note string) {
	if cfg.VendorAlgorithms == 0 {
		return 0, "cuBLASLt: off; our kernels only are candidates"
	}
	version := 0
	for i, m := range ms {
		vm, ok := m.(VendorMeasurer)
		if !ok {
			return 0, fmt.Sprintf("cuBLASLt: measurer %d (%s) cannot measure it; our kernels only are candidates", i, m.Device().Name)
		}
		lib := vm.VendorLibrary()
		switch {
		case lib.Version == 0:
			return 0, fmt.Sprintf("cuBLASLt on measurer %d (%s): %s; our kernels only are candidates", i, m.Device().Name, lib.Absent)
		case version != 0 && lib.Version != version:
			return 0, fmt.Sprintf("cuBLASLt: the measurers loaded %s and %s (a table records one version): our kernels only are candidates; give every device the same library",
				dispatch.VendorVersion(version), dispatch.VendorVersion(lib.Version))
		}
		version = lib.Version
	}
	return cfg.VendorAlgorithms, fmt.Sprintf("cuBLASLt %s: its top %d heuristic algorithms per bucket are candidates beside our kernels for bf16, f16 and e4m3 per-tensor weights",
		dispatch.VendorVersion(version), cfg.VendorAlgorithms)
}

// vendorCandidates lists up to cfg.VendorAlgorithms of cuBLASLt's
// algorithms as candidates for w over sp, when ms measures them and the
// engine hands cuBLASLt w's types (dispatch.VendorTypes; else none): the
// heuristic is asked at each sample M, its proposals taken rank by rank
// across the Ms (every M's first, then every M's second, …), each once,
// and only those the library takes at every M the span runs (gate, sample
// and probe Ms) are kept.
func (cfg *Config) vendorCandidates(ms Measurer, w Weight, sp Span) ([]Candidate, error) {
	vm, ok := ms.(VendorMeasurer)
	if !ok || cfg.VendorAlgorithms == 0 || !dispatch.VendorTypes(w.Types) {
		return nil, nil
	}
	var lists [][]Candidate
	for _, m := range sp.SampleMs() {
		cs, err := vm.VendorAlgorithms(w, m, cfg.VendorAlgorithms)
		if err != nil {
			return nil, fmt.Errorf("%s M=%d: cuBLASLt's heuristic: %w", w.Name, m, err)
		}
		lists = append(lists, cs)
	}
	runs := append(sp.GateMs(), sp.TimedMs()...)
	slices.Sort(runs)
	runs = slices.Compact(runs)
	var out []Candidate
	for rank := 0; len(out) < cfg.VendorAlgorithms; rank++ {
		more := false
		for _, cs := range lists {
			if rank >= len(cs) || len(out) == cfg.VendorAlgorithms {
				continue
			}
			more = true
			c := cs[rank]
			if slices.Contains(out, c) {
				continue
			}
			fits, err := vendorFitsAll(vm, w, runs, c)
			if err != nil {
				return nil, err
			}
			if fits {
				out = append(out, c)
			}
		}
		if !more {
			break
		}
	}
	return out, nil
}

// vendorFitsAll reports whether cuBLASLt takes c for w at every M of ms; an
// error other than the library's refusal stops the run.
func vendorFitsAll(vm VendorMeasurer, w Weight, ms []int, c Candidate) (bool, error) {
	for _, m := range ms {
		err := vm.VendorFits(w, m, c)
		switch {
		case errors.Is(err, dispatch.ErrNoKernel):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("%s M=%d: checking %s: %w", w.Name, m, c, err)
		}
	}
	return true, nil
}
