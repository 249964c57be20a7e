package scalar

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Binary-string functions: md5 and the sha2 family, encode/decode in the
// hex, base64 and escape formats.

func md5Impl(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	sum := md5.Sum([]byte(a[0].Str()))
	return types.NewText(hex.EncodeToString(sum[:])), nil
}

func shaImpl(f func([]byte) []byte) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.NewBytea(f([]byte(a[0].Str()))), nil
	}
}

// encodeBase64 wraps lines at 76 characters like PostgreSQL's encoder.
func encodeBase64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 76 {
		out.WriteString(s[:76])
		out.WriteByte('\n')
		s = s[76:]
	}
	out.WriteString(s)
	return out.String()
}

// encodeEscape is the escape format: backslash doubled, zero bytes and
// bytes with the high bit set as \ooo.
func encodeEscape(b []byte) string {
	var out strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			out.WriteString(`\\`)
		case c == 0 || c >= 0x80:
			out.WriteByte('\\')
			out.WriteByte('0' + c>>6)
			out.WriteByte('0' + c>>3&7)
			out.WriteByte('0' + c&7)
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

func errEncoding(name string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

func encodeImpl(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	b := []byte(a[0].Str())
	switch strings.ToLower(a[1].Str()) {
	case "hex":
		return types.NewText(hex.EncodeToString(b)), nil
	case "base64":
		return types.NewText(encodeBase64(b)), nil
	case "escape":
		return types.NewText(encodeEscape(b)), nil
	}
	return types.Null, errEncoding(a[1].Str())
}

func decodeImpl(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	s := a[0].Str()
	switch strings.ToLower(a[1].Str()) {
	case "hex":
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		if len(s)%2 == 1 {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			bad := s[len(s)-1:]
			if e, ok := err.(hex.InvalidByteError); ok {
				bad = string(rune(e))
			}
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", bad)
		}
		return types.NewBytea(b), nil
	case "base64":
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence").
				WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
		}
		return types.NewBytea(b), nil
	case "escape":
		var out []byte
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' {
				out = append(out, s[i])
				continue
			}
			switch {
			case i+1 < len(s) && s[i+1] == '\\':
				out = append(out, '\\')
				i++
			case i+3 < len(s) && isOct(s[i+1]) && isOct(s[i+2]) && isOct(s[i+3]) && s[i+1] <= '3':
				out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
				i += 3
			default:
				return types.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
			}
		}
		return types.NewBytea(out), nil
	}
	return types.Null, errEncoding(a[1].Str())
}

func isOct(c byte) bool { return c >= '0' && c <= '7' }

func init() {
	addFunc(
		strict("md5", ts(textT), textT, md5Impl),
		strict("md5", ts(byteaT), textT, md5Impl),
		strict("sha224", ts(byteaT), byteaT, shaImpl(func(b []byte) []byte { s := sha256.Sum224(b); return s[:] })),
		strict("sha256", ts(byteaT), byteaT, shaImpl(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] })),
		strict("sha384", ts(byteaT), byteaT, shaImpl(func(b []byte) []byte { s := sha512.Sum384(b); return s[:] })),
		strict("sha512", ts(byteaT), byteaT, shaImpl(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] })),
		strict("encode", ts(byteaT, textT), textT, encodeImpl),
		strict("decode", ts(textT, textT), byteaT, decodeImpl),
	)
	addOp(strict("||", ts(byteaT, byteaT), byteaT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.NewString(types.Bytea, a[0].Str()+a[1].Str()), nil
	}))
}
