package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

const (
	prefixCatalog  = 'c'
	prefixData     = 'd'
	prefixHeader   = 'h'
	prefixMeta     = 'm'
	prefixPosition = 'p'
	prefixState    = 's'
)

// DB is the durable store. Reads may run concurrently with one writer; all
// writes go through Batch.Commit.
type DB struct {
	pdb *pebble.DB
	log *slog.Logger
	// dir and opts are the store's directory and Pebble's options, for
	// the table files Ingest writes.
	dir  string
	opts *pebble.Options
	// rangeDels counts the range deletions committed since the last
	// flush they asked for (see noteRangeDels).
	rangeDels atomic.Int64
}

// Options configure Open.
type Options struct {
	Logger *slog.Logger
	// CacheSize is Pebble's block cache size in bytes; 0 picks a default.
	CacheSize int64
	// MaxOpenFiles bounds the files Pebble keeps open (its table cache);
	// 0 keeps Pebble's default. The server sets it from the process's
	// file limit so that clients cannot take the descriptors storage
	// needs, nor storage those of clients.
	MaxOpenFiles int
	// opened is called, if set, once Pebble has opened and before
	// compactions may run: tests look at what the opening did.
	opened func(*pebble.DB)
}

// Open opens or creates the store in dir.
func Open(dir string, o Options) (*DB, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	// A tick commits one batch, several MB when a source runs at
	// saturation. Pebble turns a batch of half the memtable size or more
	// into a memtable of its own that is flushed at once; with the 4 MB
	// default every such tick became an L0 file and the compactions
	// behind them cost more CPU than the ingestion. 32 MB memtables keep
	// ticks on the ordinary write path and flush in large files, and
	// bound what a restart after a crash replays from the log before it
	// serves: Pebble's Open replays the log into memtables and flushes
	// them, 0.1 s for the 14 to 37 MB kill -9 left under load in
	// bench/restart (64 MB took a second more under load, measured while
	// Open also waited for a compaction, below).
	//
	// Views persist their state in the same batches, so that a view over
	// a source writes about as many bytes again as the source; most of
	// them are written once and never changed (a join's arranged rows, a
	// view's output). Pebble's cost is then mostly compactions rewriting
	// them level after level: L0 files of 16 MB, compacted from 8 of them
	// on, into a base level of 512 MB, made Nexmark q20's ingestion with
	// its state 20% cheaper per event than the defaults (2 MB files, 4,
	// 64 MB), at the price of more files for a read to merge.
	//
	// Compactions wait until the store has opened (compactionGate): after
	// a crash Pebble's Open waited for the compaction its flush of the log
	// started, which took as long as the levels made it (0.5 to 4.8 s
	// over 1M to 10M Nexmark events, against 0.1 to 0.3 s without).
	opts := &pebble.Options{Logger: pebbleLogger{log}, MemTableSize: 32 << 20,
		L0CompactionThreshold: 8, L0StopWritesThreshold: 24, LBaseMaxBytes: 512 << 20}
	opts.TargetFileSizes[0] = 16 << 20
	gate := newCompactionGate()
	opts.Experimental.CompactionScheduler = gate
	if log.Enabled(context.Background(), slog.LevelDebug) {
		el := pebble.MakeLoggingEventListener(pebbleLogger{log})
		opts.EventListener = &el
	}
	if o.MaxOpenFiles > 0 {
		opts.MaxOpenFiles = o.MaxOpenFiles
	}
	if o.CacheSize > 0 {
		c := pebble.NewCache(o.CacheSize)
		defer c.Unref()
		opts.Cache = c
	}
	if err := removeIngestFiles(dir); err != nil {
		return nil, err
	}
	start := time.Now()
	pdb, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if o.opened != nil {
		o.opened(pdb)
	}
	gate.release()
	m := pdb.Metrics()
	log.Info("store opened", "elapsed", time.Since(start).Round(time.Millisecond),
		"l0_files", m.Levels[0].TablesCount, "l0_sublevels", m.Levels[0].Sublevels,
		"compaction_debt_mb", m.Compact.EstimatedDebt>>20)
	opts.EnsureDefaults() // Open used a copy
	return &DB{pdb: pdb, log: log, dir: dir, opts: opts}, nil
}

// Close flushes and closes the store.
func (db *DB) Close() error { return db.pdb.Close() }

// Catalog calls fn for every catalog entry in id order.
func (db *DB) Catalog(fn func(id uint64, data []byte) error) error {
	return db.scanPrefix([]byte{prefixCatalog}, func(k, v []byte) error {
		if len(k) != 9 {
			return fmt.Errorf("corrupt catalog key %x", k)
		}
		return fn(binary.BigEndian.Uint64(k[1:]), v)
	})
}

// Scan calls fn for every row of collection coll in key order. key and
// value are only valid during the call.
func (db *DB) Scan(coll uint64, fn func(key, value []byte) error) error {
	p := collPrefix(coll)
	return db.scanPrefix(p, func(k, v []byte) error { return fn(k[len(p):], v) })
}

// ScanRange calls fn for every row of collection coll whose key lies in
// [start, end), in key order; a nil end is unbounded. The scan reads one
// consistent state of the store. key and value are only valid during the
// call; fn stops the scan by returning ErrStop, which ScanRange does not
// return.
func (db *DB) ScanRange(coll uint64, start, end []byte, fn func(key, value []byte) error) error {
	p := collPrefix(coll)
	lo := append(slices.Clip(p), start...)
	hi := prefixEnd(p)
	if end != nil {
		hi = append(slices.Clip(p), end...)
	}
	err := db.scanBounds(lo, hi, func(k, v []byte) error { return fn(k[len(p):], v) })
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// Size estimates the bytes collection coll takes on disk: its share of
// the store's files (what is still only in the memtable is not counted).
func (db *DB) Size(coll uint64) (uint64, error) {
	p := collPrefix(coll)
	return db.pdb.EstimateDiskUsage(p, prefixEnd(p))
}

// ErrStop ends a ScanRange early.
var ErrStop = errors.New("stop scan")

// Get returns a copy of the value stored under key in collection coll.
func (db *DB) Get(coll uint64, key []byte) ([]byte, bool, error) {
	return db.get(append(collPrefix(coll), key...))
}

// get returns a copy of the value stored under the store key k.
func (db *DB) get(k []byte) ([]byte, bool, error) { return getCopy(db.pdb, k) }

// getCopy returns a copy of the value r holds under the store key k:
// Pebble's own is valid only until its closer is closed.
func getCopy(r pebble.Reader, k []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// LastKey returns a copy of the greatest key of collection coll, without
// reading the others: how recovery finds where an append-only collection
// it does not load ends.
func (db *DB) LastKey(coll uint64) ([]byte, bool, error) {
	p := collPrefix(coll)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return nil, false, err
	}
	var key []byte
	ok := it.Last()
	if ok {
		key = append([]byte(nil), it.Key()[len(p):]...)
	}
	if err := it.Error(); err != nil {
		it.Close()
		return nil, false, err
	}
	return key, ok, it.Close()
}

// Meta returns the metadata value stored under name.
func (db *DB) Meta(name string) ([]byte, bool, error) { return db.get(metaKey(name)) }

// Positions calls fn for every stored resume position of source.
func (db *DB) Positions(source uint64, fn func(part string, pos []byte) error) error {
	p := posPrefix(source)
	return db.scanPrefix(p, func(k, v []byte) error { return fn(string(k[len(p):]), v) })
}

func (db *DB) scanPrefix(prefix []byte, fn func(k, v []byte) error) error {
	return db.scanBounds(prefix, prefixEnd(prefix), fn)
}

func (db *DB) scanBounds(lo, hi []byte, fn func(k, v []byte) error) error {
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

func collPrefix(coll uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixData}, coll)
}

func posPrefix(source uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixPosition}, source)
}

func metaKey(name string) []byte { return append([]byte{prefixMeta}, name...) }

// prefixEnd returns the smallest key greater than every key with prefix.
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// pebbleLogger routes Pebble's own messages to slog at debug level, except
// errors. At debug level Pebble also tells its flushes and compactions,
// and what its Open replayed from the log.
type pebbleLogger struct{ log *slog.Logger }

func (l pebbleLogger) Infof(format string, args ...any) {
	if l.log.Enabled(context.Background(), slog.LevelDebug) {
		l.log.Debug("pebble", "msg", fmt.Sprintf(format, args...))
	}
}

func (l pebbleLogger) Errorf(format string, args ...any) {
	l.log.Error("pebble", "msg", fmt.Sprintf(format, args...))
}

func (l pebbleLogger) Fatalf(format string, args ...any) {
	l.log.Error("pebble fatal", "msg", fmt.Sprintf(format, args...))
	panic(fmt.Sprintf(format, args...))
}

// Flush writes the memtable out to the store's files.
func (db *DB) Flush() error { return db.pdb.Flush() }

// rangeDelsPerFlush is how many range deletions the memtable may collect
// before the store flushes it.
const rangeDelsPerFlush = 256

// noteRangeDels counts n committed range deletions and, once they are
// rangeDelsPerFlush, starts a flush of the memtable. Pebble fragments a
// memtable's range deletions anew for every iterator it opens after one
// was added: with the deletions of thousands of dropped views and
// collections waiting in a memtable (they take few bytes, so it fills
// slowly), every read paid for all of them, and a server that created
// and dropped views by the thousand slowed down quadratically. Flushed,
// they are fragmented once per table file.
func (db *DB) noteRangeDels(n int) {
	if db.rangeDels.Add(int64(n)) < rangeDelsPerFlush {
		return
	}
	db.rangeDels.Store(0)
	if _, err := db.pdb.AsyncFlush(); err != nil {
		db.log.Warn("flush of range deletions failed", "err", err)
	}
}
