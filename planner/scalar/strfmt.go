package scalar

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// concat, concat_ws, format and the || operators print non-text
// arguments with their output functions, so they depend on session
// settings (DateStyle, TimeZone…) and are stable when they accept "any".

// textOf returns the text form of an argument of type t.
func textOf(ctx *EvalContext, d types.Datum, t types.Type) string {
	if t.Family.IsString() || t.Family == types.Unknown {
		return d.Str()
	}
	return datumText(d, t, ctx.textConfig())
}

// anyTextImpl wraps an implementation over the text forms of "any"
// arguments; params tells their types.
func concatFunc(withSep bool) *Func {
	f := &Func{Name: "concat", Params: ts(AnyT), Variadic: true, Ret: textT, Volatility: Stable}
	if withSep {
		f.Name, f.Params = "concat_ws", ts(textT, AnyT)
	}
	f.prepare = func(args []Expr) Impl {
		argT := argTypesOf(args)
		return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			var b strings.Builder
			sep, start := "", 0
			if withSep {
				if a[0].IsNull() {
					return types.Null, nil
				}
				sep, start = a[0].Str(), 1
			}
			first := true
			for i := start; i < len(a); i++ {
				if a[i].IsNull() {
					continue
				}
				if !first {
					b.WriteString(sep)
				}
				first = false
				b.WriteString(textOf(ctx, a[i], argT[i]))
			}
			return types.NewText(b.String()), nil
		}
	}
	f.Impl = func(*EvalContext, []types.Datum) (types.Datum, error) {
		return types.Null, internalf("%s called without preparation", f.Name)
	}
	return f
}

func argTypesOf(args []Expr) []types.Type {
	out := make([]types.Type, len(args))
	for i, a := range args {
		out[i] = a.Type()
	}
	return out
}

// formatImpl is format(fmt, args...) with %s, %I, %L and %%, optional
// argument positions (%2$s) and widths (%-10s, %*s).
func formatImpl(ctx *EvalContext, a []types.Datum, argT []types.Type) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	f := a[0].Str()
	var b strings.Builder
	next := 1
	tooFew := func() error { return pgerr.New(pgerr.InvalidParameterValue, "too few arguments for format()") }
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier").
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// [argpos$][flags][width]type
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		argPos := 0
		if j < len(f) && f[j] == '$' && j > i {
			argPos, _ = strconv.Atoi(f[i:j])
			if argPos == 0 {
				return types.Null, pgerr.New(pgerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
			}
			i = j + 1
		}
		left := false
		if i < len(f) && f[i] == '-' {
			left = true
			i++
		}
		width := 0
		if i < len(f) && f[i] == '*' {
			if next >= len(a) {
				return types.Null, tooFew()
			}
			if !a[next].IsNull() {
				width = int(a[next].Int())
			}
			next++
			i++
			if width < 0 {
				left, width = true, -width
			}
		} else {
			j = i
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			width, _ = strconv.Atoi(f[i:j])
			i = j
		}
		if i >= len(f) {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier").
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		idx := next
		if argPos > 0 {
			idx = argPos
		}
		if idx >= len(a) {
			return types.Null, tooFew()
		}
		next = idx + 1
		d := a[idx]
		var s string
		switch f[i] {
		case 's':
			if !d.IsNull() {
				s = textOf(ctx, d, argT[idx])
			}
		case 'I':
			if d.IsNull() {
				return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(textOf(ctx, d, argT[idx]))
		case 'L':
			if d.IsNull() {
				s = "NULL"
			} else {
				s = quoteLiteral(textOf(ctx, d, argT[idx]))
			}
		default:
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", f[i]).
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		pad := width - len([]rune(s))
		if pad > 0 && !left {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(s)
		if pad > 0 && left {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	return types.NewText(b.String()), nil
}

func formatFunc(variadic bool) *Func {
	f := &Func{Name: "format", Params: ts(textT), Ret: textT, Volatility: Stable}
	if variadic {
		f.Params, f.Variadic = ts(textT, AnyT), true
	}
	f.prepare = func(args []Expr) Impl {
		argT := argTypesOf(args)
		return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) { return formatImpl(ctx, a, argT) }
	}
	f.Impl = func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.Null, internalf("format called without preparation")
	}
	return f
}

// catFunc is text || text and, with the non-text side's type known at
// prepare time, anynonarray || text and text || anynonarray, which convert
// the other side with its cast to text (true || 'x' is 'truex').
func catFunc(l, r types.Type) *Func {
	f := &Func{Name: "||", Params: ts(l, r), Ret: textT, Strict: true}
	f.Impl = func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.NewText(a[0].Str() + a[1].Str()), nil
	}
	if l != textT || r != textT {
		f.Volatility = Stable
		f.prepare = func(args []Expr) Impl {
			lt, rt := args[0].Type(), args[1].Type()
			return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				l, err := castDatum(a[0], lt, textT, ctx.textConfig())
				if err != nil {
					return types.Null, err
				}
				r, err := castDatum(a[1], rt, textT, ctx.textConfig())
				if err != nil {
					return types.Null, err
				}
				return types.NewText(l.Str() + r.Str()), nil
			}
		}
	}
	return f
}

func init() {
	addFunc(concatFunc(false), concatFunc(true), formatFunc(false), formatFunc(true))
	addOp(catFunc(textT, textT), catFunc(AnyNonArray, textT), catFunc(textT, AnyNonArray))
}
