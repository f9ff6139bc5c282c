//go:build !nocuda

package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

func init() {
	commands["bench"] = command{"time the engine's chosen kernels by graph replay and per-call events", runBench}
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", "-shapes FILE [-csv OUT] [-peer PEER.csv]", stderr)
	shapesPath := fs.String("shapes", "", "shapes CSV: name,M,N,K[,dtype]")
	outPath := fs.String("csv", "", "write results here")
	peerPath := fs.String("peer", "", "peer_cublas.py output to put beside ours")
	readBW := fs.Float64("read-bw", 0, "measured pure-read bandwidth, bytes/s (default: the device preset's)")
	peak := fs.Float64("peak", 0, "measured dense 16-bit rate, FLOP/s (default: the device preset's)")
	reps := fs.Int("reps", 20, "graph replays per timing (after 3 warm-up replays)")
	tablePath := fs.String("table", "", "bucket table to route with (default: the embedded buckets.yaml)")
	if _, code := parse(fs, args); code >= 0 {
		return code
	}
	if *shapesPath == "" {
		fmt.Fprintln(stderr, "bench: -shapes is required")
		return 2
	}
	shapes, err := readShapes(*shapesPath)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	peer := map[string]float64{}
	if *peerPath != "" {
		if peer, err = readPeer(*peerPath); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	opts := dispatch.Options{}
	if *tablePath != "" {
		cat, err := loadCatalog("")
		if err == nil {
			opts.Table, err = loadTableFile(*tablePath, cat)
		}
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	b, err := newBencher(0, *reps, opts)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	defer b.close()
	dev := b.eng.Device()
	if *readBW == 0 {
		*readBW = dev.ReadBandwidth
	}
	if *peak == 0 {
		*peak = dev.PeakFLOPS
	}
	fmt.Fprintf(stdout, "# %s (%s, %d SMs, L2 %d MiB); roofline from read %.2f TB/s, dense %.0f TFLOP/s\n",
		dev.Name, dev.Arch, dev.SMs, dev.L2Bytes>>20, *readBW/1e12, *peak/1e12)
	var results []benchResult
	for _, s := range shapes {
		r, err := b.run(s)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s M=%d N=%d K=%d: %v\n", s.name, s.m, s.n, s.k, err)
			return 1
		}
		flops, bytes := gemmWork(s.m, s.n, s.k, s.dtype)
		r.floorUS = max(flops / *peak, bytes / *readBW) * 1e6
		r.peerUS = peer[peerKey(s.name, s.m, s.n, s.k, s.dtype)]
		results = append(results, r)
		fmt.Fprintln(stdout, r.line())
	}
	if *outPath != "" {
		if err := writeResults(*outPath, results); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	return 0
}

// bencher holds the engine, a stream, an L2 flush buffer and events.
type bencher struct {
	ctx        *cuda.Context
	eng        *dispatch.Engine
	stream     cuda.Stream
	flush      uintptr
	flushWords int64
	ev0, ev1   cuda.Event
	reps       int
	rng        *rand.Rand
}

// newBencher opens GPU ordinal device with opts and reserves the engine's
// split-K workspace (what its planner plans for) on its timing stream.
func newBencher(device, reps int, opts dispatch.Options) (*bencher, error) {
	b := &bencher{reps: reps, rng: rand.New(rand.NewPCG(1, uint64(device)))}
	var err error
	if b.ctx, err = cuda.Open(device); err != nil {
		return nil, err
	}
	if b.eng, err = dispatch.Open(device, opts); err != nil {
		return nil, err
	}
	if b.stream, err = b.ctx.NewStream(); err != nil {
		return nil, err
	}
	if err = b.eng.Reserve(dispatch.Stream(b.stream), b.eng.Device().WorkspaceBytes); err != nil {
		return nil, err
	}
	b.flushWords = 2 * b.eng.Device().L2Bytes / 4
	if b.flush, err = b.ctx.Alloc(b.flushWords * 4); err != nil {
		return nil, err
	}
	if b.ev0, err = b.ctx.NewEvent(); err != nil {
		return nil, err
	}
	b.ev1, err = b.ctx.NewEvent()
	return b, err
}

func (b *bencher) close() {
	_ = b.ctx.Free(b.flush)
	_ = b.eng.Close()
	_ = b.ctx.Close()
}

// devRandom allocates n random 16-bit elements of dtype dt on the device.
func (b *bencher) devRandom(n int64, dt dispatch.DType) (uintptr, error) {
	host := gemmtest.Random(dt, int(n), b.rng)
	p, err := b.ctx.Alloc(n * 2)
	if err != nil {
		return 0, err
	}
	return p, b.ctx.CopyIn(p, unsafe.Pointer(&host[0]), n*2)
}

// run checks the engine's plan for s against the CPU reference, then times
// it: graph replay over rotating weights (≥ 3× L2), per-call events after an
// L2 flush, and the host cost of GEMM beside a bare launch.
func (b *bencher) run(s shape) (benchResult, error) {
	r := benchResult{shape: s}
	chk, err := b.newChecker(s)
	if err != nil {
		return r, err
	}
	defer chk.free()
	if err := chk.run(b.eng.GEMM); err != nil {
		return r, err
	}
	ops, err := b.newOperands(s)
	if err != nil {
		return r, err
	}
	defer ops.free()
	probs := ops.probs
	pl, err := b.eng.Plan(&probs[0])
	if err != nil {
		return r, err
	}
	r.kernel, r.splitK, r.level = pl.Kernel.Name, pl.SplitK, pl.Level.String()
	st := dispatch.Stream(b.stream)
	if r.graphUS, r.graphP90, err = b.graphTime(probs, b.reps, func(p *dispatch.Problem) error { return b.eng.GEMM(p, st) }); err != nil {
		return r, err
	}
	if r.evUS, r.evP90, err = b.eventTime(probs, eventCalls, func(p *dispatch.Problem) error { return b.eng.GEMM(p, st) }); err != nil {
		return r, err
	}
	r.hostGEMM, err = hostTime(b, func(i int) error { return b.eng.GEMM(&probs[i%len(probs)], st) })
	if err != nil {
		return r, err
	}
	r.hostLaunch, err = hostTime(b, func(i int) error { return b.eng.Launch(pl, &probs[i%len(probs)], st) })
	return r, err
}

// eventCalls is how many per-call event timings the second column takes.
const eventCalls = 50

// eventTime is the second column: calls timed one by one with events, each
// after an L2 flush (a write of 2× L2), over the rotating problems, after 10
// warm-up calls; the median and p90 in microseconds.
func (b *bencher) eventTime(probs []dispatch.Problem, calls int, call func(*dispatch.Problem) error) (med, hi float64, err error) {
	var ev []float64
	for i := range calls + 10 {
		if err := b.ctx.Fill(b.flush, uint32(i), b.flushWords, b.stream); err != nil {
			return 0, 0, err
		}
		ms, err := b.timed(func() error { return call(&probs[i%len(probs)]) })
		if err != nil {
			return 0, 0, err
		}
		if i >= 10 {
			ev = append(ev, ms*1e3)
		}
	}
	return median(ev), p90(ev), nil
}

// graphTime captures calls over the rotating problems into one graph (R
// calls, R a multiple of the rotation, about 32 for small problems) and
// returns the median and p90 per-call microseconds over reps replays after
// three warm-up replays.
func (b *bencher) graphTime(probs []dispatch.Problem, reps int, call func(*dispatch.Problem) error) (med, hi float64, err error) {
	p := probs[0]
	calls := graphCalls(p.M, p.N, p.K, len(probs))
	g, err := b.ctx.Capture(b.stream, func() error {
		for i := range calls {
			if err := call(&probs[i%len(probs)]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	defer b.ctx.DestroyGraph(g)
	var ts []float64
	for i := range reps + 3 {
		ms, err := b.timed(func() error { return b.ctx.Replay(g, b.stream) })
		if err != nil {
			return 0, 0, err
		}
		if i >= 3 {
			ts = append(ts, ms*1e3/float64(calls))
		}
	}
	return median(ts), p90(ts), nil
}

// operands are one shape's device buffers for timing: activations, the
// weight copied until the copies span ≥ 3× L2 (so each call reads its weight
// from memory), the output, and one problem per weight copy.
type operands struct {
	b     *bencher
	bufs  []uintptr
	probs []dispatch.Problem
}

func (b *bencher) newOperands(s shape) (*operands, error) {
	o := &operands{b: b}
	if err := o.alloc(s); err != nil {
		o.free()
		return nil, err
	}
	return o, nil
}

func (o *operands) alloc(s shape) error {
	b := o.b
	wElems := int64(s.n) * int64(s.k)
	copies := weightCopies(s.n, s.k, s.dtype, b.eng.Device().L2Bytes)
	a, err := b.devRandom(int64(s.m)*int64(s.k), s.dtype)
	if err != nil {
		return err
	}
	o.bufs = append(o.bufs, a)
	w0, err := b.devRandom(wElems, s.dtype)
	if err != nil {
		return err
	}
	o.bufs = append(o.bufs, w0)
	ws := []uintptr{w0}
	for len(ws) < copies {
		w, err := b.ctx.Alloc(wElems * 2)
		if err != nil {
			return err
		}
		o.bufs, ws = append(o.bufs, w), append(ws, w)
		if err := b.ctx.CopyDevice(w, w0, wElems*2); err != nil {
			return err
		}
	}
	d, err := b.ctx.Alloc(int64(s.m) * int64(s.n) * 2)
	if err != nil {
		return err
	}
	o.bufs = append(o.bufs, d)
	for _, w := range ws {
		o.probs = append(o.probs, dispatch.Problem{M: s.m, N: s.n, K: s.k, In: s.dtype, Out: s.dtype, LDA: s.k, LDB: s.k, LDC: s.n,
			A: dispatch.DevicePtr(a), B: dispatch.DevicePtr(w), D: dispatch.DevicePtr(d), Alpha: 1})
	}
	return nil
}

func (o *operands) free() {
	for _, p := range o.bufs {
		_ = o.b.ctx.Free(p)
	}
}

// timed returns the milliseconds between events around f on the stream.
func (b *bencher) timed(f func() error) (float64, error) {
	if err := b.ctx.Record(b.ev0, b.stream); err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		return 0, err
	}
	if err := b.ctx.Record(b.ev1, b.stream); err != nil {
		return 0, err
	}
	return b.ctx.Elapsed(b.ev0, b.ev1)
}

// hostTime is the host microseconds per call of f over 200 calls, measured
// after the stream drained.
func hostTime(b *bencher, f func(i int) error) (float64, error) {
	if err := b.ctx.Sync(b.stream); err != nil {
		return 0, err
	}
	const n = 200
	t0 := time.Now()
	for i := range n {
		if err := f(i); err != nil {
			return 0, err
		}
	}
	us := float64(time.Since(t0).Microseconds()) / n
	return us, b.ctx.Sync(b.stream)
}

// checker holds one shape's fresh random operands on the device and the
// float64 reference at sampled elements: every kernel is checked against it
// before it is timed.
type checker struct {
	b    *bencher
	d    *gemmtest.Data
	p    dispatch.Problem
	bufs []uintptr
}

func (b *bencher) newChecker(s shape) (*checker, error) {
	c := &checker{b: b, d: gemmtest.FillSampled(gemmtest.Case{Name: s.name, M: s.m, N: s.n, K: s.k}, s.dtype, b.rng, 64)}
	c.p = c.d.P
	up := func(h []uint16) (dispatch.DevicePtr, error) {
		p, err := b.ctx.Alloc(int64(len(h)) * 2)
		if err != nil {
			return 0, err
		}
		c.bufs = append(c.bufs, p)
		return dispatch.DevicePtr(p), b.ctx.CopyIn(p, unsafe.Pointer(&h[0]), int64(len(h))*2)
	}
	var err error
	if c.p.A, err = up(c.d.A); err == nil {
		if c.p.B, err = up(c.d.B); err == nil {
			c.p.D, err = up(make([]uint16, s.m*s.n+1)) // +1: Fill poisons whole 32-bit words
		}
	}
	if err != nil {
		c.free()
		return nil, err
	}
	return c, nil
}

func (c *checker) free() {
	for _, p := range c.bufs {
		_ = c.b.ctx.Free(p)
	}
}

// run poisons D, launches through launch and compares D with the reference.
func (c *checker) run(launch func(*dispatch.Problem, dispatch.Stream) error) error {
	b := c.b
	words := int64(c.p.M*c.p.N+1) / 2
	if err := b.ctx.Fill(uintptr(c.p.D), uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), words, b.stream); err != nil {
		return err
	}
	if err := launch(&c.p, dispatch.Stream(b.stream)); err != nil {
		return err
	}
	if err := b.ctx.Sync(b.stream); err != nil {
		return err
	}
	out := make([]uint16, c.p.M*c.p.N)
	if err := b.ctx.CopyOut(unsafe.Pointer(&out[0]), uintptr(c.p.D), int64(len(out))*2); err != nil {
		return err
	}
	if err := c.d.Check(out); err != nil {
		return fmt.Errorf("%w: %v", errWrong, err)
	}
	return nil
}
