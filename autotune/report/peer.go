package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/kernels"
)

// Peer holds peer_cublas.py's graph-replay times by shape and dtype.
type Peer map[string]float64

func peerKey(name string, m, n, k int, dt dispatch.DType) string {
	return fmt.Sprintf("%s/%d/%d/%d/%s", name, m, n, k, dt)
}

// US returns cuBLAS's time for the shape, 0 when the peer has none.
func (p Peer) US(name string, m, n, k int, dt dispatch.DType) float64 {
	return p[peerKey(name, m, n, k, dt)]
}

// ReadPeer reads peer_cublas.py's CSV: graph_us by shape (dtype bf16 where
// the column is missing or empty, as the script assumes).
func ReadPeer(path string) (Peer, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K", "graph_us")
	if err != nil {
		return nil, err
	}
	out := Peer{}
	for r := range f.Rows() {
		dt := dispatch.BF16
		if s := r.Str("dtype"); s != "" {
			dt, err = kernels.ParseDType(s)
			r.Fail(err)
		}
		m, n, k := dims(r)
		key, t := peerKey(r.Raw("name"), m, n, k, dt), timeUS(r, "graph_us", false)
		if err := r.Err(); err != nil {
			return nil, err
		}
		out[key] = t
	}
	return out, nil
}

// peerDType is a dtype as peer_cublas.py spells it (bf16, fp16).
func peerDType(dt dispatch.DType) string {
	if dt == dispatch.F16 {
		return "fp16"
	}
	return dt.String()
}

// Points lists every M a tuning run with buckets up to maxM times (sample
// and probe Ms) per weight, as a shapes CSV peer_cublas.py reads.
func Points(weights []tuning.Weight, maxM int) []byte {
	var b strings.Builder
	b.WriteString("name,M,N,K,dtype\n")
	for _, w := range weights {
		for _, s := range tuning.Spans(maxM) {
			ms := s.TimedMs()
			slices.Sort(ms)
			for _, m := range ms {
				fmt.Fprintf(&b, "%s,%d,%d,%d,%s\n", w.Name, m, w.N, w.K, peerDType(w.DType))
			}
		}
	}
	return []byte(b.String())
}
