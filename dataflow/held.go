package dataflow

import "context"

// heldInput is the input of an operator that steps on its whole input at
// once, in a final step as in any tick (see final.go): absorb keeps each
// chunk, and finish puts them back as the stream's delta and steps.
type heldInput struct {
	rows Batch
	errs []ErrorUpdate
}

func (h *heldInput) absorb(in *stream) {
	h.rows = append(h.rows, in.delta...)
	h.errs = append(h.errs, in.errs...)
}

func (h *heldInput) finish(ctx context.Context, in *stream, step func(context.Context) error) error {
	in.delta, in.errs = h.rows, h.errs
	h.rows, h.errs = nil, nil
	err := step(ctx)
	in.delta, in.errs = nil, nil
	return err
}
