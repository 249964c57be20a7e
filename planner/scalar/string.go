package scalar

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// String functions over text; varchar, char and name arguments reach them
// through the implicit casts to text (which strip char's padding). Lengths
// and positions count characters, not bytes.

var (
	textT  = types.TypeText
	int4T  = types.TypeInt4
	int8T  = types.TypeInt8
	boolT  = types.TypeBool
	byteaT = types.TypeBytea
)

func text1(f func(s string) string) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) { return types.NewText(f(a[0].Str())), nil }
}

func int4Of(n int) types.Datum { return types.NewInt4(int32(n)) }

func errNegativeSubstring() error {
	return pgerr.New("22011", "negative substring length not allowed")
}

// substr returns the characters from 1-based position start, count of them
// (all remaining when count < 0 is not given), as text_substring does for
// starts before 1.
func substr(s string, start int64, count int64, haveCount bool) (string, error) {
	if haveCount && count < 0 {
		return "", errNegativeSubstring()
	}
	end := int64(1) << 62
	if haveCount {
		end = start + count
		if count > 0 && end < start {
			end = int64(1) << 62
		}
	}
	if start < 1 {
		start = 1
	}
	if end <= start {
		return "", nil
	}
	pos := int64(1)
	from, to := len(s), len(s)
	for i := range s {
		if pos == start {
			from = i
		}
		if pos == end {
			to = i
			break
		}
		pos++
	}
	if from > to {
		return "", nil
	}
	return s[from:to], nil
}

func substrImpl(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	var count int64
	if len(a) > 2 {
		count = a[2].Int()
	}
	s, err := substr(a[0].Str(), a[1].Int(), count, len(a) > 2)
	if err != nil {
		return types.Null, err
	}
	return types.NewText(s), nil
}

// strpos returns the 1-based character position of sub in s, 0 if absent.
func strpos(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return 0
	}
	return utf8.RuneCountInString(s[:i]) + 1
}

func initcap(s string) string {
	var b strings.Builder
	prevAlnum := false
	for _, r := range s {
		if prevAlnum {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		prevAlnum = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// trimChars trims runes of set from the chosen ends of s.
func trimChars(s, set string, left, right bool) string {
	in := func(r rune) bool { return strings.ContainsRune(set, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

func trimImpl(left, right bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		set := " "
		if len(a) > 1 {
			set = a[1].Str()
		}
		return types.NewText(trimChars(a[0].Str(), set, left, right)), nil
	}
}

func leftRight(fromLeft bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		rs := []rune(a[0].Str())
		n := int(max(min(a[1].Int(), 1<<30), -(1 << 30)))
		if n < 0 {
			n = max(len(rs)+n, 0)
		}
		n = min(n, len(rs))
		if fromLeft {
			return types.NewText(string(rs[:n])), nil
		}
		return types.NewText(string(rs[len(rs)-n:])), nil
	}
}

// maxStringBytes bounds results built by repeat and the pad functions, as
// PostgreSQL's 1 GB varlena limit does.
const maxStringBytes = 1 << 30

func errStringTooLong() error {
	return pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
}

func repeatImpl(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	n := a[1].Int()
	s := a[0].Str()
	if n <= 0 || s == "" {
		return types.NewText(""), nil
	}
	if int64(len(s))*n > maxStringBytes {
		return types.Null, errStringTooLong()
	}
	return types.NewText(strings.Repeat(s, int(n))), nil
}

func padImpl(left bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		s, n, fill := a[0].Str(), a[1].Int(), " "
		if len(a) > 2 {
			fill = a[2].Str()
		}
		// As PostgreSQL, refuse lengths that could exceed 1 GB at the
		// encoding's widest character.
		if n*utf8.UTFMax >= maxStringBytes {
			return types.Null, errStringTooLong()
		}
		rs := []rune(s)
		if n <= 0 {
			return types.NewText(""), nil
		}
		if int64(len(rs)) >= n {
			return types.NewText(string(rs[:n])), nil
		}
		fr := []rune(fill)
		if len(fr) == 0 {
			return types.NewText(s), nil
		}
		pad := make([]rune, 0, n-int64(len(rs)))
		for i := 0; int64(len(pad)) < n-int64(len(rs)); i++ {
			pad = append(pad, fr[i%len(fr)])
		}
		if left {
			return types.NewText(string(pad) + s), nil
		}
		return types.NewText(s + string(pad)), nil
	}
}

func reverse(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

func splitPart(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	s, sep, n := a[0].Str(), a[1].Str(), a[2].Int()
	if n == 0 {
		return types.Null, pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	var parts []string
	if sep == "" {
		parts = []string{s}
		if s == "" {
			parts = nil
		}
	} else {
		parts = strings.Split(s, sep)
	}
	if n < 0 {
		n = int64(len(parts)) + n + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return types.NewText(""), nil
	}
	return types.NewText(parts[n-1]), nil
}

func translate(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	from, to := []rune(a[1].Str()), []rune(a[2].Str())
	var b strings.Builder
	for _, r := range a[0].Str() {
		i := -1
		for j, f := range from {
			if f == r {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(to):
			b.WriteRune(to[i])
		}
	}
	return types.NewText(b.String()), nil
}

func chr(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	c := a[0].Int()
	switch {
	case c == 0:
		return types.Null, pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case c < 0:
		return types.Null, pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
	case c > unicode.MaxRune:
		return types.Null, pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
	case c >= 0xD800 && c <= 0xDFFF:
		return types.Null, pgerr.New(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", c)
	}
	return types.NewText(string(rune(c))), nil
}

func ascii(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	r, _ := utf8.DecodeRuneInString(a[0].Str())
	if a[0].Str() == "" {
		r = 0
	}
	return int4Of(int(r)), nil
}

func init() {
	lengthImpl := func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return int4Of(utf8.RuneCountInString(a[0].Str())), nil
	}
	octets := func(_ *EvalContext, a []types.Datum) (types.Datum, error) { return int4Of(len(a[0].Str())), nil }
	bpcharLen := func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return int4Of(utf8.RuneCountInString(strings.TrimRight(a[0].Str(), " "))), nil
	}
	for _, n := range []string{"length", "char_length", "character_length"} {
		addFunc(strict(n, ts(textT), int4T, lengthImpl), strict(n, ts(types.TypeChar), int4T, bpcharLen))
	}
	addFunc(
		strict("length", ts(byteaT), int4T, octets),
		strict("octet_length", ts(textT), int4T, octets),
		strict("octet_length", ts(byteaT), int4T, octets),
		strict("octet_length", ts(types.TypeChar), int4T, octets),
		strict("bit_length", ts(textT), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return int4Of(8 * len(a[0].Str())), nil
		}),
		strict("lower", ts(textT), textT, text1(strings.ToLower)),
		strict("upper", ts(textT), textT, text1(strings.ToUpper)),
		strict("initcap", ts(textT), textT, text1(initcap)),
		strict("reverse", ts(textT), textT, text1(reverse)),
		strict("substr", ts(textT, int4T), textT, substrImpl),
		strict("substr", ts(textT, int4T, int4T), textT, substrImpl),
		strict("substring", ts(textT, int4T), textT, substrImpl),
		strict("substring", ts(textT, int4T, int4T), textT, substrImpl),
		strict("strpos", ts(textT, textT), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return int4Of(strpos(a[0].Str(), a[1].Str())), nil
		}),
		strict("position", ts(textT, textT), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return int4Of(strpos(a[0].Str(), a[1].Str())), nil
		}),
		strict("replace", ts(textT, textT, textT), textT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[1].Str() == "" {
				return a[0], nil
			}
			return types.NewText(strings.ReplaceAll(a[0].Str(), a[1].Str(), a[2].Str())), nil
		}),
		strict("btrim", ts(textT), textT, trimImpl(true, true)),
		strict("btrim", ts(textT, textT), textT, trimImpl(true, true)),
		strict("ltrim", ts(textT), textT, trimImpl(true, false)),
		strict("ltrim", ts(textT, textT), textT, trimImpl(true, false)),
		strict("rtrim", ts(textT), textT, trimImpl(false, true)),
		strict("rtrim", ts(textT, textT), textT, trimImpl(false, true)),
		strict("split_part", ts(textT, textT, int4T), textT, splitPart),
		strict("left", ts(textT, int4T), textT, leftRight(true)),
		strict("right", ts(textT, int4T), textT, leftRight(false)),
		strict("repeat", ts(textT, int4T), textT, repeatImpl),
		strict("lpad", ts(textT, int4T), textT, padImpl(true)),
		strict("lpad", ts(textT, int4T, textT), textT, padImpl(true)),
		strict("rpad", ts(textT, int4T), textT, padImpl(false)),
		strict("rpad", ts(textT, int4T, textT), textT, padImpl(false)),
		strict("ascii", ts(textT), int4T, ascii),
		strict("chr", ts(int4T), textT, chr),
		strict("starts_with", ts(textT, textT), boolT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return types.NewBool(strings.HasPrefix(a[0].Str(), a[1].Str())), nil
		}),
		strict("translate", ts(textT, textT, textT), textT, translate),
		strict("quote_ident", ts(textT), textT, text1(quoteIdent)),
		strict("quote_literal", ts(textT), textT, text1(quoteLiteral)),
		&Func{Name: "quote_literal", Params: ts(AnyElement), Ret: textT, Strict: true, Volatility: Stable,
			Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				return types.NewText(quoteLiteral(textOf(ctx, a[0], types.Type{Family: a[0].Kind(), Mod: -1}))), nil
			}},
		&Func{Name: "quote_nullable", Params: ts(textT), Ret: textT, Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.NewText("NULL"), nil
			}
			return types.NewText(quoteLiteral(a[0].Str())), nil
		}},
		strict("to_hex", ts(int4T), textT, toHex(32)),
		strict("to_hex", ts(int8T), textT, toHex(64)),
	)
	addOp(strict("^@", ts(textT, textT), boolT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.NewBool(strings.HasPrefix(a[0].Str(), a[1].Str())), nil
	}))
}

func toHex(width uint) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		v := uint64(a[0].Int())
		if width == 32 {
			v = uint64(uint32(a[0].Int()))
		}
		const digits = "0123456789abcdef"
		var buf [16]byte
		i := len(buf)
		for {
			i--
			buf[i] = digits[v&15]
			v >>= 4
			if v == 0 {
				break
			}
		}
		return types.NewText(string(buf[i:])), nil
	}
}

// quoteIdent quotes an identifier when PostgreSQL would: anything but a
// lower-case identifier, or a reserved word.
func quoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !reservedWords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reservedWords are the keywords quote_ident must quote: every one that
// is not unreserved (PostgreSQL 15's pg_get_keywords() with catcode R, T
// or C). Column-name keywords such as time and timestamp are among them:
// Grafana's column picker relies on quote_ident('time') being "time".
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation
	column concurrently constraint create cross current_catalog current_date current_role current_schema current_time
	current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign freeze from
	full grant group having ilike in initially inner intersect into is isnull join lateral leading left like limit localtime
	localtimestamp natural not notnull null offset on only or order outer overlaps placing primary references returning
	right select session_user similar some symmetric table tablesample then to trailing true union unique user using
	variadic verbose when where window with
	between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping inout int integer
	interval least national nchar none normalize nullif numeric out overlay position precision real row setof smallint
	substring time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
	xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		reservedWords[w] = true
	}
}

// overlay is overlay(s placing r from start [for count]): s with count
// characters from start replaced by r (count defaults to r's length).
func overlay(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	s, r, start := a[0].Str(), a[1].Str(), a[2].Int()
	count := int64(utf8.RuneCountInString(r))
	if len(a) > 3 {
		count = a[3].Int()
	}
	if start < 1 {
		return types.Null, errNegativeSubstring()
	}
	head, err := substr(s, 1, start-1, true)
	if err != nil {
		return types.Null, err
	}
	tail, err := substr(s, start+count, 0, false)
	if err != nil {
		return types.Null, err
	}
	return types.NewText(head + r + tail), nil
}

func init() {
	addFunc(
		strict("overlay", ts(textT, textT, int4T), textT, overlay),
		strict("overlay", ts(textT, textT, int4T, int4T), textT, overlay),
	)
}
