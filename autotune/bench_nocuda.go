//go:build nocuda

package main

import "flag"

var benchCmd = &command{
	Name:      "bench",
	UsageLine: "-shapes FILE [flags]",
	Short:     "time the engine's chosen kernels by graph replay and per-call events (default build, on a GPU)",
	Long:      "Bench needs the default (CUDA) build and a GPU; this build was made with -tags nocuda.",
	Flags:     func(*flag.FlagSet) func(*stdio, []string) int { return nil },
	Missing:   "build without -tags nocuda and run on a GPU",
}
