package pgwire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// errorResponse is the one place where an error becomes an ErrorResponse.
// A *pgerr.Error anywhere in err's chain gives the SQLSTATE, message,
// detail, hint and position. Anything else is a bug or an unexpected
// failure: it reaches the client as XX000 with its text and is logged.
// fatal forces severity FATAL: the connection ends after the message.
func errorResponse(log *slog.Logger, err error, fatal bool) *pgproto3.ErrorResponse {
	e := pgerr.As(err)
	if e == nil {
		log.Error("internal error", "err", err)
		e = &pgerr.Error{Code: pgerr.InternalError, Message: err.Error()}
	}
	severity := e.Severity
	switch {
	case fatal:
		severity = pgerr.SeverityFatal
	case severity == "":
		severity = pgerr.SeverityError
	}
	return fieldsOf(e, severity)
}

// noticeResponse converts a notice raised by the engine.
func noticeResponse(n *pgerr.Error) *pgproto3.NoticeResponse {
	severity := n.Severity
	if severity == "" {
		severity = pgerr.SeverityNotice
	}
	if n.Code == "" {
		c := *n
		c.Code = pgerr.SuccessfulCompletion
		n = &c
	}
	return (*pgproto3.NoticeResponse)(fieldsOf(n, severity))
}

func fieldsOf(e *pgerr.Error, severity string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                string(e.Code),
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            int32(e.Position),
	}
}

// isFatal reports whether err ends the connection once reported.
func isFatal(err error) bool {
	e := pgerr.As(err)
	return e != nil && e.Severity == pgerr.SeverityFatal
}

// fatal returns a FATAL error: the connection is closed after sending it.
func fatal(code pgerr.Code, format string, args ...any) *pgerr.Error {
	e := pgerr.New(code, format, args...)
	e.Severity = pgerr.SeverityFatal
	return e
}

// errAdminShutdown is the cause with which the server cancels every
// connection when it shuts down.
var errAdminShutdown = fatal(pgerr.AdminShutdown, "terminating connection due to administrator command")

// statementError explains a statement's failure. An engine that returns a
// bare context error for a cancelled statement gets the reason the context
// was cancelled instead: a CancelRequest (57014) or shutdown (57P01).
func statementError(ctx context.Context, err error) error {
	if pgerr.As(err) != nil || ctx.Err() == nil {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if cause := pgerr.As(context.Cause(ctx)); cause != nil {
			return cause
		}
	}
	return err
}

// localError marks an error raised by pgwire itself rather than by the
// engine (an unknown portal, a malformed parameter). The session learns of
// it through Session.Abort, since it did not see it happen.
type localError struct{ err error }

func (e localError) Error() string { return e.err.Error() }
func (e localError) Unwrap() error { return e.err }

// local wraps err as a localError.
func local(err error) error { return localError{err} }

// localf returns a pgwire error with the given code.
func localf(code pgerr.Code, format string, args ...any) error {
	return localError{pgerr.New(code, format, args...)}
}

// panicError describes a recovered panic for the client.
func panicError(r any) *pgerr.Error {
	return fatal(pgerr.InternalError, "internal error: %s", fmt.Sprint(r))
}

// errBlockFailed tells EndBlock that a statement of an extended-protocol
// block failed; the statement's own error has already been sent.
var errBlockFailed = errors.New("a statement of the implicit transaction failed")
