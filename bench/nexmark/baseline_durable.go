package main

import (
	"os"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/sources/loadgen"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// durableBatch is how many rows the durable Go loop commits at a time.
const durableBatch = 10_000

// runDurableBaseline runs a Go loop's query over n events as the plain
// loop does, and appends every result row to a fresh Pebble store: the
// least a durable view of the query costs. It returns the wall time and
// the process's CPU time (Pebble's background work included) over the
// loop and the final flush.
func runDurableBaseline(query string, seed, n int64) (wall, cpu time.Duration, err error) {
	dir, err := os.MkdirTemp("", "nexmark-durable-*")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	u0 := rusage()
	start := time.Now()
	var (
		batch = db.NewBatch()
		rows  int
		id    uint64
		key   [8]byte
		val   []byte
		cerr  error
	)
	appendRow := func(row types.Row) {
		id++
		key = [8]byte{byte(id >> 56), byte(id >> 48), byte(id >> 40), byte(id >> 32), byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
		val = types.AppendRow(val[:0], row)
		batch.Put(1, key[:], val)
		if rows++; rows == durableBatch {
			if err := batch.CommitUnsynced(); err != nil && cerr == nil {
				cerr = err
			}
			batch, rows = db.NewBatch(), 0
		}
	}
	durableRows[query](seed, n, appendRow)
	if err := batch.CommitUnsynced(); err != nil && cerr == nil {
		cerr = err
	}
	if err := db.Flush(); err != nil && cerr == nil {
		cerr = err
	}
	return time.Since(start), rusage() - u0, cerr
}

// durableRows are the Go loops of goBaselines, giving each result row as
// the view holds it (q1's price a numeric of scale 3).
var durableRows = map[string]func(seed, n int64, emit func(types.Row)){
	"q0": func(seed, n int64, emit func(types.Row)) {
		loadgen.NexmarkEvents(seed, 0, n, func(kind int, row types.Row) {
			if kind == loadgen.NexmarkBid {
				emit(types.Row{row[0], row[1], row[2], row[5]})
			}
		})
	},
	"q1": func(seed, n int64, emit func(types.Row)) {
		loadgen.NexmarkEvents(seed, 0, n, func(kind int, row types.Row) {
			if kind == loadgen.NexmarkBid {
				emit(types.Row{row[0], row[1], types.NewNumericCoef(row[2].Int()*908, 3), row[5]})
			}
		})
	},
	"q2": func(seed, n int64, emit func(types.Row)) {
		loadgen.NexmarkEvents(seed, 0, n, func(kind int, row types.Row) {
			if kind == loadgen.NexmarkBid && row[0].Int()%123 == 0 {
				emit(types.Row{row[0], row[2]})
			}
		})
	},
}

// rusage returns the process's user and system time so far.
func rusage() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
