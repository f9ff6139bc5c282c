package dispatch

import (
	"errors"
	"fmt"

	"github.com/gemmroute/gemmroute/internal/cuda"
)

// cudaErr turns an error of the CUDA layer into the engine's: a driver
// result becomes a *CUDAError, each error of a join is turned on its own,
// an error already turned is kept, and anything else is wrapped so that
// errors.Is(err, ErrCUDA) holds.
func cudaErr(err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, cudaErr(e))
		}
		return errors.Join(errs...)
	}
	if errors.Is(err, ErrCUDA) {
		return err
	}
	if ce, ok := err.(*cuda.Error); ok {
		return &CUDAError{Call: ce.Call, Code: ce.Code, Name: ce.Name, Msg: ce.Msg}
	}
	return fmt.Errorf("%w: %w", ErrCUDA, err)
}
