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
// docs/perf/2026-12-07-h200-e), nor for a 16-bit weight the twins of its
// routes in the other 16-bit type (twinRoutes). With cfg.BaseRoutes, only
// the pairs that table routes w to, none pruned. With cfg.Unmeasured, no
// experimental kernel, whatever routes it.
func (cfg *Config) candidates(dev dispatch.DeviceInfo, w Weight, sp Span) (cands, pruned []Candidate) {
	pl := dispatch.NewPlanner(cfg.Catalog, nil, dev, dispatch.Limits{WorkspaceBytes: cfg.Workspace})
	native := nativeArch(cfg.Catalog, dev, w.Types)
	est := map[Candidate][]float64{}
	var all []Candidate
	routed := routesOf(cfg.BaseRoutes, dev, w, sp)
	ks := cfg.Catalog.Kernels() // a copy: take it once
	for i := range ks {
		k := &ks[i]
		if k.MinArch != native || !k.Computes(w.Types) || (cfg.Unmeasured && k.Experimental) {
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
	kept := routesOf(cfg.incumbent, dev, w, sp)
	for _, c := range twinRoutes(cfg.Catalog, cfg.incumbent, dev, w, sp) {
		if !slices.Contains(kept, c) {
			kept = append(kept, c)
		}
	}
	cands = slices.DeleteFunc(kept, func(c Candidate) bool { return !slices.Contains(all, c) })
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
			if b := e.Bucket(m); b != nil {
				for _, c := range bucketRoutes(b) {
					add(c)
				}
			}
		}
	}
	return routed
}

// bucketRoutes is what bucket b runs of our kernels: its kernel and
// split-K (also beside a cuBLASLt algorithm) and its recorded runner-up;
// none where b records no kernel of ours.
func bucketRoutes(b *dispatch.Bucket) []Candidate {
	if b.Kernel == "" {
		return nil
	}
	out := []Candidate{{Kernel: b.Kernel, SplitK: max(b.SplitK, 1)}}
	if c, ok := parseKernelCandidate(b.RunnerUp); ok {
		out = append(out, c)
	}
	return out
}

// twinRoutes lists, for a 16-bit weight w (bf16 or f16), what t routes the
// same weight to in the other 16-bit type there, as the kernels of cat that
// compute w's type with those kernels' spec otherwise (twin): the routes a
// tune measured in one type are timed in the other, not left to the model.
// The f16 tune of M = 17…256 chose ts 128x64 split 2 for o at [65, 128], 21
// µs, where bf16's route sh_ts 64x96 runs 16 (docs/perf/2026-12-07-h200-f,
// call F: the model had pruned its f16 twin).
func twinRoutes(cat *kernels.Catalog, t *dispatch.Table, dev dispatch.DeviceInfo, w Weight, sp Span) []Candidate {
	other := map[kernels.DType]kernels.DType{kernels.BF16: kernels.F16, kernels.F16: kernels.BF16}[w.Types.In]
	if t == nil || other == 0 || w.Types.Out != w.Types.In || w.Types.Scaled() {
		return nil
	}
	tw := w
	tw.Types = kernels.Types{In: other, Out: other}
	var out []Candidate
	for _, c := range routesOf(t, dev, tw, sp) {
		if name, ok := twin(cat, c.Kernel, w.Types); ok {
			out = append(out, Candidate{Kernel: name, SplitK: c.SplitK})
		}
	}
	return out
}

// twin is the kernel of cat that computes types with kernel name's spec
// otherwise — family, image, tile, stages, threads, alignment, split-K and
// reduction: the other 16-bit build of one instance.
func twin(cat *kernels.Catalog, name string, types kernels.Types) (string, bool) {
	k := cat.Kernel(name)
	if k == nil {
		return "", false
	}
	for _, o := range cat.Kernels() {
		if o.Computes(types) && o.Family == k.Family && o.Image == k.Image && o.TileM == k.TileM && o.TileN == k.TileN &&
			o.TileK == k.TileK && o.Stages == k.Stages && o.Threads == k.Threads && o.PtrAlign == k.PtrAlign &&
			o.MaxSplitK == k.MaxSplitK && o.Reduction == k.Reduction && o.Experimental == k.Experimental {
			return o.Name, true
		}
	}
	return "", false
}
