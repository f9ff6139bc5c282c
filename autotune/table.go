package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

func init() {
	commands["table"] = command{"re-choose buckets ≤ 16 from a tune run's timings (tune.csv)", runTable}
}

// tableEdges are the upper edges of the measured M buckets; the last bucket
// is open. Buckets with no measured M keep the base table's choice.
var tableEdges = []int{1, 2, 4, 8, 16}

// sample is one correct candidate's graph-replay time at one M.
type sample struct {
	arch    dispatch.Arch
	dtype   dispatch.DType
	n, k, m int
	cand    candidate
	us      float64
}

// candidate is a kernel with a split-K factor.
type candidate struct {
	kernel string
	split  int
}

// String is "kernel split-K N".
func (c candidate) String() string { return fmt.Sprintf("%s split-K %d", c.kernel, c.split) }

// readSweep reads the timings of a tune run (tune.csv; older runs: bench
// -sweep); rows whose check failed are reported and dropped, so a fast wrong
// kernel never enters the table.
func readSweep(path string, cat *kernels.Catalog, report io.Writer) ([]sample, error) {
	rows, col, err := readCSV(path, "M", "N", "K", "dtype", "kernel", "split_k", "graph_us", "check")
	if err != nil {
		return nil, fmt.Errorf("%w (write it with autotune tune -report DIR)", err)
	}
	var out []sample
	for i, r := range rows {
		line := i + 2
		if r[col["check"]] != "ok" {
			fmt.Fprintf(report, "rejected %s split-K %s at M=%s N=%s K=%s: %s\n", r[col["kernel"]], r[col["split_k"]], r[col["M"]], r[col["N"]], r[col["K"]], r[col["check"]])
			continue
		}
		k := cat.Kernel(r[col["kernel"]])
		if k == nil {
			return nil, fmt.Errorf("%s:%d: kernel %q is not in the manifest", path, line, r[col["kernel"]])
		}
		s := sample{arch: k.MinArch, cand: candidate{kernel: k.Name}}
		var perr error
		ints := []*int{&s.m, &s.n, &s.k, &s.cand.split}
		for j, name := range []string{"M", "N", "K", "split_k"} {
			if *ints[j], err = strconv.Atoi(r[col[name]]); err != nil {
				perr = err
			}
		}
		if s.us, err = strconv.ParseFloat(r[col["graph_us"]], 64); err != nil || s.us <= 0 {
			perr = fmt.Errorf("graph_us %q", r[col["graph_us"]])
		}
		if s.dtype, err = kernels.ParseDType(r[col["dtype"]]); err != nil {
			perr = err
		}
		if perr != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, perr)
		}
		out = append(out, s)
	}
	return out, nil
}

func reportBucket(w io.Writer, key entryKey, b measuredBucket) {
	shape := "default"
	if key.n != 0 {
		shape = fmt.Sprintf("N=%d K=%d", key.n, key.k)
	}
	if b.loss == 0 {
		fmt.Fprintf(w, "| %s %s %s | %s | %s split-K %d | unmeasured: a measured neighbour's or the base table's choice | |\n", key.arch, key.dtype, shape, b.String(), b.Kernel, b.SplitK)
		return
	}
	runnerUp := "no runner-up: one candidate"
	if b.RunnerUp != "" {
		runnerUp = fmt.Sprintf("runner-up %s (+%.1f%%)", b.RunnerUp, b.MarginPct)
	}
	fmt.Fprintf(w, "| %s %s %s | %s | %s split-K %d | %s | bucket loss %.1f%% |\n",
		key.arch, key.dtype, shape, b.String(), b.Kernel, b.SplitK, runnerUp, 100*(b.loss-1))
}

// sameEntryKey reports whether two entries route the same key: arch,
// dtypes, layout and exact shape.
func sameEntryKey(a, b dispatch.Entry) bool {
	return a.Arch == b.Arch && a.In == b.In && a.Out == b.Out && a.Layout == b.Layout && a.N == b.N && a.K == b.K
}

// mergeEntries replaces base entries that fresh ones cover and keeps the rest.
func mergeEntries(base []dispatch.Entry, fresh []dispatch.Entry) []dispatch.Entry {
	var out []dispatch.Entry
	for _, e := range base {
		if !slices.ContainsFunc(fresh, func(f dispatch.Entry) bool { return sameEntryKey(e, f) }) {
			out = append(out, e)
		}
	}
	return append(out, fresh...)
}

// writeAtomic writes data to a temporary file beside path and renames it, so
// an interrupted run leaves the old file intact.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".buckets-*.yaml")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func runTable(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("table", "-sweep SWEEP.csv -out buckets.yaml [flags]", stderr)
	sweep := fs.String("sweep", "", "tune.csv of a tune run (correctness-gated graph-replay times)")
	out := fs.String("out", "", "table to write (atomically)")
	basePath := fs.String("base", "", "table to merge into (default: the embedded buckets.yaml)")
	manifest := fs.String("manifest", "", "kernel manifest JSON (default: the embedded one)")
	device := fs.String("device", "", "device the sweep ran on, e.g. \"NVIDIA H200\"")
	sms := fs.Int("sms", 0, "its multiprocessor count")
	driver := fs.String("driver", "", "its driver version")
	if _, code := parse(fs, args); code >= 0 {
		return code
	}
	if *sweep == "" || *out == "" {
		fs.Usage()
		return 2
	}
	cat, base, err := loadCatalogAndBase(*manifest, *basePath)
	if err != nil {
		return fail(stderr, err)
	}
	samples, err := readSweep(*sweep, cat, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stdout, "| entry | bucket | choice | runner-up | bucket loss |\n| --- | --- | --- | --- | --- |")
	fresh, err := buildEntries(samples, base, tableEdges, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	var arch dispatch.Arch
	for _, s := range samples {
		arch = s.arch
	}
	prov := measuredProvenance(cat, *device, *sms, arch, *driver,
		"autotune table from a tune run's timings: correctness-gated candidates, CUDA-graph replay over rotating weights (≥ 3× L2), median of 20 replays; "+
			"choice = least worst-case slowdown over the bucket's Ms. Entries without times_us are heuristic, not measured.")
	if err := saveTable(*out, base, fresh, prov, cat); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d measured entries\n", *out, len(fresh))
	return 0
}
