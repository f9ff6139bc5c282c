package tuning

import (
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// nativeArch is the newest kernel arch dev runs natively for types t
// (the kernels it measures): the tuner times that image's kernels, not PTX
// compiled for an older arch.
func nativeArch(cat *kernels.Catalog, dev dispatch.DeviceInfo, t dispatch.Types) dispatch.Arch {
	var a dispatch.Arch
	for _, k := range cat.Kernels() {
		if k.RunsOn(dev.Arch) && k.Computes(t) {
			a = max(a, k.MinArch)
		}
	}
	return a
}

// candidates lists the kernel × split-K pairs of the native image that may
// run w at every M of sp on dev, with a distinct effective split and a
// workspace within cfg.Workspace. Those the model estimates slower than
// cfg.Prune× the best estimate at every sample M come back as pruned, but
// never what the run's base table routes w to there (the incumbent a new
// choice must beat: the model once pruned the committed route of
// Llama-3-8B's o at M = 182 and 256, 1.17× the fastest, for one 1.34× off:
// docs/perf/2026-12-07-h200-e). With cfg.BaseRoutes, only the pairs that
// table routes w to, none pruned.
func (cfg *Config) candidates(dev dispatch.DeviceInfo, w Weight, sp Span) (cands, pruned []Candidate) {
	pl := dispatch.NewPlanner(cfg.Catalog, nil, dev, dispatch.Limits{WorkspaceBytes: cfg.Workspace})
	native := nativeArch(cfg.Catalog, dev, w.Types)
	est := map[Candidate][]float64{}
	var all []Candidate
	routed := routesOf(cfg.BaseRoutes, dev, w, sp)
	ks := cfg.Catalog.Kernels() // a copy: take it once
	for i := range ks {
		k := &ks[i]
		if k.MinArch != native || !k.Computes(w.Types) {
			continue
		}
		splitKs := cfg.Splits
		if routed != nil { // the routed splits of this kernel only
			splitKs = nil
			for _, c := range routed {
				if c.Kernel == k.Name {
					splitKs = append(splitKs, c.SplitK)
				}
			}
		}
	splits:
		for _, split := range splitKs {
			c := Candidate{Kernel: k.Name, SplitK: split}
			// Every M, not the edges alone: what a plan needs is not monotone in
			// M (a repack plan's copies run in chunks only where no stream-K
			// partials precede them), and the tuner runs the bucket's inner Ms
			// too (Hi−1, the probe), as the table's users do.
			for m := sp.Lo; m <= sp.Hi; m++ {
				p := dispatch.PlaceholderProblem(m, w.N, w.K, w.Types)
				plan, err := pl.PlanKernel(&p, k.Name, split)
				if err != nil || plan.SplitK != split || plan.WorkspaceBytes > cfg.Workspace {
					continue splits
				}
			}
			for _, m := range sp.SampleMs() {
				p := dispatch.PlaceholderProblem(m, w.N, w.K, w.Types)
				est[c] = append(est[c], dispatch.EstimateSeconds(k, &p, split, dev))
			}
			all = append(all, c)
		}
	}
	if cfg.Prune <= 0 || cfg.BaseRoutes != nil {
		return all, nil
	}
	cands = slices.DeleteFunc(routesOf(cfg.incumbent, dev, w, sp), func(c Candidate) bool { return !slices.Contains(all, c) })
	for i := range sp.SampleMs() {
		best := math.Inf(1)
		for _, c := range all {
			best = min(best, est[c][i])
		}
		for _, c := range all {
			if est[c][i] <= cfg.Prune*best && !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	for _, c := range all {
		if !slices.Contains(cands, c) {
			pruned = append(pruned, c)
		}
	}
	return cands, pruned
}

// routesOf lists the kernels and split-Ks that t's exact and default
// entries for w route sp's sample Ms to (a bucket's kernel of ours, also
// beside a cuBLASLt algorithm) and those buckets' recorded runners-up of
// ours, or nil without t: the default's among every weight's, so that the
// default entry, chosen over the weights together, finds its route and
// runner-up timed on each.
func routesOf(t *dispatch.Table, dev dispatch.DeviceInfo, w Weight, sp Span) []Candidate {
	if t == nil {
		return nil
	}
	routed := []Candidate{}
	add := func(c Candidate) {
		if !slices.Contains(routed, c) {
			routed = append(routed, c)
		}
	}
	exact, def := t.Find(dev.Arch, w.Types, w.N, w.K)
	for _, m := range sp.SampleMs() {
		for _, e := range []*dispatch.Entry{exact, def} {
			if e == nil {
				continue
			}
			if b := e.Bucket(m); b != nil && b.Kernel != "" {
				add(Candidate{Kernel: b.Kernel, SplitK: max(b.SplitK, 1)})
				if c, ok := parseKernelCandidate(b.RunnerUp); ok {
					add(c)
				}
			}
		}
	}
	return routed
}
