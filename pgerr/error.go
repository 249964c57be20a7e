package pgerr

import (
	"errors"
	"fmt"
)

// Severity levels as sent in the wire protocol's S and V fields.
const (
	SeverityError  = "ERROR"
	SeverityFatal  = "FATAL"
	SeverityNotice = "NOTICE"
)

// Error is a PostgreSQL error. Code is the five-character SQLSTATE.
type Error struct {
	Code     Code
	Severity string // ERROR when empty
	Message  string
	Detail   string
	Hint     string
	// Position is the 1-based character offset into the statement text
	// the error refers to, 0 when unknown.
	Position int
	// Err is the underlying cause, if any; it is not shown to clients.
	Err error
}

// Code is a SQLSTATE error code.
type Code string

// New returns an error with the given code and a message formatted with
// fmt.Sprintf.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with the given code whose cause is err; the message
// is err's text unless format is given.
func Wrap(err error, code Code, format string, args ...any) *Error {
	e := &Error{Code: code, Err: err}
	if format == "" {
		e.Message = err.Error()
	} else {
		e.Message = fmt.Sprintf(format, args...)
	}
	return e
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// SQLState returns the five-character SQLSTATE, as pgx's PgError does.
func (e *Error) SQLState() string { return string(e.Code) }

// WithDetail sets the detail and returns e.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithPosition sets the 1-based statement position and returns e.
func (e *Error) WithPosition(pos int) *Error {
	e.Position = pos
	return e
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf returns the SQLSTATE of err: the code of the first *Error in its
// chain, QueryCanceled for context cancellation, and InternalError otherwise.
func CodeOf(err error) Code {
	if e := As(err); e != nil {
		return e.Code
	}
	if errors.Is(err, errCanceled) {
		return QueryCanceled
	}
	return InternalError
}

// errCanceled is matched by context cancellation through Canceled.
var errCanceled = errors.New("canceling statement due to user request")

// Canceled is the error a statement ends with when the client cancels it.
func Canceled() *Error {
	return &Error{Code: QueryCanceled, Message: errCanceled.Error(), Err: errCanceled}
}
