//go:build !nocuda

package dispatch_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
	"github.com/gemmroute/gemmroute/internal/gpuharness"
)

// gpu is the test binary's own hold on device 0's primary context, for
// allocations and copies (gorgonia/cu has already exited the process at init
// where there is no GPU).
var gpu *gpuharness.Device

func TestMain(m *testing.M) {
	var err error
	if gpu, err = gpuharness.OpenDevice(0); err != nil {
		fmt.Fprintln(os.Stderr, "GPU tests need device 0:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// devBuf is a device allocation, freed when the test ends.
type devBuf struct{ b gpuharness.Buf }

func bufOf(t testing.TB, b gpuharness.Buf, err error) devBuf {
	t.Helper()
	require.NoError(t, err)
	t.Cleanup(func() { gpu.Release(b) })
	return devBuf{b}
}

func upload(t testing.TB, host []uint16) devBuf {
	t.Helper()
	b, err := gpu.Upload(host)
	return bufOf(t, b, err)
}

func poisoned(t testing.TB, n int) devBuf {
	t.Helper()
	b, err := gpu.Poisoned(n)
	return bufOf(t, b, err)
}

func (b devBuf) ptr(offElems int) dispatch.DevicePtr { return b.b.Ptr(offElems) }

// download copies a buffer of 16-bit elements back.
func (b devBuf) download(t testing.TB) []uint16 {
	t.Helper()
	host, err := gpu.Download(b.b)
	require.NoError(t, err)
	return host
}

// operands uploads d's inputs and a poisoned D and returns the problem with
// its pointers set.
func operands(t testing.TB, d *gemmtest.Data) (dispatch.Problem, devBuf) {
	t.Helper()
	o, err := gpu.Operands(d)
	require.NoError(t, err)
	t.Cleanup(o.Free)
	return o.P, devBuf{o.Out}
}

func waitStream(t testing.TB, s dispatch.Stream) {
	t.Helper()
	require.NoError(t, gpu.Sync(cuda.Stream(s)))
}

// reservedStream is a new non-blocking stream, destroyed when t ends, with
// bytes of e's workspace reserved on it.
func reservedStream(t testing.TB, e *dispatch.Engine, bytes int64) cuda.Stream {
	t.Helper()
	s, err := gpu.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.DestroyStream(s) })
	require.NoError(t, e.Reserve(dispatch.Stream(s), bytes))
	return s
}

// runOn repoisons out, runs launch (a direct launch on s, or a graph replay
// on it), waits for s and returns out's elements.
func runOn(t testing.TB, out devBuf, s cuda.Stream, name string, launch func() error) []uint16 {
	t.Helper()
	repoison(t, out)
	waitStream(t, 0)
	require.NoError(t, launch(), name)
	require.NoError(t, gpu.Sync(s), name)
	return out.download(t)
}
