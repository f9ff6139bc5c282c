package tuning

import "github.com/gemmroute/gemmroute/dispatch"

// SetIncumbent sets the table Tune would merge into (its base).
func (cfg *Config) SetIncumbent(t *dispatch.Table) { cfg.incumbent = t }

// Candidates exposes candidates to the external tests.
func (cfg *Config) Candidates(w Weight, sp Span, m Measurer) (cands, pruned []Candidate) {
	return cfg.candidates(m.Device(), w, sp)
}

// ParseKernelCandidate exposes parseKernelCandidate to the external tests.
func ParseKernelCandidate(s string) (Candidate, bool) { return parseKernelCandidate(s) }

// TuneSpan exposes tuneSpan to the external tests.
func (cfg *Config) TuneSpan(m Measurer, w Weight, sp Span) (*SpanResult, error) {
	return cfg.tuneSpan(m, w, sp)
}

// VendorCandidates exposes vendorCandidates to the external tests.
func (cfg *Config) VendorCandidates(m Measurer, w Weight, sp Span) ([]Candidate, error) {
	return cfg.vendorCandidates(m, w, sp)
}
