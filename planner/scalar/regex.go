package scalar

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// POSIX regular expressions (~ ~* !~ !~*, regexp_replace, regexp_match,
// substring(text, pattern), SIMILAR TO) run on Go's RE2 engine; see the
// package documentation for the differences from PostgreSQL's ARE flavour.
// A constant pattern is compiled once when the expression is compiled; a
// varying one is cached per call site, keyed by the last pattern seen.

// errRegex translates RE2's parse errors into PostgreSQL's wording where
// the two engines agree on the problem.
func errRegex(err error) error {
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
			msg = "parentheses () not balanced"
		case syntax.ErrMissingBracket:
			msg = "brackets [] not balanced"
		case syntax.ErrMissingRepeatArgument, syntax.ErrInvalidRepeatOp:
			msg = "quantifier operand invalid"
		case syntax.ErrInvalidRepeatSize:
			msg = "invalid repetition count(s)"
		case syntax.ErrInvalidCharRange:
			msg = "invalid character range"
		case syntax.ErrInvalidEscape, syntax.ErrTrailingBackslash:
			msg = "invalid escape \\ sequence"
		}
	}
	return pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
}

// regexFlags are the options of regexp_replace and friends.
type regexFlags struct {
	global   bool
	caseFold bool
	newline  bool
}

func parseRegexFlags(s string, allowGlobal bool, fn string) (regexFlags, error) {
	var f regexFlags
	for _, c := range s {
		switch c {
		case 'g':
			if !allowGlobal {
				return f, pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn).
					WithHint("Use the regexp_matches function instead.")
			}
			f.global = true
		case 'i':
			f.caseFold = true
		case 'c':
			f.caseFold = false
		case 'n', 'm':
			f.newline = true
		case 's', 'p', 'w', 'x', 'q', 'b', 'e':
		default:
			return f, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return f, nil
}

func compileRegex(pat string, f regexFlags) (*regexp.Regexp, error) {
	prefix := "(?s)"
	if f.caseFold {
		prefix = "(?is)"
	}
	if f.newline {
		prefix = strings.Replace(prefix, "s", "m", 1)
	}
	re, err := regexp.Compile(prefix + areToRE2(pat))
	if err != nil {
		return nil, errRegex(err)
	}
	return re, nil
}

// areToRE2 rewrites the escapes whose meaning differs between
// PostgreSQL's ARE syntax and RE2: \y and \Y (word boundary or not), \m
// and \M (start and end of a word, approximated by a word boundary), \Z
// (end of string) and \b, which in ARE is a backspace.
func areToRE2(pat string) string {
	if !strings.Contains(pat, `\`) {
		return pat
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] != '\\' || i+1 == len(pat) {
			b.WriteByte(pat[i])
			continue
		}
		i++
		switch pat[i] {
		case 'y', 'm', 'M':
			b.WriteString(`\b`)
		case 'Y':
			b.WriteString(`\B`)
		case 'Z':
			b.WriteString(`\z`)
		case 'b':
			b.WriteString(`\x08`)
		default:
			b.WriteByte('\\')
			b.WriteByte(pat[i])
		}
	}
	return b.String()
}

// regexCache remembers the last compiled pattern of one call site.
type regexCache struct {
	pat   string
	flags regexFlags
	re    *regexp.Regexp
}

func (c *regexCache) get(pat string, f regexFlags) (*regexp.Regexp, error) {
	if c.re != nil && c.pat == pat && c.flags == f {
		return c.re, nil
	}
	re, err := compileRegex(pat, f)
	if err != nil {
		return nil, err
	}
	c.pat, c.flags, c.re = pat, f, re
	return re, nil
}

// regexFunc builds a regex function whose pattern is args[1] and whose
// flags (when flagArg >= 0) are args[flagArg]; body gets the compiled
// expression. The returned prepare gives every call site its own cache.
func regexFunc(fixed regexFlags, flagArg int, fn string, allowGlobal bool,
	body func(re *regexp.Regexp, f regexFlags, a []types.Datum) (types.Datum, error)) (Impl, func([]Expr) Impl) {
	mk := func() Impl {
		var cache regexCache
		return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			f := fixed
			if flagArg >= 0 && flagArg < len(a) {
				var err error
				if f, err = parseRegexFlags(a[flagArg].Str(), allowGlobal, fn); err != nil {
					return types.Null, err
				}
				f.caseFold = f.caseFold || fixed.caseFold
			}
			re, err := cache.get(a[1].Str(), f)
			if err != nil {
				return types.Null, err
			}
			return body(re, f, a)
		}
	}
	return mk(), func([]Expr) Impl { return mk() }
}

// expandReplacement substitutes \1..\9 and \& in PostgreSQL's replacement
// syntax; \\ is a backslash.
func expandReplacement(dst []byte, repl, src string, m []int) []byte {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			dst = append(dst, c)
			continue
		}
		i++
		switch n := repl[i]; {
		case n >= '1' && n <= '9':
			g := int(n - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				dst = append(dst, src[m[2*g]:m[2*g+1]]...)
			}
		case n == '&':
			dst = append(dst, src[m[0]:m[1]]...)
		case n == '\\':
			dst = append(dst, '\\')
		default:
			dst = append(dst, '\\', n)
		}
	}
	return dst
}

func regexReplace(re *regexp.Regexp, f regexFlags, a []types.Datum) (types.Datum, error) {
	src, repl := a[0].Str(), a[2].Str()
	n := 1
	if f.global {
		n = -1
	}
	matches := re.FindAllStringSubmatchIndex(src, n)
	if len(matches) == 0 {
		return a[0], nil
	}
	var out []byte
	last := 0
	for _, m := range matches {
		out = append(out, src[last:m[0]]...)
		out = expandReplacement(out, repl, src, m)
		last = m[1]
	}
	out = append(out, src[last:]...)
	return types.NewText(string(out)), nil
}

// matchArray returns the captured groups of m as a text[] (the whole match
// when the pattern has no groups), unmatched groups as NULL.
func matchArray(src string, m []int) types.Datum {
	var elems []types.Datum
	if len(m) == 2 {
		elems = []types.Datum{types.NewText(src[m[0]:m[1]])}
	} else {
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] < 0 {
				elems = append(elems, types.Null)
			} else {
				elems = append(elems, types.NewText(src[m[2*g]:m[2*g+1]]))
			}
		}
	}
	return types.NewArray(&types.ArrayValue{Elem: textT, Elems: elems})
}

// similarToRegex translates a SIMILAR TO pattern into an anchored regular
// expression, as similar_to_escape does. esc is the escape character, 0
// for none.
func similarToRegex(pat string, esc rune) (string, error) {
	var b strings.Builder
	b.WriteString("^(?:")
	afterEsc, inBracket := false, false
	for _, r := range pat {
		switch {
		case afterEsc:
			if strings.ContainsRune(`.^$*+?()[]{}|\`, r) || r == '%' || r == '_' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
			afterEsc = false
		case esc != 0 && r == esc:
			afterEsc = true
		case inBracket:
			if r == ']' {
				inBracket = false
			}
			b.WriteRune(r)
		case r == '[':
			inBracket = true
			b.WriteRune(r)
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteByte('.')
		case r == '.' || r == '^' || r == '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	if afterEsc {
		return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	b.WriteString(")$")
	return b.String(), nil
}

func similarEscape(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	esc := '\\'
	if len(a) > 1 {
		if a[1].IsNull() {
			return types.Null, nil
		}
		rs := []rune(a[1].Str())
		switch len(rs) {
		case 0:
			esc = 0
		case 1:
			esc = rs[0]
		default:
			return types.Null, pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
	}
	s, err := similarToRegex(a[0].Str(), esc)
	if err != nil {
		return types.Null, err
	}
	return types.NewText(s), nil
}

func init() {
	for _, op := range []struct {
		name           string
		fold, negation bool
	}{{"~", false, false}, {"!~", false, true}, {"~*", true, false}, {"!~*", true, true}} {
		negate := op.negation
		impl, prep := regexFunc(regexFlags{caseFold: op.fold}, -1, "", false,
			func(re *regexp.Regexp, _ regexFlags, a []types.Datum) (types.Datum, error) {
				return types.NewBool(re.MatchString(a[0].Str()) != negate), nil
			})
		addOp(&Func{Name: op.name, Params: ts(textT, textT), Ret: boolT, Strict: true, Impl: impl, prepare: prep})
	}
	replImpl, replPrep := regexFunc(regexFlags{}, 3, "regexp_replace", true, regexReplace)
	matchImpl, matchPrep := regexFunc(regexFlags{}, 2, "regexp_match", false,
		func(re *regexp.Regexp, _ regexFlags, a []types.Datum) (types.Datum, error) {
			m := re.FindStringSubmatchIndex(a[0].Str())
			if m == nil {
				return types.Null, nil
			}
			return matchArray(a[0].Str(), m), nil
		})
	likeImpl, likePrep := regexFunc(regexFlags{}, 2, "regexp_like", false,
		func(re *regexp.Regexp, _ regexFlags, a []types.Datum) (types.Datum, error) {
			return types.NewBool(re.MatchString(a[0].Str())), nil
		})
	countImpl, countPrep := regexFunc(regexFlags{}, -1, "regexp_count", false,
		func(re *regexp.Regexp, _ regexFlags, a []types.Datum) (types.Datum, error) {
			return int4Of(len(re.FindAllStringIndex(a[0].Str(), -1))), nil
		})
	substrImpl, substrPrep := regexFunc(regexFlags{}, -1, "substring", false,
		func(re *regexp.Regexp, _ regexFlags, a []types.Datum) (types.Datum, error) {
			src := a[0].Str()
			m := re.FindStringSubmatchIndex(src)
			switch {
			case m == nil:
				return types.Null, nil
			case len(m) > 2:
				if m[2] < 0 {
					return types.Null, nil
				}
				return types.NewText(src[m[2]:m[3]]), nil
			}
			return types.NewText(src[m[0]:m[1]]), nil
		})
	textArr := types.ArrayOf(textT)
	addFunc(
		&Func{Name: "regexp_replace", Params: ts(textT, textT, textT), Ret: textT, Strict: true, Impl: replImpl, prepare: replPrep},
		&Func{Name: "regexp_replace", Params: ts(textT, textT, textT, textT), Ret: textT, Strict: true, Impl: replImpl, prepare: replPrep},
		&Func{Name: "regexp_match", Params: ts(textT, textT), Ret: textArr, Strict: true, Impl: matchImpl, prepare: matchPrep},
		&Func{Name: "regexp_match", Params: ts(textT, textT, textT), Ret: textArr, Strict: true, Impl: matchImpl, prepare: matchPrep},
		&Func{Name: "regexp_like", Params: ts(textT, textT), Ret: boolT, Strict: true, Impl: likeImpl, prepare: likePrep},
		&Func{Name: "regexp_like", Params: ts(textT, textT, textT), Ret: boolT, Strict: true, Impl: likeImpl, prepare: likePrep},
		&Func{Name: "regexp_count", Params: ts(textT, textT), Ret: int4T, Strict: true, Impl: countImpl, prepare: countPrep},
		&Func{Name: "substring", Params: ts(textT, textT), Ret: textT, Strict: true, Impl: substrImpl, prepare: substrPrep},
		strict("similar_to_escape", ts(textT), textT, similarEscape),
		&Func{Name: "similar_to_escape", Params: ts(textT, textT), Ret: textT, Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			return similarEscape(ctx, a)
		}},
	)
}
