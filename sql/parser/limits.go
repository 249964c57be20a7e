package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// Limits on the text that reaches PostgreSQL's parser. pg_query's
// grammar builds a chain of binary operators (1+1+…+1, a||b||…, x::t::t,
// t JOIN t JOIN …, SELECT … UNION SELECT …) into a left-deep tree
// without using its own stack, and C code then recurses over the tree:
// 24,000 terms overflowed the thread's stack and killed the server with
// every session in it, and 5,000 already failed to decode (protobuf's
// recursion limit) with a misleading syntax error. PostgreSQL refuses
// such text with 54001 once its own recursion passes max_stack_depth:
// about 4,000 terms of a chain with its default of 2 MB. Nesting that the
// grammar does with its own stack (parentheses, nested function calls,
// CASE) ends at bison's limit with PostgreSQL's own "memory exhausted"
// syntax error, which pg_query reproduces.
//
// CheckLimits measures, from the tokens alone and in one pass, how deep
// the tree of each expression would be: every level of brackets that
// builds a node (a call, a subscript, an array, three for a subquery)
// and, at each level, the operators chained since the last separator (a
// comma, AND, OR, a clause keyword) and the joins and set operations
// chained since the statement began. It errs on the deep side: text
// beyond MaxExprDepth is refused with PostgreSQL's 54001 and hint, text
// PostgreSQL would refuse for its stack a few hundred terms later may
// be refused a little earlier. AND and OR do not count: PostgreSQL
// flattens their chains, and a 10,000-way OR parses.
//
// Array constructors nest their dimensions the same way
// (ARRAY[ARRAY[…]], ARRAY[[…]]); PostgreSQL refuses more than
// MaxArrayDims with 54000 when it evaluates them, and the binder's
// work doubled with each level, so the limit is checked here, before
// anything is built: brackets directly inside an array constructor, or
// inside parentheses or a subquery there, add a dimension; a function
// call's parentheses end the count.

const (
	// MaxExprDepth is the deepest estimated expression tree accepted.
	MaxExprDepth = 4096
	// MaxArrayDims is PostgreSQL's MAXDIM.
	MaxArrayDims = 6
)

// limitLevel is one open bracket of CheckLimits.
type limitLevel struct {
	// weight is what the bracket adds to the depth; chain counts the
	// operators at this level since the last separator, and joins the
	// joins and set operations of its statement.
	weight, chain, joins int
	// dims is the array dimensions open at this level: those of an
	// array constructor, carried through parentheses inside it.
	dims int
	// array is set for an array constructor's brackets.
	array bool
}

// CheckLimits refuses text whose expressions nest deeper than
// PostgreSQL's parser should see (54001), or whose array constructors
// have more than MaxArrayDims dimensions (54000). Text that does not lex
// passes: the parser reports its error.
func CheckLimits(text string) *pgerr.Error {
	l := lexer{src: text, raw: true}
	stack := []limitLevel{{}}
	depth := 0 // the sum of weight, chain and joins over stack
	var prev token
	opened := false // prev opened a parenthesis
	var lower [16]byte
	for {
		t, err := l.next()
		if err != nil || t.kind == tokEOF {
			return nil
		}
		top := &stack[len(stack)-1]
		var word []byte // lower case, when a keyword may be
		if t.kind == tokIdent && t.end-t.start <= len(lower) {
			word = lower[:t.end-t.start]
			for i := range word {
				c := text[t.start+i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				word[i] = c
			}
		}
		kw := kwNone
		if word != nil {
			kw = keywordKinds[string(word)]
		}
		if opened && kw == kwSubquery {
			// A subquery nests a statement in the expression.
			top.weight += 3
			depth += 3
		}
		opened = false
		switch {
		case t.kind == tokOp && (text[t.start] == '(' || text[t.start] == '['):
			lv := limitLevel{dims: top.dims}
			call := prev.kind == tokIdent || prev.kind == tokQIdent
			if text[t.start] == '(' {
				opened = true
				if call {
					lv.weight, lv.dims = 1, 0
				}
			} else {
				lv.weight = 1
				lv.array = call && strings.EqualFold(text[prev.start:prev.end], "array") ||
					top.array && prev.kind == tokOp && (text[prev.start:prev.end] == "[" || text[prev.start:prev.end] == ",")
				if lv.array {
					lv.dims++
				} else {
					lv.dims = 0
				}
				if lv.dims > MaxArrayDims {
					return pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", lv.dims, MaxArrayDims)
				}
			}
			stack = append(stack, lv)
			depth += lv.weight
		case t.kind == tokOp && (text[t.start] == ')' || text[t.start] == ']'):
			if len(stack) > 1 {
				depth -= top.weight + top.chain + top.joins
				stack = stack[:len(stack)-1]
			}
		case t.kind == tokOp && text[t.start] == ';':
			depth -= top.chain + top.joins
			top.chain, top.joins = 0, 0
		case t.kind == tokOp && (text[t.start] == ',' || text[t.start] == '.'):
			if text[t.start] == ',' {
				depth -= top.chain
				top.chain = 0
			}
		case t.kind == tokOp:
			top.chain++
			depth++
		case kw == kwChain:
			top.chain++
			depth++
		case kw == kwJoin:
			depth += 1 - top.chain
			top.chain = 0
			top.joins++
		case kw == kwSeparator || kw == kwSubquery:
			depth -= top.chain
			top.chain = 0
		}
		if depth > MaxExprDepth {
			return pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
				WithHint(`Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.`)
		}
		prev = t
	}
}

// limitKeyword is what a keyword does to CheckLimits' count.
type limitKeyword uint8

const (
	kwNone limitKeyword = iota
	// kwChain applies an operator to what precedes or follows it,
	// nesting it one level deeper.
	kwChain
	// kwJoin chains a statement's FROM items or set operations into a
	// left-deep tree.
	kwJoin
	// kwSeparator ends an expression: what follows starts a new one.
	kwSeparator
	// kwSubquery is a separator that starts a statement, a subquery's
	// after a parenthesis.
	kwSubquery
)

var keywordKinds = map[string]limitKeyword{
	"not": kwChain, "is": kwChain, "isnull": kwChain, "notnull": kwChain, "like": kwChain,
	"ilike": kwChain, "similar": kwChain, "between": kwChain, "in": kwChain, "collate": kwChain,
	"at": kwChain, "overlaps": kwChain, "operator": kwChain, "escape": kwChain,

	"join": kwJoin, "union": kwJoin, "intersect": kwJoin, "except": kwJoin,

	"select": kwSubquery, "values": kwSubquery, "with": kwSubquery, "table": kwSubquery,

	"from": kwSeparator, "where": kwSeparator, "group": kwSeparator, "having": kwSeparator,
	"window": kwSeparator, "order": kwSeparator, "limit": kwSeparator, "offset": kwSeparator,
	"fetch": kwSeparator, "returning": kwSeparator, "then": kwSeparator, "when": kwSeparator,
	"else": kwSeparator, "end": kwSeparator, "case": kwSeparator, "and": kwSeparator,
	"or": kwSeparator, "as": kwSeparator, "on": kwSeparator, "using": kwSeparator,
	"set": kwSeparator, "into": kwSeparator, "by": kwSeparator, "do": kwSeparator,
}
