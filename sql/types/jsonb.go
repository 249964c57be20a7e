package types

import "strings"

// CompareJSONB orders canonical jsonb texts.
func CompareJSONB(a, b string) int { return strings.Compare(a, b) }
