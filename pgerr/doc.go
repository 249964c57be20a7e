// Package pgerr is streamdb's one error type: a PostgreSQL error with its
// SQLSTATE, message, detail, hint and statement position. Errors are created
// with the right code where they originate and travel wrapped (fmt.Errorf
// with %w) to the single place in pgwire that turns them into an
// ErrorResponse. An error that is not a *Error reaches the client as XX000
// (internal_error) and is logged.
//
// Messages follow PostgreSQL's wording: lower case, no trailing period,
// quoted identifiers (relation "t" does not exist).
package pgerr
