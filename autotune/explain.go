package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

func init() {
	commands["explain"] = command{"print how one GEMM would be planned, with the reasons", runExplain}
}

// runExplain plans one problem described by flags, with fake device pointers
// aligned as asked, and prints the plan's Explain text.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", "-arch sm_90 -dtype bf16 -m 1 -n 4096 -k 4096 [flags]", stderr)
	var (
		arch     = fs.String("arch", "", "compute capability, e.g. sm_80 or sm_90 (default: the device's)")
		device   = fs.String("device", "", "device preset: h200, h100 or a100 (default: a100 for sm_8x, else h200)")
		in       = fs.String("dtype", "bf16", "input dtype: f16, bf16 or e4m3")
		out      = fs.String("out", "", "output dtype: f16 or bf16 (default: the input dtype; bf16 for e4m3)")
		m        = fs.Int("m", 1, "rows of A and D (tokens)")
		n        = fs.Int("n", 4096, "rows of the weight B and columns of D (output features)")
		k        = fs.Int("k", 4096, "reduction length (input features)")
		lda      = fs.Int("lda", 0, "leading dimension of A in elements (default K)")
		ldb      = fs.Int("ldb", 0, "leading dimension of B in elements (default K)")
		ldc      = fs.Int("ldc", 0, "leading dimension of C and D in elements (default N)")
		alignA   = fs.Int("align-a", 256, "byte alignment of the A pointer (a power of two)")
		alignB   = fs.Int("align-b", 256, "byte alignment of the B pointer (a power of two)")
		bias     = fs.Bool("bias", false, "add a bias vector [N]")
		table    = fs.String("table", "", `bucket table YAML (default: the embedded buckets.yaml; "none": heuristic only)`)
		manifest = fs.String("manifest", "", "kernel manifest JSON (default: the embedded kernels/manifest.json)")
	)
	rest, code := parse(fs, args)
	if code >= 0 {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	p := dispatch.Problem{M: *m, N: *n, K: *k, LDA: *k, LDB: *k, LDC: *n, Alpha: 1, ScaleA: 1, ScaleB: 1}
	if set["lda"] {
		p.LDA = *lda
	}
	if set["ldb"] {
		p.LDB = *ldb
	}
	if set["ldc"] {
		p.LDC = *ldc
	}
	dev, err := explainDevice(*device, *arch)
	if err == nil {
		p.In, err = kernels.ParseDType(*in)
	}
	if err == nil {
		p.Out, err = outDType(p.In, *out)
	}
	if err == nil {
		p.A, err = fakePtr(1, "align-a", *alignA)
	}
	if err == nil {
		p.B, err = fakePtr(2, "align-b", *alignB)
	}
	if err != nil || len(rest) > 0 {
		if err != nil {
			fmt.Fprintln(stderr, err)
		}
		fs.Usage()
		return 2
	}
	p.D, _ = fakePtr(3, "", 256)
	if *bias {
		p.Bias, _ = fakePtr(4, "", 256)
	}

	cat, err := loadCatalog(*manifest)
	if err != nil {
		return fail(stderr, err)
	}
	tab, source, err := loadTable(*table, cat)
	if err != nil {
		return fail(stderr, err)
	}
	plan, err := dispatch.NewPlanner(cat, tab, dev).Plan(&p)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "device: %s (%s, %d SMs)\ntable: %s\n%s", dev.Name, dev.Arch, dev.SMs, source, plan.Explain())
	return 0
}

// explainDevice returns the named preset, or the one that fits arch, with its
// Arch overridden by arch when given.
func explainDevice(name, arch string) (dispatch.DeviceInfo, error) {
	var a dispatch.Arch
	if arch != "" {
		var err error
		if a, err = kernels.ParseArch(arch); err != nil {
			return dispatch.DeviceInfo{}, err
		}
	}
	if name == "" {
		name = "h200"
		if a != 0 && a < dispatch.SM90 {
			name = "a100"
		}
	}
	dev, err := dispatch.DevicePreset(name)
	if a != 0 {
		dev.Arch = a
	}
	return dev, err
}

// outDType parses the output dtype, defaulting to the input's (bf16 for e4m3).
func outDType(in dispatch.DType, out string) (dispatch.DType, error) {
	switch {
	case out != "":
		return kernels.ParseDType(out)
	case in == dispatch.E4M3:
		return dispatch.BF16, nil
	}
	return in, nil
}

// fakePtr returns a device address in its own 2^40-byte slot that is aligned
// to exactly align bytes: planning only looks at the number.
func fakePtr(slot int, flagName string, align int) (dispatch.DevicePtr, error) {
	if align <= 0 || align&(align-1) != 0 || align >= 1<<40 {
		return 0, fmt.Errorf("-%s %d: want a power of two below 2^40", flagName, align)
	}
	return dispatch.DevicePtr(uint64(slot)<<40 + uint64(align)), nil
}

// loadTable reads a table file ("": the embedded buckets.yaml; "none": no
// table) against cat, and says where it came from.
func loadTable(path string, cat *kernels.Catalog) (*dispatch.Table, string, error) {
	if path == "none" {
		return nil, "none (heuristic only)", nil
	}
	t, err := loadTableOrEmbedded(path, cat)
	if err != nil {
		return nil, "", err
	}
	if path == "" {
		path = embeddedTableName
	}
	return t, fmt.Sprintf("%s, %s", path, t.Provenance.Source), nil
}
