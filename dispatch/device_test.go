package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Driver device names find their own preset, not a prefix's: an A100 is no
// A10, an L40S no L4, an H100 PCIe no SXM part.
func TestPresetForDriverNames(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA A10":              "NVIDIA A10",
		"NVIDIA A100-SXM4-80GB":   "NVIDIA A100-SXM4-80GB",
		"NVIDIA A100-SXM4-40GB":   "NVIDIA A100-SXM4-40GB",
		"NVIDIA L4":               "NVIDIA L4",
		"NVIDIA L40S":             "NVIDIA L40S",
		"NVIDIA GeForce RTX 4090": "NVIDIA GeForce RTX 4090",
		"NVIDIA H100 PCIe":        "NVIDIA H100 PCIe",
		"NVIDIA H100 80GB HBM3":   "NVIDIA H100 80GB HBM3",
		"NVIDIA H200":             "NVIDIA H200",
		"NVIDIA B200":             "NVIDIA B200",
	} {
		p, ok := presetFor(name)
		require.True(t, ok, name)
		assert.Equal(t, want, p.Name, name)
	}
	_, ok := presetFor("Tesla V100-SXM2-16GB")
	assert.False(t, ok)
}

// Every preset is complete.
func TestPresetsComplete(t *testing.T) {
	for _, name := range DevicePresetNames() {
		d, err := DevicePreset(name)
		require.NoError(t, err, name)
		assert.Positive(t, d.SMs, name)
		assert.Positive(t, d.L2Bytes, name)
		assert.Positive(t, d.SmemOptIn, name)
		assert.Positive(t, d.ReadBandwidth, name)
		assert.Positive(t, d.PeakFLOPS, name)
	}
	_, err := DevicePreset("v100")
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.Contains(t, err.Error(), "h100-pcie")
}
