package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	text := out.String()
	assert.Contains(t, text, "NVIDIA H200 (sm_90")
	assert.Contains(t, text, "NVIDIA A100")
	rows := 0
	for line := range strings.Lines(text) {
		if strings.Contains(line, "×") && !strings.HasPrefix(line, "proj") {
			rows++
			assert.NotContains(t, line, "error", "the default table and catalog must plan every Llama-3-8B shape")
		}
	}
	assert.Equal(t, 2*4*14, rows)
}
