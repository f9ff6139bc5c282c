//go:build !nocuda

package dispatch_test

import (
	"fmt"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// gpu is the test binary's own hold on device 0's primary context, for
// allocations and copies (gorgonia/cu has already exited the process at init
// where there is no GPU).
var gpu *cuda.Context

func TestMain(m *testing.M) {
	var err error
	if gpu, err = cuda.Open(0); err != nil {
		fmt.Fprintln(os.Stderr, "GPU tests need device 0:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// devBuf is a device allocation holding 16-bit elements.
type devBuf struct {
	base uintptr
	n    int
}

func upload(t testing.TB, host []uint16) devBuf {
	t.Helper()
	b := devBuf{n: len(host)}
	var err error
	b.base, err = gpu.Alloc(int64(max(len(host), 1))*2 + 256)
	require.NoError(t, err)
	if len(host) > 0 {
		require.NoError(t, gpu.CopyIn(b.base, unsafe.Pointer(&host[0]), int64(len(host))*2))
	}
	t.Cleanup(func() { _ = gpu.Free(b.base) })
	return b
}

func poisoned(t testing.TB, n int) devBuf {
	t.Helper()
	host := make([]uint16, n)
	for i := range host {
		host[i] = gemmtest.Poison
	}
	return upload(t, host)
}

func (b devBuf) ptr(offElems int) dispatch.DevicePtr {
	return dispatch.DevicePtr(b.base + uintptr(offElems)*2)
}

func (b devBuf) download(t testing.TB) []uint16 {
	t.Helper()
	host := make([]uint16, b.n)
	if b.n > 0 {
		require.NoError(t, gpu.CopyOut(unsafe.Pointer(&host[0]), b.base, int64(b.n)*2))
	}
	return host
}

// operands uploads d's inputs and a poisoned D and returns the problem with
// its pointers set.
func operands(t testing.TB, d *gemmtest.Data) (dispatch.Problem, devBuf) {
	t.Helper()
	p := d.P
	a, b, c := upload(t, d.A), upload(t, d.B), upload(t, d.C)
	out := poisoned(t, p.M*p.LDC)
	p.A, p.B, p.C, p.D = a.ptr(d.OffA), b.ptr(d.OffB), c.ptr(0), out.ptr(0)
	if d.Bias != nil {
		p.Bias = upload(t, d.Bias).ptr(0)
	}
	return p, out
}

func waitStream(t testing.TB, s dispatch.Stream) {
	t.Helper()
	require.NoError(t, gpu.Sync(cuda.Stream(s)))
}
