// Package cudahint prints, before gorgonia.org/cu's init runs, how to build
// without CUDA when the machine visibly has no NVIDIA GPU.
//
// gorgonia.org/cu's package init calls cuInit and, when it fails (no GPU, no
// driver), prints "Error in initialization … NoDevice" and exits the program
// with status 1, before main and before anything of gemmroute can answer.
// The default (CUDA) build of package dispatch imports this package for
// its init only. Go initializes packages in dependency order, and among
// packages ready at the same time in the order of their import paths; this
// one imports nothing gorgonia.org/cu does not import itself, and its path
// sorts before "gorgonia.org/cu", so its init runs first. It never imports
// gorgonia.org/cu (the -tags nocuda build does not import it at all).
package cudahint

import "os"

func init() {
	if msg := Message(machine{}, os.LookupEnv); msg != "" {
		_, _ = os.Stderr.WriteString(msg)
	}
}

// Machine is what Message looks at: whether a path exists, and how many
// entries a directory has (0 when it cannot be read).
type Machine interface {
	Exists(path string) bool
	Entries(dir string) int
}

type machine struct{}

func (machine) Exists(path string) bool { _, err := os.Stat(path); return err == nil }

func (machine) Entries(dir string) int { es, _ := os.ReadDir(dir); return len(es) }

// Message is the hint for a machine without a visible NVIDIA GPU, or "":
// on Linux when the NVIDIA kernel driver lists no GPU in
// /proc/driver/nvidia/gpus (and this is not WSL, whose GPU is /dev/dxg), or
// when CUDA_VISIBLE_DEVICES hides every GPU. lookupEnv stands for
// os.LookupEnv.
func Message(m Machine, lookupEnv func(string) (string, bool)) string {
	why := ""
	if v, ok := lookupEnv("CUDA_VISIBLE_DEVICES"); ok && (v == "" || v == "-1" || v == "none" || v == "NoDevFiles") {
		why = "CUDA_VISIBLE_DEVICES=" + v + " hides every GPU"
	} else if m.Exists("/proc/self") && !m.Exists("/dev/dxg") && m.Entries("/proc/driver/nvidia/gpus") == 0 {
		why = "the NVIDIA driver lists no GPU here (/proc/driver/nvidia/gpus)"
	}
	if why == "" {
		return ""
	}
	return "gemmroute: " + why + ".\n" +
		"This program is built with CUDA (gorgonia.org/cu), whose initialization exits\n" +
		"the program when it finds no GPU (\"Error in initialization ... NoDevice\").\n" +
		"Planning, Explain and the table tools need no GPU: build with -tags nocuda\n" +
		"(go run -tags nocuda ...), where dispatch.Open returns dispatch.ErrNoCUDA.\n"
}
