package scalar

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// LIKE and ILIKE are the operators ~~, !~~, ~~* and !~~* over text with
// backslash as the escape character; "LIKE p ESCAPE e" is bound as
// like_escape(p, e), which rewrites the pattern to use backslash. Matching
// is PostgreSQL's MatchText ported to Go strings: byte comparisons for
// literals, whole UTF-8 characters for _, and a search at each % that only
// recurses where the next literal matches, so it allocates nothing. Like
// PostgreSQL, a trailing escape character is an error only if matching
// reaches it. A constant pattern is analysed once: patterns without
// wildcards, or with % only at the ends, use plain string comparisons.

func errLikeEscape() error {
	return pgerr.New(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
}

type likeResult int8

const (
	likeFalse likeResult = iota
	likeTrue
	likeAbort // no later start position can match either
)

func nextChar(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// matchLike is MatchText: does t match pattern p?
func matchLike(t, p string) (likeResult, error) {
	if p == "%" {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errLikeEscape()
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			p = p[1:]
			for len(p) > 0 {
				if p[0] == '%' {
					p = p[1:]
				} else if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t = t[nextChar(t):]
					p = p[1:]
				} else {
					break
				}
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			first := p[0]
			if first == '\\' {
				if len(p) < 2 {
					return likeFalse, errLikeEscape()
				}
				first = p[1]
			}
			for len(t) > 0 {
				if t[0] == first {
					r, err := matchLike(t, p)
					if err != nil || r != likeFalse {
						return r, err
					}
				}
				t = t[nextChar(t):]
			}
			return likeAbort, nil
		case '_':
			t = t[nextChar(t):]
			p = p[1:]
			continue
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

func like(t, p string, caseFold bool) (bool, error) {
	if caseFold {
		t, p = strings.ToLower(t), strings.ToLower(p)
	}
	r, err := matchLike(t, p)
	return r == likeTrue, err
}

// likeShape classifies a constant pattern for the fast paths: a literal
// with optional leading and trailing %. ok is false when the pattern has
// other wildcards or escapes.
func likeShape(p string) (lit string, lead, trail, ok bool) {
	lead = strings.HasPrefix(p, "%")
	trail = len(p) > 1 && strings.HasSuffix(p, "%")
	lit = strings.TrimSuffix(strings.TrimPrefix(p, "%"), "%")
	if p == "%" {
		return "", true, true, true
	}
	return lit, lead, trail, !strings.ContainsAny(lit, `%_\`)
}

func likeImpl(caseFold, negate bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		m, err := like(a[0].Str(), a[1].Str(), caseFold)
		if err != nil {
			return types.Null, err
		}
		return types.NewBool(m != negate), nil
	}
}

// likePrepare specialises a constant pattern without escapes or _ into a
// string comparison.
func likePrepare(caseFold, negate bool) func(args []Expr) Impl {
	return func(args []Expr) Impl {
		c, ok := args[1].(*Const)
		if !ok || c.Val.IsNull() || caseFold {
			return nil
		}
		lit, lead, trail, ok := likeShape(c.Val.Str())
		if !ok {
			return nil
		}
		var test func(s string) bool
		switch {
		case lead && trail:
			test = func(s string) bool { return strings.Contains(s, lit) }
		case lead:
			test = func(s string) bool { return strings.HasSuffix(s, lit) }
		case trail:
			test = func(s string) bool { return strings.HasPrefix(s, lit) }
		default:
			test = func(s string) bool { return s == lit }
		}
		return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return types.NewBool(test(a[0].Str()) != negate), nil
		}
	}
}

// likeEscape is like_escape(pattern, escape): the pattern rewritten to
// use backslash as its escape character.
func likeEscape(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	pat, esc := a[0].Str(), a[1].Str()
	if utf8.RuneCountInString(esc) > 1 {
		return types.Null, pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	if esc == `\` {
		return a[0], nil
	}
	var b strings.Builder
	escR, _ := utf8.DecodeRuneInString(esc)
	afterEsc := false
	for _, r := range pat {
		switch {
		case afterEsc:
			if r == '\\' {
				b.WriteString(`\\`)
			} else {
				b.WriteByte('\\')
				b.WriteRune(r)
			}
			afterEsc = false
		case esc != "" && r == escR:
			afterEsc = true
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	if afterEsc {
		return types.Null, errLikeEscape()
	}
	return types.NewText(b.String()), nil
}

func init() {
	for _, op := range []struct {
		name           string
		fold, negation bool
	}{{"~~", false, false}, {"!~~", false, true}, {"~~*", true, false}, {"!~~*", true, true}} {
		addOp(&Func{Name: op.name, Params: ts(textT, textT), Ret: boolT, Strict: true,
			Impl: likeImpl(op.fold, op.negation), prepare: likePrepare(op.fold, op.negation)})
	}
	addOp(&Func{Name: "~~", Params: ts(byteaT, byteaT), Ret: boolT, Strict: true,
		Impl: likeImpl(false, false), prepare: likePrepare(false, false)})
	addFunc(strict("like_escape", ts(textT, textT), textT, likeEscape))
}
