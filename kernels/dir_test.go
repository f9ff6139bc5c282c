package kernels

import "testing"

// Dir prefers the directory it is given, then $GEMMROUTE_KERNEL_DIR; ""
// is the embedded kernels.
func TestDir(t *testing.T) {
	t.Setenv(dirEnv, "")
	if got := Dir(""); got != "" {
		t.Errorf(`Dir("") with the variable empty = %q, want ""`, got)
	}
	t.Setenv(dirEnv, "/from/env")
	if got := Dir(""); got != "/from/env" {
		t.Errorf(`Dir("") = %q, want the variable's /from/env`, got)
	}
	if got := Dir("/given"); got != "/given" {
		t.Errorf(`Dir("/given") = %q, want /given`, got)
	}
}
