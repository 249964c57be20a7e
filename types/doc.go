// Package types is the leaf vocabulary of streamdb: SQL types with their
// PostgreSQL OIDs, the Datum value, rows, comparison and hashing, the text and
// binary wire encodings, the order-preserving key encoding used for state and
// Pebble keys, the compact value encoding used for stored rows, and casts.
//
// Every other package may import types; types imports nothing of ours except
// the error package pgerr, so that a conversion failure carries its
// SQLSTATE from the point of origin.
//
// # Values
//
// A Datum is a small struct, never an interface: the tick path evaluates
// expressions over rows of Datums without boxing a value per column. The zero
// Datum is SQL NULL. A Datum records only the representation family of its
// value; the full static type (typmod, array element type) travels beside the
// data in plans and row descriptions, as it does in PostgreSQL. Compare is
// PostgreSQL's btree order per family (C collation for strings, NaN above
// every number, jsonb's own order); Equal and Hash agree with it.
//
// A numeric is held either inline (NewNumericCoef: a coefficient that fits
// an int64 and an exponent, no allocation) or as an *apd.Decimal
// (NewNumeric: NaN, infinities, larger coefficients, negative zero). The
// two forms of one value are interchangeable: they compare, hash, encode
// and print alike, so code outside this package never needs to know which
// it holds (numeric_coef.go).
//
// # Three encodings, three purposes
//
// The key encoding (AppendKey, DecodeKey) is for ordering and equality:
// bytewise comparison of encodings equals Compare, values that compare equal
// encode identically, and each value carries a tag byte so that keys decode
// without a schema. It therefore drops what Compare ignores (numeric scale,
// char padding, the sign of float zero, the month/day split of intervals).
//
// The value encoding (AppendValue, AppendRow, DecodeRow) is for storage: it
// round-trips a Datum exactly and compactly (varints, no padding), and does
// not preserve order.
//
// The text and binary formats (AppendText, ParseText, AppendBinary,
// ParseBinary) are PostgreSQL's wire formats: output functions print exactly
// what PostgreSQL 15 prints under the session's DateStyle, TimeZone,
// IntervalStyle, extra_float_digits and bytea_output (TextConfig); input
// functions accept what PostgreSQL accepts, with its error codes and
// messages, and apply column modifiers as INSERT does (ApplyTypmod).
//
// # Fidelity to PostgreSQL
//
// Behaviour is pinned by golden files generated from a real PostgreSQL 15
// (testdata/gen_golden.sh): every input in testdata/cases and
// testdata/cases_cast.txt is run through the server's input, output, send and
// cast functions, and the tests compare streamdb's results line by line,
// errors included. Deliberate differences are listed in knownDeviations in
// golden_test.go: arrays have lower bounds of 1 (see ArrayValue), and
// timestamps end in the year 294247 because payloads count microseconds from
// 1970 in an int64 (PostgreSQL counts from 2000 and reaches 294276).
//
// Date/time input follows datetime.c closely (ParseDateTime's lexer,
// DecodeDateTime's field rules, DetermineTimeZoneOffset for times in DST
// gaps and overlaps) and uses the system's IANA zone data through package
// time. Zone abbreviations are a fixed subset of PostgreSQL's Default set.
// Casts follow pg_cast (CastContext) and the cast functions' rounding: floats
// to integers round half to even (rint), numerics half away from zero.
package types
