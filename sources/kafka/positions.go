package kafka

import (
	"encoding/binary"
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
)

// A Kafka source's resume positions map each partition id, in decimal,
// to the next offset to read as 8 big-endian bytes. The engine stores them
// with the batch's data, so the offset and the rows it covers commit
// together.

func encodePosition(next int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(next))
}

// decodePositions reads resume positions and the topic's ID (zero when
// none is stored); a malformed one means the stored state is corrupt,
// which retrying cannot fix.
func decodePositions(resume map[string][]byte) (map[int32]int64, [16]byte, error) {
	var topicID [16]byte
	out := make(map[int32]int64, len(resume))
	for p, v := range resume {
		if p == stateTopicID {
			if len(v) != len(topicID) {
				return nil, topicID, pgerr.New(pgerr.DataCorrupted, "invalid kafka topic ID of %d bytes", len(v))
			}
			copy(topicID[:], v)
			continue
		}
		id, err := strconv.ParseInt(p, 10, 32)
		if err != nil || id < 0 || len(v) != 8 {
			return nil, topicID, pgerr.New(pgerr.DataCorrupted, "invalid kafka resume position for partition %q", p)
		}
		off := int64(binary.BigEndian.Uint64(v))
		if off < 0 {
			return nil, topicID, pgerr.New(pgerr.DataCorrupted, "invalid kafka resume offset %d for partition %q", off, p)
		}
		out[int32(id)] = off
	}
	return out, topicID, nil
}
