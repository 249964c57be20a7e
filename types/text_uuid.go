package types

// appendUUID prints the canonical lower-case 8-4-4-4-12 form.
func appendUUID(dst []byte, u string) []byte {
	for i := 0; i < len(u); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[u[i]>>4], hexDigits[u[i]&0xf])
	}
	return dst
}

// parseUUID accepts what uuid_in does: 32 hex digits in either case,
// optionally in braces, with a hyphen allowed after any group of four
// digits.
func parseUUID(s string) (Datum, error) {
	t := s
	braces := len(t) > 0 && t[0] == '{'
	if braces {
		t = t[1:]
	}
	var u [16]byte
	n := 0
	for i := 0; i < 32; i++ {
		if len(t) == 0 {
			return Null, errSyntax(TypeUUID, s)
		}
		h := hexVal(t[0])
		if h < 0 {
			return Null, errSyntax(TypeUUID, s)
		}
		u[n/2] |= byte(h) << (4 * (1 - n%2))
		n++
		t = t[1:]
		if i%4 == 3 && i != 31 && len(t) > 0 && t[0] == '-' {
			t = t[1:]
		}
	}
	if braces {
		if len(t) == 0 || t[0] != '}' {
			return Null, errSyntax(TypeUUID, s)
		}
		t = t[1:]
	}
	if t != "" {
		return Null, errSyntax(TypeUUID, s)
	}
	return NewUUID(u), nil
}
