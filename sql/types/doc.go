// Package types is the leaf vocabulary of streamdb: SQL types with their
// PostgreSQL OIDs, the Datum value, rows, comparison and hashing, the text and
// binary wire encodings, the order-preserving key encoding used for state and
// Pebble keys, the compact value encoding used for stored rows, and casts.
//
// Every other package may import types; types imports nothing of ours except
// the error package sql/pgerr, so that a conversion failure carries its
// SQLSTATE from the point of origin.
//
// A Datum is a small struct, never an interface: the tick path evaluates
// expressions over rows of Datums without boxing a value per column. The zero
// Datum is SQL NULL. A Datum records only the representation family of its
// value; the full static type (typmod, array element type) travels beside the
// data in plans and row descriptions, as it does in PostgreSQL.
package types
