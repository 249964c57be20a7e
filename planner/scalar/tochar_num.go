package scalar

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// to_char for numbers with the common template patterns: 9 (digit,
// blank when insignificant), 0 (digit, zero-filled), . and D (decimal
// point), , and G (group separator), S, MI, PL, SG and PR (sign
// placement), FM (no padding, no trailing fractional zeros for 9) and
// literal or "quoted" text. Without a sign pattern a sign position
// precedes the number and the sign floats next to its first significant
// character; values too wide for the template print as #.

type numTemplate struct {
	items     []numItem
	intDigits int
	fracDigit int
	fm        bool
	sign      string // "", "S", "MI", "PL", "SG", "PR"
	signFirst bool   // the sign pattern precedes the digits
}

type numItem struct {
	kind byte // '9', '0', '.', ',', 's' (sign pattern), 't' (TH suffix), 'l' (literal)
	text string
}

func parseNumTemplate(f string) numTemplate {
	var t numTemplate
	afterPoint := false
	for i := 0; i < len(f); {
		rest := f[i:]
		switch {
		case strings.HasPrefix(rest, "FM"):
			t.fm = true
			i += 2
		case rest[0] == '9' || rest[0] == '0':
			t.items = append(t.items, numItem{kind: rest[0]})
			if afterPoint {
				t.fracDigit++
			} else {
				t.intDigits++
			}
			i++
		case rest[0] == '.' || rest[0] == 'D':
			if afterPoint {
				t.items = append(t.items, numItem{kind: 'l', text: "."})
			} else {
				t.items = append(t.items, numItem{kind: '.'})
				afterPoint = true
			}
			i++
		case rest[0] == ',' || rest[0] == 'G':
			t.items = append(t.items, numItem{kind: ','})
			i++
		case strings.HasPrefix(rest, "MI") || strings.HasPrefix(rest, "PL") || strings.HasPrefix(rest, "SG") || strings.HasPrefix(rest, "PR"):
			t.sign = rest[:2]
			t.signFirst = t.intDigits == 0 && !afterPoint
			t.items = append(t.items, numItem{kind: 's'})
			i += 2
		case rest[0] == 'S':
			t.sign = "S"
			t.signFirst = t.intDigits == 0 && !afterPoint
			t.items = append(t.items, numItem{kind: 's'})
			i++
		case strings.HasPrefix(rest, "TH") || strings.HasPrefix(rest, "th"):
			t.items = append(t.items, numItem{kind: 't', text: rest[:2]})
			i += 2
		case rest[0] == '"':
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				end = len(rest) - 1
			}
			t.items = append(t.items, numItem{kind: 'l', text: rest[1 : 1+end]})
			i += end + 2
		default:
			t.items = append(t.items, numItem{kind: 'l', text: rest[:1]})
			i++
		}
	}
	return t
}

// format renders digits: the absolute value's integer and fraction
// digits (the fraction already rounded to the template's width).
func (t *numTemplate) format(intStr, fracStr string, neg bool) string {
	overflow := len(intStr) > t.intDigits
	if intStr == "0" {
		intStr = ""
	}
	var b strings.Builder
	started, marked := false, false
	pos := 0 // integer digit position
	fi := 0  // fraction digit position
	lead := t.intDigits - len(intStr)
	for _, it := range t.items {
		if !marked && strings.IndexByte("90.,", it.kind) >= 0 {
			// The number starts here: the floating sign's slot.
			b.WriteByte('\x01')
			marked = true
		}
		switch it.kind {
		case '9', '0':
			if fi > 0 || pos >= t.intDigits {
				// Fraction digit.
				c := byte('0')
				if fi < len(fracStr) {
					c = fracStr[fi]
				}
				if overflow {
					c = '#'
				}
				b.WriteByte(c)
				fi++
				continue
			}
			d := pos - lead
			pos++
			switch {
			case overflow:
				b.WriteByte('#')
			case d >= 0:
				b.WriteByte(intStr[d])
				started = true
			case it.kind == '0' || pos == t.intDigits && t.fracDigit == 0 && intStr == "":
				b.WriteByte('0')
				started = true
			case !t.fm:
				b.WriteByte(' ')
			}
		case '.':
			if t.fracDigit > 0 {
				b.WriteByte('.')
			}
			pos = t.intDigits
		case 't':
			suf := ordinalSuffix(intStr)
			if it.text == "TH" {
				suf = strings.ToUpper(suf)
			}
			b.WriteString(suf)
		case ',':
			switch {
			case started || overflow:
				b.WriteByte(',')
			case !t.fm:
				b.WriteByte(' ')
			}
		case 's':
			b.WriteByte(0)
		case 'l':
			b.WriteString(it.text)
		}
	}
	out := b.String()
	if t.fm && t.fracDigit > 0 {
		out = t.trimFraction(out)
	}
	// The sign pattern's own position.
	out = strings.Replace(out, "\x00", t.anchoredSign(neg), 1)
	head, body, _ := strings.Cut(out, "\x01")
	if t.sign == "PR" {
		if neg {
			return head + "<" + body + ">"
		}
		return head + " " + body + " "
	}
	if !t.floats() {
		return head + body
	}
	s := " "
	switch {
	case neg:
		s = "-"
	case t.sign == "S":
		s = "+"
	case t.fm:
		s = ""
	}
	if t.fm {
		return head + s + body
	}
	// The sign floats right, over the blanks before the first
	// significant character.
	body = " " + body
	i := 0
	for i < len(body) && body[i] == ' ' {
		i++
	}
	return head + body[:i-1] + s + body[i:]
}

// floats reports whether the sign takes a slot before the number and
// floats to its first significant character: without a sign pattern, with
// a leading S, and with PL (which also prints + at its own position).
func (t *numTemplate) floats() bool {
	return t.sign == "" || t.sign == "PL" || t.sign == "S" && t.signFirst
}

// anchoredSign is what the sign pattern prints at its own position.
func (t *numTemplate) anchoredSign(neg bool) string {
	switch {
	case t.sign == "PL":
		if neg {
			return " "
		}
		return "+"
	case t.sign == "S" && t.signFirst, t.sign == "PR":
		return ""
	case t.sign == "MI":
		if neg {
			return "-"
		}
		return " "
	}
	if neg {
		return "-"
	}
	return "+"
}

// trimFraction drops trailing zeros of 9 positions after the point in
// fill mode.
func (t *numTemplate) trimFraction(out string) string {
	p := strings.LastIndexByte(out, '.')
	if p < 0 {
		return out
	}
	// Fraction positions written with 0 must stay.
	keep := 0
	n := 0
	seenPoint := false
	for _, it := range t.items {
		if it.kind == '.' {
			seenPoint = true
			continue
		}
		if seenPoint && (it.kind == '9' || it.kind == '0') {
			n++
			if it.kind == '0' {
				keep = n
			}
		}
	}
	end := p + 1 + t.fracDigit
	if end > len(out) {
		return out
	}
	frac := out[p+1 : end]
	for len(frac) > keep && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	return out[:p+1] + frac + out[end:]
}

// numToChar formats a decimal with a template.
func numToChar(d *apd.Decimal, f string) string {
	t := parseNumTemplate(f)
	if d.Form != apd.Finite {
		return t.nonFinite(d)
	}
	var r apd.Decimal
	r.Set(d)
	roundScale(&r, t.fracDigit)
	neg := r.Negative && !r.IsZero()
	r.Negative = false
	s := r.Text('f')
	intStr, fracStr, _ := strings.Cut(s, ".")
	return t.format(intStr, fracStr, neg)
}

// nonFinite prints NaN and infinities: the word right-aligned in the
// integer positions when they are wide enough, else #s.
func (t *numTemplate) nonFinite(d *apd.Decimal) string {
	word := "NaN"
	if d.Form == apd.Infinite {
		word = "Infinity"
		if d.Negative {
			word = "-Infinity"
		}
	}
	if t.intDigits < len(word) {
		return t.format(strings.Repeat("9", t.intDigits+1), "", false)
	}
	if t.fm {
		return word
	}
	return strings.Repeat(" ", t.intDigits+1-len(word)) + word
}

func toCharNum(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	var d *apd.Decimal
	var scratch apd.Decimal
	switch a[0].Kind() {
	case types.Numeric:
		d = a[0].DecimalTo(&scratch)
	case types.Float4, types.Float8:
		v, _, err := apd.NewFromString(strconv.FormatFloat(a[0].Float(), 'f', -1, 64))
		if err != nil {
			d = &apd.Decimal{Form: apd.NaN}
		} else {
			d = v
		}
	default:
		d = apd.New(a[0].Int(), 0)
	}
	return types.NewText(numToChar(d, a[1].Str())), nil
}

func init() {
	for _, t := range []types.Type{int4T, int8T, types.TypeFloat4, f8, numT} {
		addFunc(strict("to_char", ts(t, textT), textT, toCharNum))
	}
}
