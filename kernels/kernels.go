// Package kernels embeds gemmroute's compiled kernels: the manifest that
// describes them and one fatbin per architecture family (images/). The CUDA
// sources are in src/; build.sh rebuilds the images with nvcc.
package kernels

//go:generate go run -tags nocuda ./internal/gen -dir .

import (
	"embed"
	_ "embed"
)

// ManifestJSON is manifest.json: every kernel with its constraints.
//
//go:embed manifest.json
var ManifestJSON []byte

// Images holds the fatbins, images/sm80.fatbin and images/sm90.fatbin.
//
//go:embed images
var Images embed.FS
