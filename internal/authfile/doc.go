// Package authfile keeps what authentication needs in the data directory
// until the catalog holds roles: the bootstrap superuser with its password
// verifier, and the nonce that mock SCRAM exchanges derive their salts
// from. Both live in <data-dir>/auth.json (mode 0600), written once at
// first start, atomically and synced, and read at every start after.
//
// # First start
//
// As initdb does, the first start creates the superuser streamdb. Its
// password is STREAMDB_PASSWORD when that is set; otherwise one is
// generated and written to <data-dir>/initial-password (mode 0600), and
// the log names that file, once. Only the password's SCRAM-SHA-256
// verifier is kept in auth.json, never the password. Later starts read
// auth.json and ignore STREAMDB_PASSWORD (saying so); to set a new
// password before roles can be altered in SQL, stop the server, remove
// auth.json and start again with STREAMDB_PASSWORD.
//
// # Moving into the catalog
//
// The file's roles use pg_authid's column names (rolname, rolsuper,
// rolcanlogin, rolpassword, the last a verifier in PostgreSQL's format),
// so that the catalog can take them over as they are: on the first start
// with roles in the catalog, insert each role of Read's File that the
// catalog lacks, commit, and then remove auth.json; a crash in between
// leaves the file, and the next start skips the roles already present.
// The mock nonce moves with them, to the store's metadata: it must not
// change, or the salts shown for unknown names would (see
// pgwire.AuthConfig.MockNonce).
package authfile
