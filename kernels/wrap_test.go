package kernels

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A manifest the JSON decoder refuses keeps the decoder's error in the
// chain, beside ErrManifest.
func TestParseManifestWrapsDecodeError(t *testing.T) {
	_, err := ParseManifest([]byte(`{"schema": [1]}`))
	require.ErrorIs(t, err, ErrManifest)
	var te *json.UnmarshalTypeError
	assert.True(t, errors.As(err, &te), "%v", err)
	_, err = ParseManifest([]byte(`{"schema": 1,}`))
	require.ErrorIs(t, err, ErrManifest)
	var se *json.SyntaxError
	assert.True(t, errors.As(err, &se), "%v", err)
}
