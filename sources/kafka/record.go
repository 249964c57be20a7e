package kafka

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

// recordDecoder applies a source's layout and envelope to records, adding
// their changes to a batch. It owns the decoders' scratch space and so
// serves one goroutine.
type recordDecoder struct {
	l        *layout
	envelope Envelope
	debezium *debeziumDecoder
	buf      []byte
}

func newRecordDecoder(cfg *Config) (*recordDecoder, error) {
	l, err := buildLayout(cfg)
	if err != nil {
		return nil, err
	}
	r := &recordDecoder{l: l, envelope: cfg.Envelope}
	if cfg.Envelope == EnvelopeDebezium {
		r.debezium = &debeziumDecoder{inner: l.valueDec.(stringDecoder)}
	}
	return r, nil
}

// add decodes rec into b. A record that fails to decode returns the
// error and adds nothing; the caller makes it a dead letter.
func (r *recordDecoder) add(b *batchBuilder, rec *kgo.Record) error {
	l := r.l
	var key []types.Datum
	if l.keyDec != nil && (l.keyAt >= 0 || l.keyMerged != nil) {
		if rec.Key == nil {
			if r.envelope != EnvelopeNone {
				return pgerr.New(pgerr.NotNullViolation, "record with NULL key in %s source", r.envelope)
			}
		} else {
			key = b.alloc(l.keyWidth)
			if err := r.decodeKey(key, rec.Key); err != nil {
				return fmt.Errorf("decoding key: %w", err)
			}
		}
	}

	var row types.Row
	switch r.envelope {
	case EnvelopeNone:
		if rec.Value == nil {
			return nil // a tombstone means nothing to an append-only source
		}
		row = b.alloc(len(l.columns))
		if err := l.valueDec.decode(row[l.valueAt:l.valueAt+l.valueWidth], rec.Value); err != nil {
			return fmt.Errorf("decoding value: %w", err)
		}
	case EnvelopeUpsert:
		if rec.Value == nil {
			b.changes = append(b.changes, sources.Change{Key: key})
			return nil
		}
		row = b.alloc(len(l.columns))
		if err := l.valueDec.decode(row[l.valueAt:l.valueAt+l.valueWidth], rec.Value); err != nil {
			return fmt.Errorf("decoding value: %w", err)
		}
	case EnvelopeDebezium:
		row = b.alloc(len(l.columns))
		action, err := r.debezium.decode(row[l.valueAt:l.valueAt+l.valueWidth], rec.Value)
		if err != nil {
			return fmt.Errorf("decoding value: %w", err)
		}
		switch action {
		case debeziumSkip:
			return nil
		case debeziumDelete:
			b.changes = append(b.changes, sources.Change{Key: key})
			return nil
		}
		for i, col := range l.keyMerged {
			row[col] = key[i]
		}
	}
	if l.keyAt >= 0 {
		copy(row[l.keyAt:], key)
	}
	if err := r.addMeta(row, rec); err != nil {
		return err
	}
	if r.envelope == EnvelopeNone {
		b.changes = append(b.changes, sources.Change{Row: row, Diff: 1})
	} else {
		b.changes = append(b.changes, sources.Change{Row: row, Key: key})
	}
	return nil
}

func (r *recordDecoder) decodeKey(dst []types.Datum, b []byte) error {
	if r.envelope == EnvelopeDebezium {
		if sd, ok := r.l.keyDec.(stringDecoder); ok {
			if !utf8.Valid(b) {
				return errInvalidUTF8(b)
			}
			return sd.decodeString(dst, unwrapKey(string(b)))
		}
	}
	return r.l.keyDec.decode(dst, b)
}

// addMeta fills the INCLUDE columns other than the key.
func (r *recordDecoder) addMeta(row types.Row, rec *kgo.Record) error {
	for _, m := range r.l.meta {
		switch m.opt.Kind {
		case IncludePartition:
			row[m.at] = types.NewInt4(rec.Partition)
		case IncludeOffset:
			row[m.at] = types.NewInt8(rec.Offset)
		case IncludeTimestamp:
			row[m.at] = types.NewTimestamp(rec.Timestamp.UnixMicro())
		case IncludeHeaders:
			r.buf = appendHeadersJSONB(r.buf[:0], rec.Headers)
			row[m.at] = types.NewString(types.JSONB, string(r.buf))
		case IncludeHeader:
			v, err := headerValue(rec.Headers, m.opt)
			if err != nil {
				return fmt.Errorf("decoding header %q: %w", m.opt.Header, err)
			}
			row[m.at] = v
		}
	}
	return nil
}

// appendHeadersJSONB appends the headers as canonical jsonb: an array of
// {"key": k, "value": v} objects in record order, v being the value as a
// string when it is UTF-8 text jsonb can hold, its bytea hex text
// ("\\x…") otherwise, and null for a null value. (Materialize exposes a
// list of (key text, value bytea) records; streamdb has no record type.)
func appendHeadersJSONB(dst []byte, hs []kgo.RecordHeader) []byte {
	dst = append(dst, '[')
	for i, h := range hs {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, `{"key": `...)
		dst = types.AppendJSONString(dst, h.Key)
		dst = append(dst, `, "value": `...)
		switch {
		case h.Value == nil:
			dst = append(dst, "null"...)
		case utf8.Valid(h.Value) && bytes.IndexByte(h.Value, 0) < 0:
			dst = types.AppendJSONString(dst, string(h.Value))
		default:
			dst = types.AppendJSONString(dst, types.FormatText(types.NewBytea(h.Value), types.TypeBytea, nil))
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// headerValue is INCLUDE HEADER: the last value of the header, NULL when
// absent or null.
func headerValue(hs []kgo.RecordHeader, opt IncludeOpt) (types.Datum, error) {
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].Key != opt.Header {
			continue
		}
		if hs[i].Value == nil {
			return types.Null, nil
		}
		if opt.Bytes {
			return types.NewBytea(hs[i].Value), nil
		}
		return types.ParseText(string(hs[i].Value), types.TypeText, nil)
	}
	return types.Null, nil
}
