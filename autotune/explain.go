package main

import (
	"cmp"
	"flag"
	"fmt"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

var explainCmd = &command{
	Name:      "explain",
	UsageLine: "[-arch sm_90] [-types bf16] [-m 1] [-n 4096] [-k 4096] [flags]",
	Short:     "print how one GEMM would be planned, with the reasons",
	Long: `Explain plans one problem described by flags on a device preset, with
placeholder device pointers aligned as -align-a and -align-b say, and prints
the plan's Explain text: the table level that routed it, the bucket, the
kernel, and every kernel the constraints rejected, with the reason.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		arch := fs.String("arch", "", "compute capability, e.g. sm_80 or sm_90 (default: the device's)")
		device := fs.String("device", "", "device preset: "+strings.Join(dispatch.DevicePresetNames(), ", ")+" (default: the preset of -arch: a100, a10, l4, h200, b200)")
		var custom deviceFlags
		custom.register(fs)
		workspace := fs.Int64("workspace", 0, "split-K workspace per stream, bytes: the engine's Options.WorkspaceBytes (default dispatch.DefaultWorkspaceBytes)")
		types := fs.String("types", "bf16", "what it computes in: "+kernels.TypesSyntax()+" (per-tensor: the scalars 1; else placeholder scale vectors); -> stands for →")
		m := fs.Int("m", 1, "rows of A and D (tokens)")
		n := fs.Int("n", 4096, "rows of the weight B and columns of D (output features)")
		k := fs.Int("k", 4096, "reduction length (input features)")
		lda := fs.Int("lda", 0, "leading dimension of A in elements (default K)")
		ldb := fs.Int("ldb", 0, "leading dimension of B in elements (default K)")
		ldc := fs.Int("ldc", 0, "leading dimension of C and D in elements (default N)")
		alignA := fs.Int("align-a", 256, "byte alignment of the A pointer (a power of two)")
		alignB := fs.Int("align-b", 256, "byte alignment of the B pointer (a power of two)")
		bias := fs.Bool("bias", false, "add a bias vector [N]")
		table := fs.String("table", "", `bucket table YAML (default: the embedded buckets.yaml; "none": heuristic only)`)
		manifest := fs.String("manifest", "", manifestHelp)
		return func(std *stdio, rest []string) int {
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			ty, err := kernels.ParseTypes(*types)
			if err != nil {
				err = fmt.Errorf("-types: %w", err)
			}
			p := dispatch.PlaceholderProblem(*m, *n, *k, ty)
			for name, ld := range map[string]struct{ dst, v *int }{"lda": {&p.LDA, lda}, "ldb": {&p.LDB, ldb}, "ldc": {&p.LDC, ldc}} {
				if set[name] {
					*ld.dst = *ld.v
				}
			}
			var dev dispatch.DeviceInfo
			if err == nil {
				dev, err = explainDevice(*device, *arch)
			}
			if err == nil {
				err = custom.apply(&dev, set)
			}
			if err == nil && set["workspace"] && *workspace <= 0 {
				err = fmt.Errorf("-workspace %d: want a positive number of bytes", *workspace)
			}
			if err == nil {
				p.A, err = alignedPtr(1, "align-a", *alignA)
			}
			if err == nil {
				p.B, err = alignedPtr(2, "align-b", *alignB)
			}
			if err != nil || len(rest) > 0 {
				if err != nil {
					fmt.Fprintln(std.err, err)
				}
				fs.Usage()
				return 2
			}
			if *bias {
				p.Bias, _ = dispatch.PlaceholderPtr(4, 256)
			}
			cat, err := loadCatalog(*manifest)
			if err != nil {
				return std.fail(err)
			}
			var tab *dispatch.Table
			source := "none (heuristic only)"
			if *table != "none" {
				if tab, err = loadTable(*table, cat); err != nil {
					return std.fail(err)
				}
				// The table's own source is its provenance's (what tune
				// measured); each entry says its own on the source line.
				source = cmp.Or(*table, embeddedTableName)
			}
			plan, err := dispatch.NewPlanner(cat, tab, dev, dispatch.Limits{WorkspaceBytes: *workspace}).Plan(&p)
			if err != nil {
				return std.fail(err)
			}
			fmt.Fprintf(std.out, "device: %s (%s, %d SMs)\ntable: %s\n%s", dev.Name, dev.Arch, dev.SMs, source, plan.Explain())
			return 0
		}
	},
}

// alignedPtr is a placeholder pointer aligned to exactly align bytes; a bad
// alignment names its flag.
func alignedPtr(slot int, flagName string, align int) (dispatch.DevicePtr, error) {
	p, err := dispatch.PlaceholderPtr(slot, align)
	if err != nil {
		return 0, fmt.Errorf("-%s %d: want a power of two below 2^40 (%w)", flagName, align, err)
	}
	return p, nil
}

// archPresets is the preset explain describes an arch with when -device is
// not given.
var archPresets = map[dispatch.Arch]string{dispatch.SM80: "a100", dispatch.SM86: "a10", dispatch.SM89: "l4", dispatch.SM90: "h200", 100: "b200"}

// explainDevice returns the named preset, or the one of arch (h200 when
// neither is given), with its Arch overridden by arch when given.
func explainDevice(name, arch string) (dispatch.DeviceInfo, error) {
	a, err := parseArch(arch)
	if err != nil {
		return dispatch.DeviceInfo{}, err
	}
	if name == "" {
		name = "h200"
		if a != 0 {
			if name = archPresets[a]; name == "" {
				return dispatch.DeviceInfo{}, fmt.Errorf("no preset for %s: name one with -device and describe the GPU with -sms, -smem, -l2, -read-bw and -peak", a)
			}
		}
	}
	dev, err := dispatch.DevicePreset(name)
	if a != 0 {
		dev.Arch = a
	}
	return dev, err
}

// parseArch parses an arch flag value ("": none).
func parseArch(s string) (dispatch.Arch, error) {
	if s == "" {
		return 0, nil
	}
	return kernels.ParseArch(s)
}
