package parser

// tokenKind classifies a token the way PostgreSQL's scanner does; keywords
// are not a kind of their own because every keyword this grammar uses is
// matched in context against a tokIdent.
type tokenKind uint8

const (
	tokEOF       tokenKind = iota
	tokError               // the lexer failed here; parser.lexErr says why
	tokIdent               // unquoted word: keyword or identifier
	tokQIdent              // "quoted identifier"; val is its name
	tokString              // '…', E'…', N'…' or $$…$$; val is the decoded value
	tokBitString           // B'…' or X'…'
	tokInt                 // integer literal
	tokNumber              // numeric literal with a fraction or an exponent
	tokParam               // $n
	tokOp                  // operator or punctuation, including ( ) , ; . =
	tokUString             // U&'…', which streamdb statements do not accept
	tokUIdent              // U&"…", likewise
)

// token is one lexeme: its kind, its byte span in the source and, for quoted
// identifiers and strings, its decoded value. Unquoted words carry no value:
// they are compared with keywords case-insensitively in place and folded
// only when they become an Ident, so that lexing the first words of every
// statement to decide whether it is ours allocates nothing.
type token struct {
	kind       tokenKind
	start, end int
	val        string
}
