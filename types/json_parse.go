package types

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// ParseJSON parses JSON text with PostgreSQL's json grammar (RFC 8259:
// no leading zeros, no trailing commas, whitespace limited to space, tab,
// CR and LF) into a JSONValue in jsonb form: object keys sorted and
// de-duplicated (the last duplicate wins), numbers normalised as numeric.
// Errors are 22P02 "invalid input syntax for type json" with PostgreSQL's
// detail line, or 22P05 for \u0000, which jsonb cannot store.
func ParseJSON(s string) (JSONValue, error) { return parseJSON(s, true) }

// ValidateJSON checks that s is valid json input, as json_in does; unlike
// jsonb it accepts \u0000 escapes, since json keeps its text unchanged.
func ValidateJSON(s string) error {
	_, err := parseJSON(s, false)
	return err
}

type jsonParser struct {
	s     string
	pos   int
	jsonb bool
}

func parseJSON(s string, jsonb bool) (JSONValue, error) {
	p := jsonParser{s: s, jsonb: jsonb}
	v, err := p.value(0)
	if err != nil {
		return JSONValue{}, err
	}
	p.skipSpace()
	if p.pos < len(p.s) {
		return JSONValue{}, p.errExpected("end of input")
	}
	return v, nil
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack;
// PostgreSQL's limit is max_stack_depth, which allows a similar depth.
const maxJSONDepth = 6400

func jsonSyntax(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail(format, args...)
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func isJSONAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// token returns the text of the token at the current position for error
// details: a run of alphanumerics or a single character.
func (p *jsonParser) token() string {
	if p.pos >= len(p.s) {
		return ""
	}
	end := p.pos
	for end < len(p.s) && isJSONAlnum(p.s[end]) {
		end++
	}
	if end == p.pos {
		_, n := utf8.DecodeRuneInString(p.s[p.pos:])
		end += n
	}
	return p.s[p.pos:end]
}

func (p *jsonParser) errExpected(what string) error {
	if p.pos >= len(p.s) {
		return jsonSyntax("The input string ended unexpectedly.")
	}
	tok := p.token()
	c := p.s[p.pos]
	valid := strings.IndexByte(`{}[],:"-0123456789`, c) >= 0 || tok == "true" || tok == "false" || tok == "null"
	if !valid {
		return jsonSyntax("Token %q is invalid.", tok)
	}
	if c == '"' {
		tok = `"`
	}
	return jsonSyntax("Expected %s, but found \"%s\".", what, tok)
}

func (p *jsonParser) value(depth int) (JSONValue, error) {
	if depth > maxJSONDepth {
		return JSONValue{}, pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded")
	}
	p.skipSpace()
	if p.pos >= len(p.s) {
		return JSONValue{}, jsonSyntax("The input string ended unexpectedly.")
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return JSONValue{Kind: JSONString, Str: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case isJSONAlnum(c):
		tok := p.token()
		p.pos += len(tok)
		switch tok {
		case "true":
			return JSONValue{Kind: JSONBool, Bool: true}, nil
		case "false":
			return JSONValue{Kind: JSONBool}, nil
		case "null":
			return JSONValue{Kind: JSONNull}, nil
		}
		return JSONValue{}, jsonSyntax("Token %q is invalid.", tok)
	}
	return JSONValue{}, p.errExpected("JSON value")
}

func (p *jsonParser) array(depth int) (JSONValue, error) {
	p.pos++ // [
	v := JSONValue{Kind: JSONArray}
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return JSONValue{}, err
		}
		v.Elems = append(v.Elems, e)
		p.skipSpace()
		if p.pos >= len(p.s) {
			return JSONValue{}, jsonSyntax("The input string ended unexpectedly.")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return JSONValue{}, p.errExpected(`"," or "]"`)
		}
	}
}

func (p *jsonParser) object(depth int) (JSONValue, error) {
	p.pos++ // {
	v := JSONValue{Kind: JSONObject}
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return JSONValue{}, p.errExpected("string")
		}
		k, err := p.str()
		if err != nil {
			return JSONValue{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return JSONValue{}, p.errExpected(`":"`)
		}
		p.pos++
		e, err := p.value(depth + 1)
		if err != nil {
			return JSONValue{}, err
		}
		v.Pairs = append(v.Pairs, JSONPair{Key: k, Value: e})
		p.skipSpace()
		if p.pos >= len(p.s) {
			return JSONValue{}, jsonSyntax("The input string ended unexpectedly.")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.Pairs = uniqueJSONPairs(v.Pairs)
			return v, nil
		default:
			return JSONValue{}, p.errExpected(`"," or "}"`)
		}
	}
}

// uniqueJSONPairs sorts pairs into jsonb key order and keeps the last of
// each run of duplicate keys, as jsonb does.
func uniqueJSONPairs(pairs []JSONPair) []JSONPair {
	slices.SortStableFunc(pairs, func(a, b JSONPair) int { return compareJSONKeys(a.Key, b.Key) })
	out := pairs[:0]
	for i := range pairs {
		if i+1 < len(pairs) && pairs[i+1].Key == pairs[i].Key {
			continue
		}
		out = append(out, pairs[i])
	}
	return out
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// str parses a string literal at p.pos and returns its decoded value.
func (p *jsonParser) str() (string, error) {
	start := p.pos + 1
	i := start
	for i < len(p.s) && p.s[i] != '"' && p.s[i] != '\\' && p.s[i] >= 0x20 {
		i++
	}
	if i < len(p.s) && p.s[i] == '"' {
		p.pos = i + 1
		return p.s[start:i], nil
	}
	var b strings.Builder
	b.WriteString(p.s[start:i])
	for {
		if i >= len(p.s) {
			return "", jsonSyntax("Token %q is invalid.", p.s[p.pos:])
		}
		c := p.s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return b.String(), nil
		case c < 0x20:
			return "", jsonSyntax("Character with value 0x%02x must be escaped.", c)
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(p.s) {
			return "", jsonSyntax("The input string ended unexpectedly.")
		}
		switch e := p.s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n, err := p.unicodeEscape(i)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
			i += n
			continue
		default:
			_, n := utf8.DecodeRuneInString(p.s[i+1:])
			return "", jsonSyntax("Escape sequence \"\\%s\" is invalid.", p.s[i+1:i+1+n])
		}
		i += 2
	}
}

// unicodeEscape decodes \uXXXX (and a following low surrogate) at i,
// returning the rune and the number of bytes consumed.
func (p *jsonParser) unicodeEscape(i int) (rune, int, error) {
	hex4 := func(at int) (rune, bool) {
		if at+4 > len(p.s) {
			return 0, false
		}
		var r rune
		for k := 0; k < 4; k++ {
			h := hexVal(p.s[at+k])
			if h < 0 {
				return 0, false
			}
			r = r<<4 | rune(h)
		}
		return r, true
	}
	r, ok := hex4(i + 2)
	if !ok {
		return 0, 0, jsonSyntax(`"\u" must be followed by four hexadecimal digits.`)
	}
	switch {
	case r == 0 && p.jsonb:
		return 0, 0, pgerr.New(pgerr.UntranslatableCharacter, "unsupported Unicode escape sequence").WithDetail(`\u0000 cannot be converted to text.`)
	case utf16.IsSurrogate(r) && !p.jsonb:
		// json keeps its text and never decodes escapes, so it does not
		// check surrogate pairing.
		return utf8.RuneError, 6, nil
	case utf16.IsSurrogate(r) && r < 0xdc00:
		if i+8 <= len(p.s) && p.s[i+6] == '\\' && p.s[i+7] == 'u' {
			if lo, ok := hex4(i + 8); ok && lo >= 0xdc00 && lo <= 0xdfff {
				return utf16.DecodeRune(r, lo), 12, nil
			}
		}
		return 0, 0, jsonSyntax("Unicode high surrogate must not be followed by another high surrogate.")
	case utf16.IsSurrogate(r):
		return 0, 0, jsonSyntax("Unicode low surrogate must follow a high surrogate.")
	}
	return r, 6, nil
}

// number parses a JSON number and normalises it as numeric_in would.
func (p *jsonParser) number() (JSONValue, error) {
	start := p.pos
	i := p.pos
	digits := func() int {
		n := 0
		for i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	bad := false
	if p.s[i] == '-' {
		i++
	}
	switch {
	case i < len(p.s) && p.s[i] == '0':
		i++
	case digits() == 0:
		bad = true
	}
	if !bad && i < len(p.s) && p.s[i] == '.' {
		i++
		bad = digits() == 0
	}
	if !bad && i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		i++
		if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
			i++
		}
		bad = digits() == 0
	}
	for i < len(p.s) && isJSONAlnum(p.s[i]) {
		i++
		bad = true
	}
	if bad {
		end := i
		if end == start+1 && end < len(p.s) {
			_, n := utf8.DecodeRuneInString(p.s[end:])
			end += n
		}
		return JSONValue{}, jsonSyntax("Token %q is invalid.", p.s[start:end])
	}
	p.pos = i
	d, err := parseDecimalText(p.s[start:i])
	if err != nil {
		return JSONValue{}, err
	}
	return JSONValue{Kind: JSONNumber, Num: d}, nil
}

// parseDecimalText parses decimal text whose syntax the caller has
// checked and normalises it as numeric_in does.
func parseDecimalText(s string) (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		// The syntax was checked by the caller; apd rejects only
		// exponents beyond its range, which numeric cannot hold either.
		return nil, errNumericOverflow()
	}
	if err := normalizeNumeric(d); err != nil {
		return nil, err
	}
	return d, nil
}
