package tuning

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Method is the provenance's method line of a measured table.
const Method = "autotune tune: constraint survivors × split-K gated against a float64 reference at each bucket's edges and hi−1; " +
	"screened, then timed by CUDA-graph replay over rotating weights (≥ 3× L2), median of the replays; near-ties and noisy timings timed again; " +
	choiceRule + ". " + heuristicNote

// MethodBaseRoutes is the method line of a table that tune -base-routes
// measured again: its routes were chosen by earlier full tunes.
const MethodBaseRoutes = "autotune tune -base-routes: each bucket's route and recorded runner-up of the -base table (chosen by a full tune; " +
	"with -vendor, cuBLASLt's top heuristic algorithms too) gated against a float64 reference at the bucket's edges and hi−1, " +
	"timed by CUDA-graph replay over rotating weights (≥ 3× L2), median of the replays; " +
	choiceRule + " among them. " + heuristicNote

// choiceRule and heuristicNote are what both method lines say of how a
// bucket is chosen (Span.SampleMs) and of unmeasured entries.
const (
	choiceRule    = "choice = least worst-case slowdown over the bucket's edges (from M = 257 on, and its geometric middle)"
	heuristicNote = "Entries without times_us are heuristic, not measured."
)

// Provenance describes a table measured on dev with the kernel set of cat
// by method (Method or MethodBaseRoutes); driver is the driver version (""
// when unknown).
func Provenance(cat *kernels.Catalog, dev dispatch.DeviceInfo, driver, method string) dispatch.Provenance {
	return dispatch.Provenance{Source: "measured", Device: dev.Name, SMs: dev.SMs, Arch: dev.Arch.String(), Driver: driver,
		Date: time.Now().UTC().Format("2006-01-02"), Method: method}
}

// Merge merges entries into base under prov and checks that the result, as
// written, loads against cat: the table to save or to route with. Model
// entries do not replace measured ones unless replaceMeasured is set; kept
// lists those that stayed.
func Merge(base *dispatch.Table, prov dispatch.Provenance, entries []dispatch.Entry, cat *kernels.Catalog, replaceMeasured bool) (*dispatch.Table, []dispatch.EntryKey, error) {
	t, kept, err := base.Merge(prov, entries, replaceMeasured)
	if err != nil {
		return nil, nil, err
	}
	data, err := t.Marshal()
	if err != nil {
		return nil, nil, err
	}
	if _, err := dispatch.LoadTable("the tuned table", data, cat); err != nil {
		return nil, nil, fmt.Errorf("the tuned table would not load: %w", err)
	}
	return t, kept, nil
}

// Measured returns copies of entries marked as measured on dev today; a
// bucket kept from the base table (keepOutside) keeps its own source,
// device and date where they are not these.
func Measured(entries []dispatch.Entry, dev dispatch.DeviceInfo) []dispatch.Entry {
	out := make([]dispatch.Entry, len(entries))
	for i, e := range entries {
		e.Source, e.Device, e.Date = dispatch.SourceMeasured, dev.Name, time.Now().UTC().Format("2006-01-02")
		e.Buckets = slices.Clone(e.Buckets)
		for j := range e.Buckets {
			e.Buckets[j].Unstamp(&e)
		}
		out[i] = e
	}
	return out
}

// Heuristic returns copies of entries marked as the model's choices for dev
// today: the entries a model makes. The buckets the run chose lose what
// only a measurement may say; those kept from the base table outside
// MinM…MaxM (keepOutside) keep their times and provenance.
func Heuristic(entries []dispatch.Entry, dev dispatch.DeviceInfo) []dispatch.Entry {
	out := make([]dispatch.Entry, len(entries))
	for i, e := range entries {
		e.Buckets = slices.Clone(e.Buckets)
		e.MarkModel(dev.Name, time.Now().UTC().Format("2006-01-02"))
		out[i] = e
	}
	return out
}

// keepOutside returns entries with, when minM > 1, each entry's buckets
// outside minM…maxM taken from base (the entry of its key, else the
// default for its arch and types): a run that retuned those buckets alone
// leaves the others as they were, each with its own source, device and
// date (Bucket.Stamp: a bucket the model chose, or one measured on another
// card or day, says so). A base bucket that straddles an edge of the tuned
// range keeps its choice on the part outside it (with the times measured
// there), so that a run up to 8192 can retune a base whose last bucket is
// [4097, ∞).
func keepOutside(entries []dispatch.Entry, base *dispatch.Table, minM, maxM int) ([]dispatch.Entry, error) {
	if minM <= 1 {
		return entries, nil
	}
	out := make([]dispatch.Entry, len(entries))
	for i, e := range entries {
		exact, def := base.Find(e.Arch, e.Types, e.N, e.K)
		from := cmp.Or(exact, def)
		if from == nil {
			return nil, fmt.Errorf("tuning: %s: the base table has no entry for its buckets outside M = %d…%d: tune every bucket (MinM 1)", e.Key(), minM, maxM)
		}
		kept := slices.Clone(from.Buckets)
		for j := range kept {
			kept[j].Stamp(from)
		}
		var bs []dispatch.Bucket
		for _, b := range kept {
			if b.MinM < minM {
				bs = append(bs, clip(b, b.MinM, min(upper(b), minM-1)))
			}
		}
		for _, b := range e.Buckets {
			if b.MinM >= minM && b.MaxM != 0 && b.MaxM <= maxM {
				bs = append(bs, b)
			}
		}
		for _, b := range kept {
			if upper(b) > maxM {
				bs = append(bs, clip(b, max(b.MinM, maxM+1), b.MaxM))
			}
		}
		for j := 0; j < len(bs); j++ {
			if j == 0 && bs[0].MinM != 1 || j > 0 && bs[j].MinM != bs[j-1].MaxM+1 || j == len(bs)-1 && bs[j].MaxM != 0 {
				return nil, fmt.Errorf("tuning: %s: the base table's buckets (from %s) do not meet the tuned M = %d…%d: tune every bucket (MinM 1)", e.Key(), from.Key(), minM, maxM)
			}
		}
		e.Buckets = bs
		out[i] = e
	}
	return out, nil
}

// upper is b's last M (MaxInt for the open bucket).
func upper(b dispatch.Bucket) int {
	if b.MaxM == 0 {
		return math.MaxInt
	}
	return b.MaxM
}

// clip is b on [lo, hi] (hi 0: open), with the times measured there.
func clip(b dispatch.Bucket, lo, hi int) dispatch.Bucket {
	if lo == b.MinM && hi == b.MaxM {
		return b
	}
	b.MinM, b.MaxM = lo, hi
	b.TimesUS = maps.Clone(b.TimesUS)
	maps.DeleteFunc(b.TimesUS, func(m int, _ float64) bool { return !b.Contains(m) })
	if len(b.TimesUS) == 0 {
		b.TimesUS = nil
	}
	return b
}

// changedRoute reports whether one of routes runs a kernel cfg.Changed
// reports.
func (cfg *Config) changedRoute(routes []Candidate) bool {
	return slices.ContainsFunc(routes, func(c Candidate) bool { return cfg.Changed(c.Kernel) })
}

// keepUnchanged narrows a Config.Changed run's entries to BaseRoutes' own:
// in MinM…MaxM, an exact entry's bucket that no unit of its weight measured,
// and a default entry's bucket whose own route and runner-up did not
// change, become BaseRoutes' bucket there again (clipped to the bucket,
// stamped with its entry's provenance), their choices dropped, and so does
// the open bucket past MaxM where the one below it did; an entry
// BaseRoutes lacks is left out.
func (cfg *Config) keepUnchanged(entries []dispatch.Entry, choices []Choice, spans []*SpanResult, dev dispatch.DeviceInfo) ([]dispatch.Entry, []Choice, error) {
	type unit struct {
		key dispatch.EntryKey
		lo  int
	}
	measured := map[unit]bool{}
	for _, r := range spans {
		measured[unit{r.Weight.Key(dev.Arch), r.Span.Lo}] = true
	}
	kept := map[unit]bool{} // buckets given back to BaseRoutes
	var out []dispatch.Entry
	for _, e := range entries {
		exact, def := cfg.BaseRoutes.Find(e.Arch, e.Types, e.N, e.K)
		from := exact
		if e.N == 0 && e.K == 0 {
			from = def
		}
		if from == nil {
			continue
		}
		e.Buckets = slices.Clone(e.Buckets)
		prevKept := false
		for i, b := range e.Buckets {
			inRun := b.MinM >= cfg.MinM && b.MaxM != 0 && b.MaxM <= cfg.MaxM
			open := b.MaxM == 0 && cfg.MinM <= 1 // past MaxM, routed as the bucket below (keepOutside gives -base's where MinM > 1)
			if !inRun && !open {
				continue
			}
			old := from.Bucket(b.MinM)
			if old == nil || upper(*old) < upper(b) {
				return nil, nil, fmt.Errorf("tuning: %s: no bucket of the base table's covers %s: tune without -changed-since", e.Key(), b.String())
			}
			keep := prevKept
			if inRun && from == def {
				keep = !cfg.changedRoute(bucketRoutes(old))
			} else if inRun {
				keep = !measured[unit{e.Key(), b.MinM}]
			}
			if keep {
				e.Buckets[i] = clip(*old, b.MinM, b.MaxM)
				e.Buckets[i].Stamp(from)
				kept[unit{e.Key(), b.MinM}] = true
			}
			prevKept = keep
		}
		out = append(out, e)
	}
	choices = slices.DeleteFunc(slices.Clone(choices), func(c Choice) bool {
		return kept[unit{c.Key, c.Bucket.MinM}] || !slices.ContainsFunc(out, func(e dispatch.Entry) bool { return e.Key() == c.Key })
	})
	return out, choices, nil
}

// ChangedSince is a Config.Changed that reports the kernels of cat whose
// compiled code is not old's: a digest that differs, or a kernel old lacks
// (old: the manifest the table was measured with).
func ChangedSince(old, cat *kernels.Catalog) func(kernel string) bool {
	return func(name string) bool {
		k, o := cat.Kernel(name), old.Kernel(name)
		return k == nil || o == nil || k.Digest != o.Digest
	}
}
