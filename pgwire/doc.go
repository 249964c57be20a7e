// Package pgwire is streamdb's PostgreSQL server: it speaks version 3.0 of
// the PostgreSQL frontend/backend protocol, so psql, pgx, JDBC, psycopg and
// any other PostgreSQL client can connect, and hands the SQL to the engine
// through the narrow Engine/Session/Statement/Result interfaces defined in
// engine.go. pgwire never imports the SQL front end or the engine
// (package sql implements the interfaces, see sql.Frontend), which keeps
// the protocol layer testable with a toy engine and buildable without
// cgo.
//
// # Connections
//
// Server accepts TCP connections and serves each on its own goroutine
// (conn.go). A connection starts with the handshake (startup.go): the
// client may ask for TLS (SSLRequest, answered 'S' and upgraded when
// Config.TLS is set, 'N' otherwise) or GSS encryption (always 'N'), or send
// a CancelRequest instead of starting a session. The StartupMessage names
// the user, database and settings; a client asking for a newer protocol
// minor version or for _pq_ options gets NegotiateProtocolVersion and
// continues with 3.0. Then the client is admitted and authenticated (see
// below), Engine.Connect opens the session, and the client receives the
// session's ParameterStatus list, BackendKeyData (process ID and random
// secret for cancelling) and ReadyForQuery.
//
// Messages are framed by msgReader (reader.go) and decoded with pgproto3's
// message types. Framing is done here rather than by pgproto3.Backend to
// answer exactly as PostgreSQL does: an unknown message type is refused by
// its type byte before its length is trusted, a body that fails to decode
// is an ordinary error after which the connection goes on, and no bytes can
// slip from before a TLS handshake into the encrypted stream. Garbage, an
// unknown type or a length beyond Config.MaxMessageSize ends that
// connection only, with FATAL 08P01.
//
// # Authentication
//
// After the StartupMessage, in PostgreSQL's order (startup.go, auth.go):
//
//  1. Config.MaxConnections: a client beyond it gets FATAL 53300 "sorry,
//     too many clients already". Clients count from their StartupMessage,
//     authenticated or not, until they leave; CancelRequests never count.
//  2. TLS: when the server has a certificate, a client from a non-local
//     address that did not ask for TLS is refused (28000) unless
//     AuthConfig.RemotePlaintext allows it.
//  3. The method: AuthConfig.Local for clients whose address is in
//     LocalNets (loopback by default, local.go), Remote for the others.
//     Trust asks nothing. SCRAM runs SCRAM-SHA-256 (internal/scram; over
//     TLS SCRAM-SHA-256-PLUS is offered too, binding the exchange to the
//     certificate). Password asks for the password in cleartext and is
//     used on TLS connections only; without TLS the client gets SCRAM.
//  4. AuthenticationOk, then the role: one that does not exist (28000
//     role "x" does not exist) or lacks LOGIN (28000 role "x" is not
//     permitted to log in) is turned away, as PostgreSQL does after
//     authentication.
//
// Roles come from Config.Roles, an interface the SQL layer implements
// from its catalog (StaticRoles serves a fixed set): for each role its
// SCRAM verifier in PostgreSQL's stored format (never a password), whether
// it may log in, and until when its password is valid. pgwire keeps no
// password and never sees one except in the cleartext method. Roles that
// are not readable yet (StartingRoles: a server listening while its store
// opens) make a password client wait in the handshake, while a trusted
// one is let in at once and its role is checked by the engine later.
//
// Every failed password looks the same: 28P01 "password authentication
// failed for user" whether the role exists or not, has a password or not,
// or the password has expired; for a role without a usable verifier the
// SCRAM exchange runs on a mock one whose salt is stable per name
// (AuthConfig.MockNonce), so not even the salt tells. Proofs and keys are
// compared in constant time. A failure is answered only after
// AuthConfig.FailureDelay (one second by default), slept by that
// connection's goroutine alone: a flood of guesses holds connection slots
// (bounding the guess rate by MaxConnections/FailureDelay) but no lock,
// and a wrong SCRAM proof costs the server two HMACs, so other sessions
// are not slowed (TestBruteForce measures it). Cleartext checks, which run
// PBKDF2, are rationed to half the cores. The client's answers during
// authentication are limited to 64 KiB, and a malformed SCRAM message is
// refused with PostgreSQL's own error (TestSASLPostgres compares them).
//
// # Queries
//
// A simple Query (simple.go) may hold several statements: each is
// described, executed and answered with RowDescription, DataRows and
// CommandComplete; the first error stops the rest. Several statements run
// as one implicit transaction, bracketed by Session.BeginBlock and
// EndBlock.
//
// The extended protocol (extended.go, portal.go, params.go) keeps prepared
// statements and portals per connection, with PostgreSQL's rules: Parse
// takes one statement (or none) and describes it at once; the unnamed
// statement and portal are replaced by the next Parse, Bind or simple
// query; Bind decodes parameters (text through the session's TextConfig,
// or binary) and fixes the result formats; a portal runs at its first
// Execute and, stopped by a row limit, answers PortalSuspended and keeps
// its Result open for the next Execute. Portals end with their transaction:
// they are closed at ReadyForQuery when the session is idle. After an error
// every message up to Sync is discarded.
//
// # Errors
//
// errorResponse (errors.go) is the one place where an error becomes an
// ErrorResponse: a *pgerr.Error in the chain gives code, message, detail,
// hint and position; anything else is reported as XX000 and logged. Errors
// pgwire raises itself (an unknown portal, a malformed parameter) are also
// passed to Session.Abort, so that an open transaction block fails just as
// it would after an engine error. A panic while serving a connection is
// recovered: the client gets FATAL XX000, its connection closes, and the
// server and every other session carry on.
//
// # Cancellation and shutdown
//
// The messages up to each ReadyForQuery run under one context. A
// CancelRequest with the right process ID and secret cancels it with cause
// pgerr.Canceled() (57014) while the session is working; one that arrives
// while the session waits for its client, even between the messages of a
// batch, does nothing, as in PostgreSQL. When Run's context ends the
// server stops accepting, cancels every connection's context with cause
// 57P01 "terminating connection due to administrator command", interrupts
// reads, sends that FATAL and waits for every connection to close.
//
// # Output
//
// Each connection's writer (writer.go) batches messages and flushes at
// ReadyForQuery, Flush and PortalSuspended, and whenever 32 KiB are
// pending, so a large result streams in steady chunks with bounded memory.
// DataRow messages are encoded straight into that buffer (datarow.go) with
// the value encoders of types, at no allocation per row. The writer is
// also the session's Notifier: a notice is sent at once, behind the rows
// already produced; a ParameterStatus change is sent just before the next
// ReadyForQuery, or at once when the connection is idle, as PostgreSQL
// does. Errors are flushed at once too, so a pipelining client learns of
// a failure without waiting for its Sync.
//
// A LiveResult (a SUBSCRIBE, a FETCH from one) is flushed whenever its
// next row is not ready, so that a change reaches the client as it
// happens; the flushes of all live results together are rationed
// (live.go), so that a hundred subscribers of a busy view take several
// changes a write. While a live result streams, the connection watches
// the socket (watch.go): a client that hangs up cancels the result at
// once, where a write would notice only at the second write after the
// close, hours later for an idle subscription.
//
// # Tests
//
// The golden scripts in testdata/scripts are protocol conversations, and
// TestScriptsPostgres replays them against a real PostgreSQL 15: the
// answers in the goldens are PostgreSQL's own, and the fake engine of the
// tests answers the same statements the same way.
package pgwire
