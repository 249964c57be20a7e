package dataflow

import (
	"cmp"
	"errors"
	"slices"

	"github.com/streamdb/streamdb/pgerr"
)

// ErrorUpdate is an evaluation error travelling as data, with a weight like
// a row's. When a function fails on a row, the error enters the failing
// node's error stream with the row's weight; when the row is retracted the
// same function fails the same way with the opposite weight and the two
// cancel. A view whose accumulated error collection is non-empty reads as
// its first error; once the offending rows are gone it reads normally again.
//
// Errors are equal when their SQLSTATE, message, detail and hint are; the
// statement position and the wrapped cause play no part.
type ErrorUpdate struct {
	Err  *pgerr.Error
	Diff int64
}

// ConsolidateErrors sorts errs (by SQLSTATE, then message, detail and
// hint), merges equal errors by adding their weights and drops zero
// weights, reusing errs' storage.
func ConsolidateErrors(errs []ErrorUpdate) []ErrorUpdate {
	if len(errs) == 0 {
		return errs
	}
	slices.SortStableFunc(errs, func(a, b ErrorUpdate) int { return compareErrors(a.Err, b.Err) })
	n := 0
	for i := 0; i < len(errs); {
		j := i + 1
		d := errs[i].Diff
		for j < len(errs) && compareErrors(errs[i].Err, errs[j].Err) == 0 {
			d += errs[j].Diff
			j++
		}
		if d != 0 {
			errs[n] = ErrorUpdate{Err: errs[i].Err, Diff: d}
			n++
		}
		i = j
	}
	clear(errs[n:])
	if invariants {
		checkErrorsConsolidated(errs[:n])
	}
	return errs[:n]
}

// compareErrors orders errors by the fields that make them equal.
func compareErrors(a, b *pgerr.Error) int {
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Detail, b.Detail); c != 0 {
		return c
	}
	return cmp.Compare(a.Hint, b.Hint)
}

// dataError turns the error of an operator's function into the error that
// travels as data. A *pgerr.Error (possibly wrapped) is used as is; any
// other error is an evaluator bug, reported to readers as internal_error
// rather than failing the tick, so that the view recovers when the row goes
// away like it would for any other evaluation error.
func dataError(err error) *pgerr.Error {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return pe
	}
	return pgerr.Wrap(err, pgerr.InternalError, "")
}
