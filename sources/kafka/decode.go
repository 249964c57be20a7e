package kafka

import (
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// decoder turns one record key or value into a fixed number of columns.
// A decoder is used by one goroutine at a time and may keep scratch space
// between calls; the Datums it writes never alias b, which the Kafka
// client reuses.
type decoder interface {
	// decode fills dst (whose length is the decoder's width) from b.
	// An error means the record goes to the dead letters; dst is then
	// garbage.
	decode(dst []types.Datum, b []byte) error
}

// errInvalidUTF8 is PostgreSQL's error for the first bad byte of b.
func errInvalidUTF8(b []byte) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", b[i])
		}
		i += n
	}
	return nil
}

// bytesDecoder is FORMAT BYTES: the raw bytes as one bytea column.
type bytesDecoder struct{}

func (bytesDecoder) decode(dst []types.Datum, b []byte) error {
	dst[0] = types.NewBytea(b)
	return nil
}

// textDecoder is FORMAT TEXT: the bytes as UTF-8 text, read with the
// input function of the column's type (text unless a column list retypes
// it).
type textDecoder struct {
	typ types.Type
}

func (d textDecoder) decode(dst []types.Datum, b []byte) error {
	v, err := types.ParseText(string(b), d.typ, nil)
	if err != nil {
		return err
	}
	dst[0] = v
	return nil
}

// jsonbDecoder is FORMAT JSON without a column list: the whole document
// as one jsonb column.
type jsonbDecoder struct {
	canon canonicalizer
}

func (d *jsonbDecoder) decode(dst []types.Datum, b []byte) error {
	if !utf8.Valid(b) {
		return errInvalidUTF8(b)
	}
	s, err := d.canon.canonical(string(b))
	if err != nil {
		return err
	}
	dst[0] = types.NewString(types.JSONB, s)
	return nil
}
