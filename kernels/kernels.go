// Package kernels embeds gemmroute's compiled kernels: the manifest that
// describes them and one fatbin per architecture family (images/). The CUDA
// sources are in src/; build.sh rebuilds the images with nvcc.
package kernels

//go:generate go run -tags nocuda ./internal/gen -dir .

import (
	"embed"
	_ "embed"
	"os"
)

// ManifestJSON is manifest.json: every kernel with its constraints.
//
//go:embed manifest.json
var ManifestJSON []byte

// Images holds the fatbins, images/sm80.fatbin and images/sm90.fatbin.
//
//go:embed images
var Images embed.FS

// dirEnv names the environment variable that points gemmroute at a kernel
// directory (manifest.json and images/, as build.sh writes them) instead
// of the embedded kernels.
const dirEnv = "GEMMROUTE_KERNEL_DIR"

// Dir returns dir when it is not "", else the directory the environment
// variable GEMMROUTE_KERNEL_DIR names; "" means the embedded kernels. The
// engine (Options.KernelDir) and the autotune commands (-manifest) find
// their kernels through it: it is the one place that reads the variable.
func Dir(dir string) string {
	if dir == "" {
		dir = os.Getenv(dirEnv)
	}
	return dir
}
