package cudahint

import (
	"go/build"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMessage(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	msg := Message(fake{"/proc/self": 1}, env(nil))
	assert.Contains(t, msg, "/proc/driver/nvidia/gpus")
	assert.Contains(t, msg, "-tags nocuda")
	assert.Contains(t, Message(fake{"/proc/self": 1, "/dev/nvidiactl": 1}, env(nil)), "lists no GPU", "a driver device without a GPU")
	gpu := fake{"/proc/self": 1, "/proc/driver/nvidia/gpus": 1}
	assert.Empty(t, Message(gpu, env(nil)), "a GPU machine gets no hint")
	assert.Empty(t, Message(fake{"/proc/self": 1, "/dev/dxg": 1}, env(nil)), "WSL")
	assert.Empty(t, Message(fake{}, env(nil)), "not Linux (no /proc): nothing to go by")
	assert.Empty(t, Message(gpu, env(map[string]string{"CUDA_VISIBLE_DEVICES": "0"})))
	msg = Message(gpu, env(map[string]string{"CUDA_VISIBLE_DEVICES": ""}))
	assert.Contains(t, msg, "CUDA_VISIBLE_DEVICES= hides every GPU")
}

// The package's init runs before gorgonia.org/cu's only while its import
// path sorts first and it imports nothing cu does not (cu imports os).
func TestInitsBeforeGorgoniaCU(t *testing.T) {
	const self = "github.com/gemmroute/gemmroute/internal/cudahint"
	require.Less(t, self, "gorgonia.org/cu")
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	for _, imp := range pkg.Imports {
		assert.Contains(t, []string{"os"}, imp, "cudahint may import only what gorgonia.org/cu imports too")
	}
	assert.False(t, strings.Contains(strings.Join(pkg.Imports, " "), "gorgonia"))
}

// fake is a Machine: a path exists when listed, with that many entries.
type fake map[string]int

func (f fake) Exists(path string) bool { _, ok := f[path]; return ok }

func (f fake) Entries(dir string) int { return f[dir] }
