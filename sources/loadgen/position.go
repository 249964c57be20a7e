package loadgen

import (
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// Partition is the only partition of a load generator's progress: its
// position is the number of units (ticks or events) emitted so far, as 8
// big-endian bytes.
const Partition = "0"

// EncodePosition returns the progress position after n units.
func EncodePosition(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

// DecodePosition returns the number of units a progress position counts,
// failing with XX001 if p is not one.
func DecodePosition(p []byte) (int64, error) {
	if len(p) != 8 || int64(binary.BigEndian.Uint64(p)) < 0 {
		return 0, pgerr.New(pgerr.DataCorrupted, "invalid load generator position %q", hex.EncodeToString(p))
	}
	return int64(binary.BigEndian.Uint64(p)), nil
}

// decodePosition returns the number of units already emitted according to
// resume: zero on first start.
func decodePosition(resume map[string][]byte) (int64, error) {
	p, ok := resume[Partition]
	if !ok {
		return 0, nil
	}
	return DecodePosition(p)
}

// newBatch wraps one batch of changes that brings the position to pos.
func newBatch(changes [][]sources.Change, pos int64, at time.Time) *sources.Batch {
	return &sources.Batch{
		Changes:  changes,
		Progress: map[string][]byte{Partition: EncodePosition(pos)},
		Time:     at,
	}
}
