package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ingestSeq numbers the table files Ingest writes, named ingestPrefix
// and numbers in the store's directory (Pebble links them in under its
// own names).
var ingestSeq atomic.Uint64

const ingestPrefix = "ingest-"

// removeIngestFiles removes the files a crash in the middle of an Ingest
// left behind in dir.
func removeIngestFiles(dir string) error {
	left, err := filepath.Glob(filepath.Join(dir, ingestPrefix+"*.sst"))
	if err != nil {
		return err
	}
	for _, f := range left {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("remove a file of an interrupted ingestion: %w", err)
		}
	}
	return nil
}

// Ingest adds rows of collection coll to the store as one table file
// instead of through a batch: n rows, row(i) returning the i-th key and
// value, keys strictly increasing. Written that way the rows skip the
// log, the memtable and its flush, and, when no stored key of the store
// lies within their range, every compaction: Pebble places the file in
// the last level. The rows are durable and visible to snapshots taken
// after Ingest returns; a snapshot taken before does not see them.
//
// Ingest syncs the file and Pebble's manifest, milliseconds of waiting
// for the disk, so it suits large runs of rows. It must not be mixed
// with a batch that touches the same keys and commits afterwards: the
// batch's writes, a range deletion too, would apply over the file's.
func (db *DB) Ingest(coll uint64, n int, row func(i int) (key, value []byte)) error {
	path := filepath.Join(db.dir, fmt.Sprintf("%s%d-%d.sst", ingestPrefix, os.Getpid(), ingestSeq.Add(1)))
	f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("ingest into the store: %w", err)
	}
	defer os.Remove(path)
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), db.opts.MakeWriterOptions(6, db.pdb.TableFormat()))
	p := collPrefix(coll)
	key := append([]byte(nil), p...)
	var prev []byte
	for i := range n {
		k, v := row(i)
		if i > 0 && bytes.Compare(k, prev) <= 0 {
			_ = w.Close()
			return fmt.Errorf("ingest into the store: key %x does not follow %x", k, prev)
		}
		prev = k
		key = append(key[:len(p)], k...)
		if err := w.Set(key, v); err != nil {
			_ = w.Close()
			return fmt.Errorf("ingest into the store: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("ingest into the store: %w", err)
	}
	if err := db.pdb.Ingest(context.Background(), []string{path}); err != nil {
		return fmt.Errorf("ingest into the store: %w", err)
	}
	return nil
}
