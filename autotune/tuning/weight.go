package tuning

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/kernels"
)

// Weight is one linear layer's weight as the tuner routes it: its name,
// dtype (in and out), N (output features) and K (input features).
type Weight struct {
	Name  string
	DType dispatch.DType
	N, K  int
}

// Aligned reports whether every 16-byte kernel can run the weight (N and K
// multiples of 8 elements): default entries learn from such weights only.
func (w Weight) Aligned() bool { return w.N%8 == 0 && w.K%8 == 0 }

// transformer is a decoder's dimensions; its linear layers at tensor
// parallelism 1 are fused as inference code runs them (q, k and v in one
// GEMM, gate and up in one).
type transformer struct {
	prefix                          string // shape-name prefix, as in scripts/shapes-*.csv
	hidden, heads, kvHeads, headDim int
	ffn                             int // intermediate size
}

func (t transformer) weights(dt dispatch.DType) []Weight {
	return []Weight{
		{t.prefix + ".qkv", dt, (t.heads + 2*t.kvHeads) * t.headDim, t.hidden},
		{t.prefix + ".o", dt, t.hidden, t.heads * t.headDim},
		{t.prefix + ".gateup", dt, 2 * t.ffn, t.hidden},
		{t.prefix + ".down", dt, t.hidden, t.ffn},
	}
}

// models are the presets of ModelWeights (dimensions from the models'
// published configs).
var models = map[string]transformer{
	"llama3-8b":   {"l3-8b", 4096, 32, 8, 128, 14336},
	"llama3-70b":  {"l3-70b", 8192, 64, 8, 128, 28672},
	"llama3.2-1b": {"l3.2-1b", 2048, 32, 8, 64, 8192},
	"qwen2.5-7b":  {"qwen2.5-7b", 3584, 28, 4, 128, 18944},
}

// ModelNames lists the model presets, comma-separated.
func ModelNames() string { return strings.Join(slices.Sorted(maps.Keys(models)), ", ") }

// ModelWeights returns the weights of a model preset in each dtype.
func ModelWeights(model string, dtypes []dispatch.DType) ([]Weight, error) {
	t, ok := models[model]
	if !ok {
		return nil, fmt.Errorf("unknown model %q: use one of %s, or a shapes CSV", model, ModelNames())
	}
	var out []Weight
	for _, dt := range dtypes {
		out = append(out, t.weights(dt)...)
	}
	return out, nil
}

// Shape is one row of a shapes CSV (name,M,N,K[,dtype][,scaling]), the
// columns scripts/peer_cublas.py reads, so that outputs line up row for row.
// Scaling is an e4m3 shape's scaling mode (per-tensor when the column is
// absent or empty); 16-bit shapes have none (ScalingTensor, the zero value).
type Shape struct {
	Name    string
	M, N, K int
	DType   dispatch.DType
	Scaling dispatch.Scaling
}

// ReadShapes reads a shapes CSV; a missing or empty dtype is bf16.
func ReadShapes(path string) ([]Shape, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K")
	if err != nil {
		return nil, err
	}
	var out []Shape
	for r := range f.Rows() {
		s := ShapeOf(r)
		if err := r.Err(); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ShapeOf reads a shape from a CSV row's name, M, N, K (each in [1, MaxDim])
// and optional dtype (bf16 when absent) and scaling (tensor when absent; only
// e4m3 shapes take another) columns; what is wrong stays on the row (r.Err).
func ShapeOf(r *fileio.Row) Shape {
	s := Shape{Name: r.Raw("name"), M: r.IntIn("M", 1, MaxDim), N: r.IntIn("N", 1, MaxDim), K: r.IntIn("K", 1, MaxDim), DType: dispatch.BF16}
	if dt := r.Str("dtype"); dt != "" {
		var err error
		s.DType, err = kernels.ParseDType(dt)
		r.Fail(err)
		if err == nil && !inputDType(s.DType) {
			r.Fail(fmt.Errorf("%w: dtype %s: a shape's inputs are bf16, f16 or e4m3", kernels.ErrInvalidArgument, s.DType))
		}
	}
	if sc := r.Str("scaling"); sc != "" {
		var err error
		s.Scaling, err = kernels.ParseScaling(sc)
		r.Fail(err)
		if err == nil && s.Scaling != dispatch.ScalingTensor && s.DType != dispatch.E4M3 {
			r.Fail(fmt.Errorf("%w: scaling %s on a %s shape: only e4m3 shapes take scales (leave the column empty)", kernels.ErrInvalidArgument, s.Scaling, s.DType))
		}
	}
	return s
}

// inputDType reports whether dt is a GEMM input type: bf16, f16 or e4m3
// (f32 is only split-K's partials).
func inputDType(dt dispatch.DType) bool {
	return dt == dispatch.BF16 || dt == dispatch.F16 || dt == dispatch.E4M3
}

// WeightsFromShapes returns the distinct weights of shapes (their M is
// ignored: the tuner picks Ms per bucket). With dtypes, each weight is tuned
// in each of them; without, in the shape's dtype.
func WeightsFromShapes(shapes []Shape, dtypes []dispatch.DType) []Weight {
	var out []Weight
	seen := map[Weight]bool{}
	add := func(w Weight) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, s := range shapes {
		if len(dtypes) == 0 {
			add(Weight{s.Name, s.DType, s.N, s.K})
		}
		for _, dt := range dtypes {
			add(Weight{s.Name, dt, s.N, s.K})
		}
	}
	return out
}

// ParseDTypes parses a comma-separated list of the dtypes the tuner
// measures, bf16, f16 and e4m3 ("" gives none). An e4m3 weight is tuned
// e4m3→bf16 with per-tensor scales (OutDType).
func ParseDTypes(s string) ([]dispatch.DType, error) {
	var out []dispatch.DType
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		dt, err := kernels.ParseDType(f)
		if err != nil {
			return nil, err
		}
		if !inputDType(dt) {
			return nil, fmt.Errorf("dtype %s: the tuner measures bf16, f16 (16-bit in and out) and e4m3 (e4m3→bf16)", dt)
		}
		if !slices.Contains(out, dt) {
			out = append(out, dt)
		}
	}
	return out, nil
}

// Key is the key of w's exact entry for arch.
func (w Weight) Key(arch dispatch.Arch) dispatch.EntryKey {
	return dispatch.EntryKey{Arch: arch, In: w.DType, Out: OutDType(w.DType), Layout: kernels.LayoutTN, N: w.N, K: w.K}
}

// OutDType is the output dtype the tuner measures input dtype dt in, that
// of dispatch.PlaceholderProblem (the problems it plans and times): dt for
// 16-bit inputs, bf16 for e4m3 (with per-tensor scales, folded into alpha).
func OutDType(dt dispatch.DType) dispatch.DType { return dispatch.PlaceholderProblem(1, 1, 1, dt).Out }
