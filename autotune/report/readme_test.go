package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

// The README's performance figures are what the committed results give:
// regenerating its blocks changes no byte.
func TestReadmeFiguresMatchTheCommittedResults(t *testing.T) {
	root := filepath.Join("..", "..")
	old, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	got, err := Readme(root, old)
	require.NoError(t, err)
	if !bytes.Equal(got, old) {
		a, b := strings.Split(string(old), "\n"), strings.Split(string(got), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("README.md line %d disagrees with the committed results:\n have %q\n want %q\nrun: %s", i+1, a[i], b[i], ReadmeCommand)
			}
		}
		t.Fatalf("README.md disagrees with the committed results (%d lines, want %d); run: %s", len(a), len(b), ReadmeCommand)
	}
}

// A run's ceilings come back from its peer CSV's roofline floors as the
// peer's header printed them: the first line of the README's bf16 run's log
// and of an e4m3 run's.
func TestPeerCeilingsFromTheFloors(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, c := range []struct {
		log, csv string
		dt       dispatch.DType
	}{
		{strings.TrimSuffix(readmeBF16Peer, ".csv") + ".log", readmeBF16Peer, dispatch.BF16},
		{"docs/perf/2026-12-01-h200-fp8/call8-peer.log", "docs/perf/2026-12-01-h200-fp8/call8-peer.csv", dispatch.E4M3},
	} {
		log, err := os.ReadFile(filepath.Join(root, c.log))
		require.NoError(t, err)
		header := regexp.MustCompile(`read ([0-9.]+) TB/s .* ` + c.dt.String() + ` dense ([0-9]+) TFLOP/s`).FindSubmatch(log)
		require.NotNil(t, header, "%s: the log's first line states the ceilings", c.log)
		read, err := strconv.ParseFloat(string(header[1]), 64)
		require.NoError(t, err)
		peak, err := strconv.ParseFloat(string(header[2]), 64)
		require.NoError(t, err)
		got, err := peerCeilings(filepath.Join(root, c.csv), c.dt)
		require.NoError(t, err)
		require.Equal(t, measured{readTBs: read, peakTF: peak}, got, c.csv)
	}
}

// A README without a block's markers, or with a block twice, is refused.
func TestReadmeNeedsEveryBlockOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	_, err := Readme(root, []byte("# no blocks\n"))
	require.ErrorContains(t, err, "want exactly one line")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	begin := "<!-- generated: padded (" + ReadmeCommand + ") -->\n"
	_, err = Readme(root, append(readme, begin...))
	require.ErrorContains(t, err, "exactly one")
	_, err = Readme(root, bytes.Replace(readme, []byte("<!-- end generated: padded -->\n"), nil, 1))
	require.ErrorContains(t, err, "no line")
}

// The README says whose figures they are: our kernels' alone when no shape
// went to cuBLASLt, else how many did and what our kernels alone ran there.
func TestRouterNote(t *testing.T) {
	ours := BenchRow{Kernel: "gemmroute_sm90_ws_wgmma_bf16_bf16_f32_tn_128x96x64_w12_s7_a16", GraphUS: 10, PeerUS: 12}
	require.Equal(t, "Every figure is our kernels' alone: the table routed no shape to cuBLASLt.\n", routerNote([]BenchRow{ours}))
	vendor := BenchRow{Kernel: "cublaslt:13.1.0:1a2b3c4d", GraphUS: 10, PeerUS: 11, KernelsOnly: KernelsOnly{Kernel: ours.Kernel, GraphUS: 22}}
	require.Equal(t, "The table routed 1 of these shapes to cuBLASLt (×1.10 there); our kernels alone there: ×0.50.\n", routerNote([]BenchRow{ours, vendor}))
}
