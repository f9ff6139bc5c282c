package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// command is one subcommand, in the style of cmd/go.
type command struct {
	Name      string
	UsageLine string // what follows "autotune NAME" in the usage line
	Short     string // one line for "autotune help"
	Long      string // the text of "autotune help NAME"
	// Flags defines the command's flags on fs and returns the function that
	// runs the command once fs has parsed them, with the positional
	// arguments; it returns the exit code.
	Flags func(fs *flag.FlagSet) func(io *stdio, args []string) int
	// Missing says why this build lacks the command ("": it has it).
	Missing string
}

// stdio is where a command writes.
type stdio struct{ out, err io.Writer }

// usageErr reports a usage error of command name and returns exit code 2.
func (s *stdio) usageErr(name, format string, a ...any) int {
	fmt.Fprintf(s.err, name+": "+format+"\n", a...)
	return 2
}

// fail prints err (one line per error of a joined or TableErrors error) and
// returns exit code 1.
func (s *stdio) fail(err error) int {
	fmt.Fprintln(s.err, err)
	return 1
}

// newFlagSet returns the FlagSet of c, whose usage is c's usage line.
func newFlagSet(c *command, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: autotune %s %s\n(\"autotune help %s\" explains it)\n", c.Name, c.UsageLine, c.Name)
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
