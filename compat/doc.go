// Package compat proves that the tools people already use work with
// streamdb unchanged. Its tests drive real clients against a real server
// over TCP: psql 15 (catalog backslash commands and \copy, compared with
// golden files), pgx v5 (simple and extended protocol, binary results,
// batches, CopyFrom), lib/pq through database/sql, and the queries
// Grafana's PostgreSQL data source sends, through the same driver. Each
// client connects, creates tables, writes with parameters, reads every
// supported type back, checks SQLSTATEs of errors, and cancels a running
// statement.
//
// Every server here asks its clients for SCRAM-SHA-256 as it asks clients
// on other hosts under the default --auth local-trust (startServer makes
// the loopback clients remote), so every client connects with the role
// streamdb's password, offered SCRAM-SHA-256-PLUS over TLS. Each client
// also checks that a wrong password gets 28P01, and TestLocalTrust that
// loopback clients need none when loopback is local.
//
// The clients that need another runtime — psycopg 3 (Python), the
// PostgreSQL JDBC driver (Java) and node-postgres (JavaScript) — are small
// programs under clients/, run by tests behind the "compat" build tag
// (make compat) because they compile or install before they run. Each
// program prints one line per check; the Go test fails on any line that
// does not start with "ok". They skip when their runtime is missing.
//
// The README's "Point Grafana at streamdb" runs here too
// (TestReadmeGrafana), so the documented dashboard query keeps working.
//
// Golden files are regenerated with go test ./compat -update; review is
// the diff.
package compat
