package tuning

import (
	"fmt"
	"sync"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// ModelMeasurer is a Measurer that runs nothing, for sizing a tuning run
// before a GPU is at hand or choosing by the model for an arch no GPU at
// hand has: every check passes, every timing is the analytic model's
// estimate (dispatch.EstimateSeconds), and Prediction adds up the wall time
// the real run would spend by that model and the host-cost guesses below.
// Its timings must never enter a table as measurements (see Heuristic).
type ModelMeasurer struct {
	dev   dispatch.DeviceInfo
	cat   *kernels.Catalog
	spans []Span

	mu                 sync.Mutex
	p                  Prediction
	checkedAt, timedAt Shape // the (weight, M) whose buffers a real measurer would hold
}

// Prediction is what a real run would spend, by the model.
type Prediction struct {
	Checks, Timings int
	Seconds         float64          // wall time on this device
	CheckSeconds    float64          // of Seconds, the gate's share
	BySpan          map[Span]float64 // seconds per bucket
}

// Host-side guesses for the parts of a real run that are not kernel time:
// random inputs, copies between host and device, the checker's scan, and a
// graph capture.
const (
	hostElemsPerSec  = 1e9  // random bf16 draws (parallel) or checker scans
	copyBytesPerSec  = 20e9 // host↔device copies
	hostAllocPerSec  = 10e9 // zeroing the checker's reference arrays
	graphCaptureSecs = 1e-3
	eventCallSecs    = 6e-6 // what a pair of events adds to one call
)

// NewModelMeasurer models dev running the kernels of cat for buckets up to
// maxM.
func NewModelMeasurer(dev dispatch.DeviceInfo, cat *kernels.Catalog, maxM int) *ModelMeasurer {
	return &ModelMeasurer{dev: dev, cat: cat, spans: Spans(maxM), p: Prediction{BySpan: map[Span]float64{}}}
}

// Device returns the modelled device.
func (d *ModelMeasurer) Device() dispatch.DeviceInfo { return d.dev }

// Prediction returns what the calls so far would have cost.
func (d *ModelMeasurer) Prediction() Prediction {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.p
}

// spend adds predicted seconds at M to the total and to M's bucket; d.mu is
// held.
func (d *ModelMeasurer) spend(m int, secs float64) {
	d.p.Seconds += secs
	for _, s := range d.spans {
		if m >= s.Lo && m <= s.Hi {
			d.p.BySpan[s] += secs
		}
	}
}

// account estimates c at (w, m) and, holding d.mu, lets spend add what the
// call would cost. It returns the estimate in seconds.
func (d *ModelMeasurer) account(w Weight, m int, c Candidate, spend func(est float64)) (float64, error) {
	k := d.cat.Kernel(c.Kernel)
	if k == nil {
		return 0, fmt.Errorf("kernel %q is not in the manifest", c.Kernel)
	}
	p := dispatch.PlaceholderProblem(m, w.N, w.K, w.Types)
	est := dispatch.EstimateSeconds(k, &p, c.SplitK, d.dev)
	d.mu.Lock()
	defer d.mu.Unlock()
	spend(est)
	return est, nil
}

// Check passes every candidate and counts what a real gate would spend.
func (d *ModelMeasurer) Check(w Weight, m int, c Candidate) error {
	_, err := d.account(w, m, c, func(est float64) {
		mk, nk, mn := float64(m)*float64(w.K), float64(w.N)*float64(w.K), float64(m)*float64(w.N)
		if s := (Shape{Name: w.Name, M: m, N: w.N, K: w.K, Types: w.Types}); d.checkedAt != s {
			d.checkedAt = s
			d.spend(m, (mk+nk+mn)/hostElemsPerSec+2*(mk+nk)/copyBytesPerSec+17*mn/hostAllocPerSec)
		}
		gate := est + 2*mn/copyBytesPerSec + mn/hostElemsPerSec
		d.p.Checks++
		d.p.CheckSeconds += gate
		d.spend(m, gate)
	})
	return err
}

// Time returns the model's estimate and counts what graph replay would spend.
func (d *ModelMeasurer) Time(w Weight, m int, c Candidate, reps int) (Timing, error) {
	est, err := d.account(w, m, c, func(est float64) {
		if s := (Shape{Name: w.Name, M: m, N: w.N, K: w.K, Types: w.Types}); d.timedAt != s {
			d.timedAt = s
			elems := float64(m)*float64(w.K) + float64(w.N)*float64(w.K)
			d.spend(m, elems/hostElemsPerSec+2*elems/copyBytesPerSec)
		}
		d.p.Timings++
		copies := WeightCopies(w.N, w.K, w.Types.In, d.dev.L2Bytes)
		d.spend(m, graphCaptureSecs+float64((reps+3)*GraphCalls(m, w.N, w.K, copies))*est)
	})
	if err != nil {
		return Timing{}, err
	}
	return Timing{est * 1e6, est * 1e6}, nil
}

// Events returns the model's estimate plus what a pair of events adds, and
// counts what per-call timing after an L2 flush would spend.
func (d *ModelMeasurer) Events(w Weight, m int, c Candidate, calls int) (Timing, error) {
	est, err := d.account(w, m, c, func(est float64) {
		flush := float64(2*d.dev.L2Bytes) / d.dev.ReadBandwidth
		d.spend(m, float64(calls+10)*(est+flush+eventCallSecs))
	})
	if err != nil {
		return Timing{}, err
	}
	us := (est + eventCallSecs) * 1e6
	return Timing{us, us}, nil
}
