package types

import "strings"

// dtFieldType classifies a token of date/time input, as ParseDateTime in
// PostgreSQL's datetime.c does.
type dtFieldType uint8

const (
	dtNumber  dtFieldType = iota // 123, 1.5, 20240115
	dtString                     // jan, pst, am, bc, day
	dtDate                       // 2024-01-15, 1/2/03, jan-08-1999, america/new_york
	dtTime                       // 12:34:56.789
	dtTZ                         // signed: +05:30, -8, -1.5, -1-2
	dtSpecial                    // signed word: -infinity
)

type dtField struct {
	typ dtFieldType
	val string // lower-cased
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isAlnum(c) }

// dtKeywords are the words that ParseDateTime looks up before deciding
// that an alphabetic run followed by a digit starts a zone name.
var dtKeywords = map[string]bool{
	"j": true, "jd": true, "julian": true, "t": true, "am": true, "pm": true, "ad": true, "bc": true,
	"epoch": true, "infinity": true, "allballs": true, "z": true, "zulu": true, "on": true, "at": true,
}

// lexDateTime splits date/time input into typed fields, appended to
// fields. ok is false on characters that cannot start a field.
func lexDateTime(s string, fields []dtField) ([]dtField, bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isSpace(c):
			i++
			continue
		case isDigit(c):
			start := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			typ := dtNumber
			switch {
			case i < len(s) && s[i] == ':':
				typ = dtTime
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				i++
				if i < len(s) && isDigit(s[i]) {
					if delim != '.' {
						typ = dtDate
					}
					for i < len(s) && isDigit(s[i]) {
						i++
					}
					if i < len(s) && s[i] == delim {
						typ = dtDate
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							i++
						}
					}
				} else {
					typ = dtDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						i++
					}
				}
			}
			fields = append(fields, dtField{typ, strings.ToLower(s[start:i])})
			continue
		case c == '.':
			start := i
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			fields = append(fields, dtField{dtNumber, s[start:i]})
			continue
		case isAlpha(c):
			start := i
			for i < len(s) && isAlpha(s[i]) {
				i++
			}
			typ := dtString
			isDate := false
			if i < len(s) {
				switch n := s[i]; {
				case n == '-' || n == '/' || n == '.':
					isDate = true
				case n == '+' || isDigit(n):
					isDate = !dtKeywords[strings.ToLower(s[start:i])]
				}
			}
			if isDate {
				typ = dtDate
				for i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || isAlnum(s[i])) {
					i++
				}
			}
			fields = append(fields, dtField{typ, strings.ToLower(s[start:i])})
			continue
		case c == '+' || c == '-':
			sign := c
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			start := i
			switch {
			case i < len(s) && isDigit(s[i]):
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					i++
				}
				fields = append(fields, dtField{dtTZ, string(sign) + s[start:i]})
			case i < len(s) && isAlpha(s[i]):
				for i < len(s) && isAlpha(s[i]) {
					i++
				}
				fields = append(fields, dtField{dtSpecial, string(sign) + strings.ToLower(s[start:i])})
			default:
				return nil, false
			}
			continue
		case isPunct(c):
			i++
			continue
		}
		return nil, false
	}
	return fields, true
}
