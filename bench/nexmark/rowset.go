package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// digest identifies a multiset of rows without holding it: the row count
// and the sum (mod 2^64) of a hash of each row's text. Equal multisets
// have equal digests whatever order the rows arrive in; unequal ones
// collide only by hash accident. Rows are read in the text format over the
// simple protocol, so streamdb's and PostgreSQL's results compare by
// exactly what a client would print.
type digest struct {
	Rows int64
	Sum  uint64
}

// rowSeed is shared by every digest of one harness run.
var rowSeed = maphash.MakeSeed()

// rowKey appends an unambiguous encoding of a text-format row: each value
// is a length (or the NULL marker) and its bytes.
func rowKey(dst []byte, vals [][]byte) []byte {
	for _, v := range vals {
		if v == nil {
			dst = append(dst, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// scanRows runs sql over the simple protocol and calls fn with each row's
// encoding (valid only during the call).
func scanRows(ctx context.Context, conn *pgx.Conn, sql string, fn func(key []byte)) error {
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return err
	}
	defer rows.Close()
	var key []byte
	for rows.Next() {
		key = rowKey(key[:0], rows.RawValues())
		fn(key)
	}
	return rows.Err()
}

// digestQuery runs sql and returns the digest of its result and how long
// reading it took.
func digestQuery(ctx context.Context, conn *pgx.Conn, sql string) (digest, time.Duration, error) {
	var d digest
	start := time.Now()
	err := scanRows(ctx, conn, sql, func(key []byte) {
		d.Rows++
		d.Sum += maphash.Bytes(rowSeed, key)
	})
	return d, time.Since(start), err
}

// diffQueries explains a digest mismatch: how many rows of a's result are
// missing from b's and the reverse, with one example of each, decoded.
func diffQueries(ctx context.Context, conn *pgx.Conn, a, b string) (string, error) {
	counts := make(map[string]int64)
	if err := scanRows(ctx, conn, a, func(key []byte) { counts[string(key)]++ }); err != nil {
		return "", err
	}
	if err := scanRows(ctx, conn, b, func(key []byte) { counts[string(key)]-- }); err != nil {
		return "", err
	}
	var onlyA, onlyB int64
	var exA, exB string
	for k, n := range counts {
		switch {
		case n > 0:
			onlyA += n
			if exA == "" {
				exA = decodeKey(k)
			}
		case n < 0:
			onlyB -= n
			if exB == "" {
				exB = decodeKey(k)
			}
		}
	}
	return fmt.Sprintf("%d rows only in the view (e.g. %s), %d only in the recomputation (e.g. %s)", onlyA, exA, onlyB, exB), nil
}

// decodeKey renders a rowKey encoding as (v1, v2, ...) for messages.
func decodeKey(k string) string {
	var parts []string
	for len(k) >= 4 {
		n := binary.BigEndian.Uint32([]byte(k[:4]))
		k = k[4:]
		if n == 0xffffffff {
			parts = append(parts, "NULL")
			continue
		}
		if int(n) > len(k) {
			break
		}
		parts = append(parts, k[:n])
		k = k[n:]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
