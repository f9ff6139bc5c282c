package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

// Peer holds peer_cublas.py's graph-replay times by shape: name, M, N, K,
// dtype and, for e4m3, the scaling mode (an e4m3 row of the bench is joined
// with the peer's time of the same scaling).
type Peer map[tuning.Shape]float64

// US returns the peer's time for the shape, 0 when the peer has none.
func (p Peer) US(s tuning.Shape) float64 { return p[s] }

// ReadPeer reads peer_cublas.py's CSV: graph_us by shape (dtype bf16 and
// scaling tensor where those columns are missing or empty, as the script
// assumes). Rows whose status is "unsupported" (a scaling mode the runner's
// torch refuses: the note column says why) carry no time and are left out.
func ReadPeer(path string) (Peer, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K", "graph_us")
	if err != nil {
		return nil, err
	}
	out := Peer{}
	for r := range f.Rows() {
		s := tuning.ShapeOf(r)
		switch st := r.Str("status"); st {
		case "", "ok":
		case "unsupported":
			if err := r.Err(); err != nil {
				return nil, err
			}
			continue
		default:
			r.Fail(fmt.Errorf("status %q: want ok, unsupported or empty", st))
		}
		t := timeUS(r, "graph_us", false)
		if err := r.Err(); err != nil {
			return nil, err
		}
		out[s] = t
	}
	return out, nil
}

// peerDType is a dtype as peer_cublas.py spells it (bf16, fp16, e4m3).
func peerDType(dt dispatch.DType) string {
	if dt == dispatch.F16 {
		return "fp16"
	}
	return dt.String()
}

// Points lists every M a tuning run with buckets up to maxM times (sample
// and probe Ms) per weight, as a shapes CSV peer_cublas.py reads: the input
// dtype, for e4m3 the scaling, and the output dtype (peer_cublas.py times
// e4m3 → bf16 or → fp16 as the out column says, and ShapeOf reads it back).
func Points(weights []tuning.Weight, maxM int) []byte {
	var b strings.Builder
	b.WriteString("name,M,N,K,dtype,scaling,out\n")
	for _, w := range weights {
		scaling := ""
		if w.Types.Scaled() {
			scaling = w.Types.Scaling.String()
		}
		for _, s := range tuning.Spans(maxM) {
			ms := s.TimedMs()
			slices.Sort(ms)
			for _, m := range ms {
				fmt.Fprintf(&b, "%s,%d,%d,%d,%s,%s,%s\n", w.Name, m, w.N, w.K, peerDType(w.Types.In), scaling, peerDType(w.Types.Out))
			}
		}
	}
	return []byte(b.String())
}
