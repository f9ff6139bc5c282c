//go:build !nocuda

package dispatch

// Before gorgonia.org/cu's init exits a program on a machine without a GPU,
// say how to build the planning-only (-tags nocuda) version.
import _ "github.com/gemmroute/gemmroute/internal/cudahint"
