package pgwire

import (
	"context"
	"net"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Engine opens sessions. Package sql implements it; pgwire never imports
// the engine, so the protocol layer can be tested with a toy engine and the
// engine with any client.
type Engine interface {
	// Connect opens the session of a client that has completed the startup
	// handshake. An error rejects the connection: it reaches the client as a
	// FATAL ErrorResponse (for example 3D000 for an unknown database).
	Connect(ctx context.Context, s Startup) (Session, error)
}

// Startup is what a client said about itself when it connected.
type Startup struct {
	User, Database string
	// Params holds every startup parameter as sent, including user and
	// database: application_name, options, client_encoding, DateStyle,
	// TimeZone and any other setting the client asked for.
	Params     map[string]string
	ProcessID  uint32
	RemoteAddr net.Addr
	// Notifier delivers asynchronous messages to this client. It is safe
	// for concurrent use and remains valid until Session.Close returns.
	Notifier Notifier
	// Portals reads the client's protocol portals, for MOVE and FETCH
	// from a portal the client bound. Only the connection's goroutine
	// may use it, from inside a Session, Statement or Result call.
	Portals Portals
}

// Portals gives SQL statements access to the portals a client made with
// Bind: in PostgreSQL portals and SQL cursors share one namespace, and
// clients such as asyncpg bind a portal and then send MOVE FORWARD n to
// skip its rows.
type Portals interface {
	// ReadPortal runs the named portal if it has not run yet and reads up
	// to n of its rows, calling fn for each unless fn is nil (MOVE); the
	// row is valid only during the call. It returns the portal's columns
	// and the number of rows read; ok is false when there is no such
	// portal or it returns no rows.
	ReadPortal(ctx context.Context, name string, n int64, fn func(types.Row)) (cols []Column, read int64, ok bool, err error)
}

// Notifier lets the engine push messages to the client while a statement
// runs, or at any other time. Its methods write to the client's connection
// and may wait while that connection is busy or slow, so they are not for
// loops that must never block, such as the tick loop.
type Notifier interface {
	// Notice sends a NoticeResponse at once, behind the rows already
	// produced. n.Severity should be NOTICE or WARNING (NOTICE when
	// empty); n.Code defaults to 00000.
	Notice(n *pgerr.Error)
	// ParameterStatus reports a changed setting (after SET of a parameter
	// the client tracks, such as application_name or TimeZone). As in
	// PostgreSQL the report is sent just before the next ReadyForQuery,
	// only the last value per name; when idle it is sent at once.
	ParameterStatus(name, value string)
	// Notification delivers a NOTIFY of session pid on a channel the
	// client listens to: at once when the client is idle outside a
	// transaction block, otherwise before the ReadyForQuery that ends
	// its block or statement, as PostgreSQL does.
	Notification(pid uint32, channel, payload string)
}

// CursorSession is a Session whose SQL cursors (DECLARE CURSOR) are
// portals too, as in PostgreSQL: Describe of a portal of that name
// describes the cursor's rows. Clients such as psycopg describe a
// cursor they declared this way before fetching from it.
type CursorSession interface {
	DescribeCursor(name string) ([]Column, bool)
}

// Session is one client connection's state in the engine. pgwire calls its
// methods from the connection's goroutine only, one at a time.
//
// Every ctx passed to a Session, Statement or Result is valid only for the
// duration of that call: it is cancelled when the client sends a
// CancelRequest or the server shuts down. Implementations must not keep it.
// A statement cancelled by the client should return pgerr.Canceled(); an
// error that merely wraps ctx.Err() is reported the same way.
type Session interface {
	// Parse splits a query string into statements. It does a raw parse
	// only: names are not resolved, so a statement that refers to a table
	// created by an earlier statement of the same string still parses.
	// Zero statements (an empty or all-comment string) is an empty query.
	Parse(ctx context.Context, query string) ([]Statement, error)
	// ParameterStatuses returns the parameters reported after startup:
	// server_version, server_encoding, client_encoding, DateStyle,
	// TimeZone, integer_datetimes, standard_conforming_strings,
	// application_name, IntervalStyle, is_superuser, session_authorization.
	ParameterStatuses() [][2]string
	// TextConfig is the current configuration for text-format values,
	// used to decode text parameters and encode text results.
	TextConfig() *types.TextConfig
	// TxStatus is the transaction state reported in ReadyForQuery: 'I'
	// idle, 'T' in a transaction block, 'E' in a failed transaction block.
	TxStatus() byte
	// BeginBlock and EndBlock bracket the statements that PostgreSQL runs
	// as one implicit transaction: those of a simple-query message holding
	// more than one statement, and those executed between two Syncs of
	// the extended protocol. err is the error that stopped the block, or
	// nil when every statement succeeded; EndBlock returns the error of
	// committing the block, which the client receives as an ErrorResponse.
	BeginBlock()
	EndBlock(err error) error
	// Abort reports an error that pgwire raised itself while serving the
	// client (an unknown portal, a malformed parameter value). As after an
	// engine error, an open transaction block must become failed ('E').
	Abort(err error)
	// Close ends the session; an open transaction is rolled back.
	Close()
}

// Statement is one parsed statement.
type Statement interface {
	// Describe resolves names and types. paramOIDs are the parameter types
	// the client specified, 0 where it left the type to be inferred; it may
	// be shorter than the number of parameters. It returns every
	// parameter's type (at least one per paramOIDs entry, used or not, as
	// PostgreSQL does) and the result columns; nil columns means the
	// statement returns no rows. pgwire calls Describe once per prepared
	// statement (at Parse) and once per statement of a simple query.
	Describe(ctx context.Context, paramOIDs []uint32) (params []types.Type, cols []Column, err error)
	// Execute runs the statement with the given parameter values (one per
	// parameter type from Describe) and returns its result. The rows may be
	// produced lazily by Result.Next.
	Execute(ctx context.Context, params []types.Datum) (Result, error)
}

// Column describes one result column, as sent in RowDescription.
type Column struct {
	Name string
	Type types.Type
	// TableOID and Attr identify the table column the value comes from,
	// zero when it is computed.
	TableOID uint32
	Attr     int16
}

// LiveResult is a Result whose rows arrive over time, such as a
// SUBSCRIBE: pgwire flushes the rows it has buffered whenever the next one
// is not ready yet, so that the client sees each change as it happens.
type LiveResult interface {
	Result
	// Ready reports whether Next would return without waiting.
	Ready() bool
}

// Result is a running statement's output.
type Result interface {
	// Next returns the next row; ok is false when there are no more. The
	// row is valid until the next call.
	Next(ctx context.Context) (row types.Row, ok bool, err error)
	// Tag is the command tag ("SELECT 3", "INSERT 0 2", "CREATE TABLE"),
	// valid once Next has returned ok == false.
	Tag() string
	// Close releases the result. It is called exactly once, also when the
	// client stops reading early (a portal closed while suspended).
	Close()
}
