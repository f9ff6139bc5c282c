//go:build nocuda

package dispatch

// Engine launches GEMMs on one GPU. This build has no CUDA (-tags nocuda):
// Open returns ErrNoCUDA; use NewPlanner to plan without a GPU.
type Engine struct{}

// Open returns an *ArgError for bad options (as the CUDA build does), else
// ErrNoCUDA in a nocuda build.
func Open(device int, opts Options) (*Engine, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	return nil, ErrNoCUDA
}

// GEMM returns ErrNoCUDA in a nocuda build.
func (e *Engine) GEMM(p *Problem, s Stream) error { return ErrNoCUDA }

// Plan returns ErrNoCUDA in a nocuda build.
func (e *Engine) Plan(p *Problem) (Plan, error) { return Plan{}, ErrNoCUDA }

// Launch returns ErrNoCUDA in a nocuda build.
func (e *Engine) Launch(pl Plan, p *Problem, s Stream) error { return ErrNoCUDA }

// Reserve returns ErrNoCUDA in a nocuda build.
func (e *Engine) Reserve(s Stream, bytes int64) error { return ErrNoCUDA }

// Device returns the zero DeviceInfo in a nocuda build.
func (e *Engine) Device() DeviceInfo { return DeviceInfo{} }

// Planner returns nil in a nocuda build.
func (e *Engine) Planner() *Planner { return nil }

// Close returns nil in a nocuda build.
func (e *Engine) Close() error { return nil }

// Capture returns ErrNoCUDA in a nocuda build.
func (e *Engine) Capture(s Stream, fn func() error) (*Graph, error) { return nil, ErrNoCUDA }

// Graph is a captured CUDA graph; a nocuda build has none.
type Graph struct{}

// Launch returns ErrNoCUDA in a nocuda build.
func (g *Graph) Launch(s Stream) error { return ErrNoCUDA }

// Close returns nil in a nocuda build.
func (g *Graph) Close() error { return nil }
