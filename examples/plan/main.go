// Command plan prints which kernel gemmroute would run for Llama-3-8B's four
// projections at M = 1, 2, 4, …, 8192 tokens, bf16, on an H200 and on an
// A100. It needs no GPU:
//
//	go run -tags nocuda ./examples/plan
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gemmroute/gemmroute/dispatch"
)

// projections are Llama-3-8B's linear layers as weight shapes [N, K].
var projections = []struct {
	name string
	n, k int
}{
	{"qkv", 6144, 4096},
	{"o", 4096, 4096},
	{"gate_up", 28672, 4096},
	{"down", 4096, 14336},
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	cat, err := dispatch.DefaultCatalog()
	if err != nil {
		return err
	}
	table, err := dispatch.DefaultTable()
	if err != nil {
		return err
	}
	for i, dev := range []dispatch.DeviceInfo{dispatch.H200, dispatch.A100} {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s, %d SMs), bf16\n", dev.Name, dev.Arch, dev.SMs)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "proj\tN×K\tM\tlevel\tbucket\tsplit-K\tkernel")
		pl := dispatch.NewPlanner(cat, table, dev, dispatch.Limits{})
		// Where each row's choice came from, in order of first use: a
		// measured entry names the GPU that timed it, the model's entries
		// the device they were modelled for.
		var sources []string
		count := map[string]int{}
		for _, pr := range projections {
			for m := 1; m <= 8192; m *= 2 {
				cells, source := row(pl, m, pr.n, pr.k)
				fmt.Fprintf(tw, "%s\t%d×%d\t%d\t%s\n", pr.name, pr.n, pr.k, m, cells)
				if count[source]++; count[source] == 1 {
					sources = append(sources, source)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range sources {
			fmt.Fprintf(w, "%d rows: %s\n", count[s], s)
		}
	}
	return nil
}

// row plans one problem and returns its cells (planCells), and where the
// choice came from; an error fills the kernel cell with its first line.
func row(pl *dispatch.Planner, m, n, k int) (cells, source string) {
	// Distinct, 256-byte aligned placeholder addresses: planning only reads them.
	p := dispatch.PlaceholderProblem(m, n, k, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16})
	plan, err := pl.Plan(&p)
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return "error\t-\t-\t" + msg, "no plan"
	}
	level, _, _ := strings.Cut(plan.Level.String(), " ")
	source = level + " entries: " + plan.Source()
	if plan.Source() == "" {
		source = "no table entry: the analytic heuristic over the constraint survivors"
	}
	return planCells(plan), source
}

// planCells is a plan's level ("exact", "default", "heuristic"), bucket,
// split-K and kernel as tab-separated cells. The kernel is named as
// Explain names it (Plan.KernelName): a plan an engine routes to cuBLASLt
// has an algorithm, no Kernel.
func planCells(plan dispatch.Plan) string {
	level, _, _ := strings.Cut(plan.Level.String(), " ")
	return fmt.Sprintf("%s\t%s\t%d\t%s", level, plan.Bucket(), plan.SplitK, plan.KernelName())
}
