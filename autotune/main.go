// Command autotune measures gemmroute's kernels on a GPU and writes the bucket
// table (buckets.yaml) the dispatcher routes by:
//
//	go run ./autotune -model llama3-8b -out buckets.yaml -report tune-report
//
// runs tune, the default command. Other subcommands check, explain, compare
// and report on tables without a GPU; "go run ./autotune help" lists them.
//
// Each subcommand lives in its own file and registers itself in commands
// from an init function, so that GPU code (bench, tune's measurer) can live
// in its own files, behind build tags, without touching this one.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// command is one subcommand: a one-line synopsis and the function that runs it
// with the arguments after its name, returning the exit code.
type command struct {
	synopsis string
	run      func(args []string, stdout, stderr io.Writer) int
}

// commands holds the subcommands of this build, by name.
var commands = map[string]command{}

// elsewhere are subcommands this build lacks, with where they are: the GPU
// ones live in the default (CUDA) build. Their names are reported as such
// rather than as unknown.
var elsewhere = map[string]string{
	"bench": "time the engine's kernels by graph replay and events — in the default build, on a GPU",
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run dispatches to a subcommand and returns the exit code: 0 success, 1 the
// command failed, 2 a usage error. Flags without a command are tune's:
// "autotune -model llama3-8b -out buckets.yaml" tunes.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if strings.HasPrefix(args[0], "-") && !slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		args = append([]string{"tune"}, args...)
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 0 {
			if c, ok := commands[args[0]]; ok {
				return c.run([]string{"-h"}, stdout, stdout)
			}
		}
		usage(stdout)
		return 0
	}
	if c, ok := commands[name]; ok {
		return c.run(args, stdout, stderr)
	}
	if where, ok := elsewhere[name]; ok {
		fmt.Fprintf(stderr, "autotune %s: not in this build: %s\n", name, where)
	} else {
		fmt.Fprintf(stderr, "autotune: unknown command %q\n", name)
		usage(stderr)
	}
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: autotune COMMAND [arguments]\n       autotune [tune flags]   (tune is the default command)\n\ncommands:\n")
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].synopsis)
	}
	first := true
	for _, name := range slices.Sorted(maps.Keys(elsewhere)) {
		if _, ok := commands[name]; !ok {
			if first {
				fmt.Fprint(w, "\nnot in this build:\n")
				first = false
			}
			fmt.Fprintf(w, "  %-8s %s\n", name, elsewhere[name])
		}
	}
	fmt.Fprint(w, "\n\"autotune help COMMAND\" lists a command's flags.\n")
}

// newFlagSet returns a FlagSet for a subcommand whose usage names its
// positional arguments.
func newFlagSet(name, positional string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: autotune %s %s\n", name, positional)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags wherever they stand among args (the flag package stops
// at the first positional argument) and returns the positional arguments.
// code is -1 to go on, or the exit code to stop with: 0 after -h, 2 for a
// bad flag (the FlagSet has already said why).
func parse(fs *flag.FlagSet, args []string) (positional []string, code int) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		if fs.NArg() == 0 {
			return positional, -1
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// fail prints err (one line per error of a joined or TableErrors error) and
// returns exit code 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, err)
	return 1
}

// loadCatalog reads a kernel manifest; "" means $GEMMROUTE_KERNEL_DIR's
// manifest.json when that is set (as the engine does), else the embedded one.
func loadCatalog(path string) (*kernels.Catalog, error) {
	if path == "" {
		dir := os.Getenv("GEMMROUTE_KERNEL_DIR")
		if dir == "" {
			return dispatch.DefaultCatalog()
		}
		path = filepath.Join(dir, "manifest.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return kernels.ParseManifest(data)
}

// loadTableFile reads a table and validates it against cat.
func loadTableFile(path string, cat *kernels.Catalog) (*dispatch.Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return dispatch.LoadTable(path, data, cat)
}

// embeddedTableName names the embedded buckets.yaml in messages.
const embeddedTableName = "buckets.yaml (embedded)"

// loadTableOrEmbedded reads a table file against cat; "" means the embedded
// buckets.yaml.
func loadTableOrEmbedded(path string, cat *kernels.Catalog) (*dispatch.Table, error) {
	if path == "" {
		return dispatch.LoadTable(embeddedTableName, gemmroute.DefaultTable, cat)
	}
	return loadTableFile(path, cat)
}

// loadCatalogAndBase loads a manifest (see loadCatalog) and the table a run
// merges into (see loadTableOrEmbedded).
func loadCatalogAndBase(manifest, base string) (*kernels.Catalog, *dispatch.Table, error) {
	cat, err := loadCatalog(manifest)
	if err != nil {
		return nil, nil, err
	}
	t, err := loadTableOrEmbedded(base, cat)
	return cat, t, err
}
