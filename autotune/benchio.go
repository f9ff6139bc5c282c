package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// shape is one row of a shapes CSV (name,M,N,K[,dtype]), the columns
// ../shared/gpu/peer_cublas.py reads, so outputs line up row for row.
type shape struct {
	name    string
	m, n, k int
	dtype   dispatch.DType
}

func readShapes(path string) ([]shape, error) {
	rows, col, err := readCSV(path, "name", "M", "N", "K")
	if err != nil {
		return nil, err
	}
	var out []shape
	for i, r := range rows {
		s := shape{name: r[col["name"]], dtype: dispatch.BF16}
		for _, f := range []struct {
			name string
			dst  *int
		}{{"M", &s.m}, {"N", &s.n}, {"K", &s.k}} {
			if *f.dst, err = strconv.Atoi(strings.TrimSpace(r[col[f.name]])); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
			}
		}
		if j, ok := col["dtype"]; ok && strings.TrimSpace(r[j]) != "" {
			if s.dtype, err = kernels.ParseDType(r[j]); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// benchResult is one output row.
type benchResult struct {
	shape
	kernel                         string
	splitK                         int
	level                          string
	graphUS, graphP90, evUS, evP90 float64
	floorUS                        float64
	hostGEMM, hostLaunch           float64 // µs per call on the host: GEMM, and Launch of a ready plan
	peerUS                         float64 // cuBLAS graph time from -peer, 0 if none
}

func (r benchResult) line() string {
	s := fmt.Sprintf("%-14s M=%5d N=%6d K=%6d graph=%8.2fus p90=%8.2f events=%8.2fus %6.1f%% roofline host=%5.2fus launch=%5.2fus  %s split=%d (%s)",
		r.name, r.m, r.n, r.k, r.graphUS, r.graphP90, r.evUS, 100*r.floorUS/r.graphUS, r.hostGEMM, r.hostLaunch, r.kernel, r.splitK, r.level)
	if r.peerUS > 0 {
		s += fmt.Sprintf("  cuBLAS=%.2fus ×%.2f", r.peerUS, r.peerUS/r.graphUS)
	}
	return s
}

func writeResults(path string, rs []benchResult) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"name", "M", "N", "K", "dtype", "kernel", "split_k", "level", "graph_us", "graph_p90_us", "events_us", "events_p90_us",
		"tflops", "gbps", "floor_us", "roofline_pct", "host_gemm_us", "host_launch_us", "cublas_graph_us", "speedup_vs_cublas"})
	for _, r := range rs {
		flops, bytes := gemmWork(r.m, r.n, r.k, r.dtype)
		speed := ""
		if r.peerUS > 0 {
			speed = ff(r.peerUS / r.graphUS)
		}
		_ = w.Write([]string{r.name, itoa(r.m), itoa(r.n), itoa(r.k), r.dtype.String(), r.kernel, itoa(r.splitK), r.level,
			ff(r.graphUS), ff(r.graphP90), ff(r.evUS), ff(r.evP90), ff(flops / r.graphUS / 1e6), ff(bytes / r.graphUS / 1e3),
			ff(r.floorUS), ff(100 * r.floorUS / r.graphUS), ff(r.hostGEMM), ff(r.hostLaunch), ff(r.peerUS), speed})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func itoa(i int) string   { return strconv.Itoa(i) }
func ff(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// peerKey keys peer_cublas.py's times by shape and dtype.
func peerKey(name string, m, n, k int, dt dispatch.DType) string {
	return fmt.Sprintf("%s/%d/%d/%d/%s", name, m, n, k, dt)
}

// peerDType is a dtype as peer_cublas.py spells it (bf16, fp16).
func peerDType(dt dispatch.DType) string {
	if dt == dispatch.F16 {
		return "fp16"
	}
	return dt.String()
}

// readPeer reads peer_cublas.py's CSV: graph_us by shape (dtype bf16 where
// the column is missing or empty, as the script assumes).
func readPeer(path string) (map[string]float64, error) {
	rows, col, err := readCSV(path, "name", "M", "N", "K", "graph_us")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for i, r := range rows {
		m, _ := strconv.Atoi(r[col["M"]])
		n, _ := strconv.Atoi(r[col["N"]])
		k, _ := strconv.Atoi(r[col["K"]])
		t, err := strconv.ParseFloat(r[col["graph_us"]], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: graph_us %q: %v", path, i+2, r[col["graph_us"]], err)
		}
		dt := dispatch.BF16
		if j, ok := col["dtype"]; ok && strings.TrimSpace(r[j]) != "" {
			if dt, err = kernels.ParseDType(r[j]); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
			}
		}
		out[peerKey(r[col["name"]], m, n, k, dt)] = t
	}
	return out, nil
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }
func p90(xs []float64) float64    { return quantile(xs, 0.9) }

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// weightCopies is how many copies of an N×K weight the timings rotate
// through: enough to span 3× the L2 (at least 2), so that each call reads
// its weight from memory, as in a model whose layers share no weights.
func weightCopies(n, k int, dt dispatch.DType, l2Bytes int64) int {
	bytes := int64(n) * int64(k) * int64(dt.Size())
	return max(2, int((3*l2Bytes+bytes-1)/bytes))
}

// graphCalls is how many GEMMs one timing graph holds: each weight copy
// once, and below 2^34 multiply-adds as many rounds as make about 32 calls.
func graphCalls(m, n, k, copies int) int {
	if int64(m)*int64(n)*int64(k) < 1<<34 {
		return copies * max(1, 32/copies)
	}
	return copies
}

// gemmWork is a GEMM's multiply-add flops and the bytes it must move at
// least (A and B read, D written once) in dtype dt.
func gemmWork(m, n, k int, dt dispatch.DType) (flops, bytes float64) {
	return 2 * float64(m) * float64(n) * float64(k), float64(dt.Size()) * float64(m*k+n*k+m*n)
}
