package tuning

import (
	"fmt"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Method is the provenance's method line of a measured table.
const Method = "autotune tune: constraint survivors × split-K gated against a float64 reference at each bucket's edges and hi−1; " +
	"screened, then timed by CUDA-graph replay over rotating weights (≥ 3× L2), median of the replays; near-ties and noisy timings timed again; " +
	"choice = least worst-case slowdown over the bucket's edges. Entries without times_us are heuristic, not measured."

// Provenance describes a table measured on dev with the kernel set of cat;
// driver is the driver version ("" when unknown).
func Provenance(cat *kernels.Catalog, dev dispatch.DeviceInfo, driver string) dispatch.Provenance {
	return dispatch.Provenance{Source: "measured", Device: dev.Name, SMs: dev.SMs, Arch: dev.Arch.String(), Driver: driver,
		Date: time.Now().UTC().Format("2006-01-02"), Method: Method}
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

// Measured returns copies of entries marked as measured on dev today.
func Measured(entries []dispatch.Entry, dev dispatch.DeviceInfo) []dispatch.Entry {
	out := make([]dispatch.Entry, len(entries))
	for i, e := range entries {
		e.Source, e.Device, e.Date = dispatch.SourceMeasured, dev.Name, time.Now().UTC().Format("2006-01-02")
		out[i] = e
	}
	return out
}

// Heuristic returns copies of entries without what only a measurement may
// say, marked as the model's choices for dev: the entries a model makes.
func Heuristic(entries []dispatch.Entry, dev dispatch.DeviceInfo) []dispatch.Entry {
	out := make([]dispatch.Entry, len(entries))
	for i, e := range entries {
		e.Buckets = append([]dispatch.Bucket(nil), e.Buckets...)
		e.StripMeasurements()
		e.Device, e.Date = dev.Name, time.Now().UTC().Format("2006-01-02")
		out[i] = e
	}
	return out
}
