// Command autotune measures gemmroute's kernels on a GPU and writes the bucket
// table (buckets.yaml) the dispatcher routes by:
//
//	go run ./autotune -model llama3-8b -out buckets.yaml -report tune-report
//
// runs tune, the default command. "autotune help" lists the others and
// "autotune help COMMAND" explains one. The work lives in packages: the
// tuning library (autotune/tuning), the GPU harness (internal/gpuharness)
// and the reports (autotune/report); each command here only reads flags.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// commands is every command, in the order help lists them; tune comes first
// and is the default.
var commands = []*command{tuneCmd, modelCmd, pointsCmd, benchCmd, checkCmd, explainCmd, compareCmd, reportCmd}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run dispatches to a command and returns the exit code: 0 success, 1 the
// command failed, 2 a usage error. Flags without a command are tune's.
func run(args []string, stdout, stderr io.Writer) int {
	std := &stdio{stdout, stderr}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if strings.HasPrefix(args[0], "-") && !slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		args = append([]string{tuneCmd.Name}, args...)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], std)
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "autotune: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if c.Missing != "" {
		return std.usageErr(c.Name, "not in this build: %s", c.Missing)
	}
	fs := newFlagSet(c, stderr)
	runCmd := c.Flags(fs)
	positional, code := parse(fs, args[1:])
	if code >= 0 {
		return code
	}
	return runCmd(std, positional)
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, "autotune tunes gemmroute's bucket table and reports on it.\n\nusage: autotune COMMAND [arguments]\n       autotune [tune flags]   (tune is the default command)\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.Name, c.Short)
	}
	fmt.Fprint(w, "\n\"autotune help COMMAND\" explains a command and lists its flags.\n")
}

// help prints the usage, or the long help and flags of the named command.
func help(args []string, std *stdio) int {
	if len(args) == 0 {
		usage(std.out)
		return 0
	}
	c := lookup(args[0])
	if c == nil || len(args) > 1 {
		fmt.Fprintf(std.err, "autotune help %s: unknown command; \"autotune help\" lists them\n", strings.Join(args, " "))
		return 2
	}
	fs := newFlagSet(c, std.out)
	c.Flags(fs)
	fmt.Fprintf(std.out, "usage: autotune %s %s\n\n%s\n\nflags:\n", c.Name, c.UsageLine, strings.TrimSpace(c.Long))
	fs.PrintDefaults()
	return 0
}
