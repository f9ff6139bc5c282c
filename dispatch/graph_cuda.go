//go:build !nocuda

package dispatch

import (
	"errors"

	"github.com/gemmroute/gemmroute/internal/cuda"
)

// Graph is a CUDA graph captured by Engine.Capture: the GEMMs (and whatever
// else) the capture function enqueued, replayed by Launch without planning
// or launch overhead. CUDA orders the replays of one graph one after the
// other, so they share the split-K workspaces the capture recorded; those
// live until Close, whatever Reserve does meanwhile.
type Graph struct {
	e      *Engine
	g      cuda.Graph
	ws     []*workspace
	closed bool // guarded by e.mu
}

// Capture records everything fn enqueues on stream s (GEMM calls, and work
// on streams that join s's capture through events) into a graph. fn must
// only enqueue work; an error from fn ends the capture and is returned as
// is. Before capturing, s gets its workspace if it has none, so GEMMs on s
// keep their split-K plans; a GEMM on a joined stream without a workspace
// is planned without split-K (nothing can be allocated during capture).
// Close the Graph when done; Engine.Close closes any left open.
//
// Capture may be called on any thread: fn runs on the same OS thread (the
// capture is thread-local), with the engine's context current; when
// Capture returns, the thread's own current context (or none) is back.
func (e *Engine) Capture(s Stream, fn func() error) (*Graph, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	if fn == nil {
		return nil, &ArgError{Field: "fn", Value: nil, Rule: "must be a function that enqueues the work to capture"}
	}
	if _, err := e.workspaceFor(s); err != nil {
		return nil, err
	}
	g, err := e.ctx.Capture(cuda.Stream(s), fn)
	if err != nil {
		var ce *cuda.Error
		if errors.As(err, &ce) {
			return nil, cudaErr(err)
		}
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	gr := &Graph{e: e, g: g}
	for _, ws := range e.ws { // every workspace a launch in fn may have recorded
		ws.refs++
		gr.ws = append(gr.ws, ws)
	}
	e.graphs[gr] = struct{}{}
	return gr, nil
}

// Launch replays the graph on stream s, asynchronously, on any thread,
// leaving the thread's current context as it found it.
func (g *Graph) Launch(s Stream) error {
	g.e.mu.RLock()
	closed := g.closed
	g.e.mu.RUnlock()
	if closed || g.e.closed.Load() {
		return ErrClosed
	}
	return cudaErr(g.e.ctx.Replay(g.g, cuda.Stream(s)))
}

// Close frees the graph and its references to workspaces (after the work
// still using them). It is idempotent, and leaves the calling thread's
// current context as it found it.
func (g *Graph) Close() error {
	g.e.mu.Lock()
	defer g.e.mu.Unlock()
	return g.closeLocked()
}

// closeLocked is Close with g.e.mu held.
func (g *Graph) closeLocked() error {
	if g.closed {
		return nil
	}
	g.closed = true
	delete(g.e.graphs, g)
	errs := []error{cudaErr(g.e.ctx.DestroyGraph(g.g))}
	for _, ws := range g.ws {
		errs = append(errs, g.e.releaseLocked(ws))
	}
	return errors.Join(errs...)
}
