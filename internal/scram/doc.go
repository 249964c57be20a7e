// Package scram implements password authentication with SCRAM-SHA-256
// (RFC 5802, RFC 7677) as PostgreSQL does it: the verifier stored in place
// of a password, and the server's side of the exchange.
//
// # Verifiers
//
// A password is never kept. What is kept is PostgreSQL's verifier,
//
//	SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
//
// with base64 salt and keys: SaltedPassword is PBKDF2-HMAC-SHA-256 of the
// password (normalized with SASLprep, saslprep.go) over the salt, StoredKey
// is SHA-256(HMAC(SaltedPassword, "Client Key")) and ServerKey is
// HMAC(SaltedPassword, "Server Key"). The text is what pg_authid.rolpassword
// holds, so a verifier moves between streamdb and PostgreSQL unchanged
// (CREATE ROLE … PASSWORD 'SCRAM-SHA-256$…' takes it as is). The verifier
// lets the server check a client's proof and prove itself to the client,
// but not log in as the role: that needs ClientKey, which only the
// password gives.
//
// # The exchange
//
// Server (server.go) answers a client in two steps: the client-first
// message (channel-binding flag, user name, client nonce) gets the
// server-first message (the nonce extended with the server's, the salt and
// the iteration count); the client-final message (channel binding, nonce,
// proof) is checked and, when the proof is right, answered with the
// server's signature. Checking a proof costs two HMACs and a hash: the
// PBKDF2 iterations are the client's work, so a flood of wrong passwords
// costs the server little.
//
// Every message is parsed as PostgreSQL's auth-scram.c parses it, and a
// malformed one is refused with PostgreSQL's error, code and detail. A
// wrong proof is not an error here: Final reports it, and the caller
// answers 28P01 "password authentication failed for user …" as PostgreSQL
// does, without saying what was wrong.
//
// An exchange for a role that does not exist, or has no usable password,
// runs to its end on a mock verifier (Mock) and then fails like a wrong
// password, so that a client cannot tell the cases apart. The mock salt is
// derived from the user name and a secret nonce kept with the data, so the
// same name gets the same salt every time, as a real role would.
//
// # Channel binding
//
// Over TLS the server also offers SCRAM-SHA-256-PLUS with the
// tls-server-end-point binding (RFC 5929): the client mixes a hash of the
// server's certificate into its proof, so a man in the middle holding
// another certificate cannot relay the exchange. The flags follow
// PostgreSQL: 'n' (the client cannot bind) is accepted; 'y' (the client
// could but thinks the server cannot) is refused when the server offered
// binding; 'p' must name tls-server-end-point and come with
// SCRAM-SHA-256-PLUS.
package scram
