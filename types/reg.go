package types

import (
	"strconv"
	"strings"
)

// ObjectNames resolves the object identifier types against a catalog: the
// session implements it, so that '"orders"'::regclass finds the session's
// table and a regclass column prints the name the object has now. The
// reg* families exist so that the conversion between an OID and a name
// happens only in text I/O; everywhere else (comparison, hashing, binary
// and key encodings) their values are plain OIDs, Datums of kind Oid.
type ObjectNames interface {
	// ObjectName returns the name of the object with the given OID for
	// a reg* family, qualified when it is not visible on the search path;
	// ok is false when there is no such object (the OID prints as a
	// number, as in PostgreSQL).
	ObjectName(f Family, oid uint32) (name string, ok bool)
	// ObjectOID resolves a name read as a reg* value, returning
	// PostgreSQL's error for a missing object (42P01 for a relation,
	// 42704 for a type, 42883 for a function, 3F000 for a schema).
	ObjectOID(f Family, name string) (uint32, error)
}

// appendReg prints an OID as the name of the object it identifies, or as
// a number when no object has it; OID 0 prints as "-".
func appendReg(dst []byte, d Datum, f Family, cfg *TextConfig) []byte {
	oid := uint32(d.i)
	if oid == 0 {
		return append(dst, '-')
	}
	if cfg.Names != nil {
		if name, ok := cfg.Names.ObjectName(f, oid); ok {
			return append(dst, name...)
		}
	}
	return strconv.AppendUint(dst, uint64(oid), 10)
}

// parseReg reads a reg* value: a number is taken as the OID itself, "-"
// as OID 0, anything else as a name that cfg.Names resolves.
func parseReg(s string, f Family, cfg *TextConfig) (Datum, error) {
	t := strings.TrimSpace(s)
	if t == "-" {
		return NewOid(0), nil
	}
	if t != "" && t[0] >= '0' && t[0] <= '9' {
		return parseOid(t)
	}
	if cfg == nil || cfg.Names == nil {
		return Null, errSyntax(Type{Family: f, Mod: -1}, s)
	}
	oid, err := cfg.Names.ObjectOID(f, t)
	if err != nil {
		return Null, err
	}
	return NewOid(oid), nil
}

// regCast is pg_cast for the reg* types: they are binary-compatible with
// oid and read integers implicitly; they give integers back in assignment,
// and text converts to regclass implicitly (text_regclass).
func regCast(from, to Family) (CastKind, bool) {
	switch {
	case !from.IsReg() && !to.IsReg():
		return 0, false
	case from == Oid || to == Oid:
		return CastImplicit, true
	case to.IsReg() && from.IsInteger():
		return CastImplicit, true
	case from.IsReg() && (to == Int4 || to == Int8):
		return CastAssignment, true
	case from == Text && to == RegClass:
		return CastImplicit, true
	}
	return 0, false
}
