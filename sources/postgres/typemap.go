package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/types"
)

// upstreamType is what streamdb makes of an upstream column type.
type upstreamType struct {
	// typ is the streamdb type; meaningless when name is set.
	typ types.Type
	// exact says the upstream type is typ itself, so the snapshot reads
	// its binary form; other types (enums, domains, arrays of those)
	// are read as text and parsed as typ.
	exact bool
	// unsupported is the upstream type's name when streamdb has no type
	// for it.
	unsupported string
}

type typeKey struct {
	oid    uint32
	typmod int32
}

// typeResolver maps upstream type OIDs to streamdb types, asking the
// upstream catalog about types that are not built in (enums, domains,
// their arrays, and everything streamdb lacks). Results are cached for
// the resolver's life: a type's OID does not change its meaning.
type typeResolver struct {
	cache map[typeKey]upstreamType
}

func newTypeResolver() *typeResolver {
	return &typeResolver{cache: make(map[typeKey]upstreamType)}
}

// builtinType returns the streamdb type of a built-in type OID. The
// object identifier types other than oid are left out: their values
// name upstream objects, which mean nothing here.
func builtinType(oid uint32) (types.Type, bool) {
	t, ok := types.TypeForOID(oid)
	if !ok {
		return t, false
	}
	f := t.Family
	if f == types.Array {
		f = t.Elem
	}
	if f == types.Unknown || f.IsReg() {
		return t, false
	}
	return t, true
}

// resolve maps a column's type OID and typmod (atttypmod) to a streamdb
// type.
func (r *typeResolver) resolve(ctx context.Context, q *pgx.Conn, oid uint32, typmod int32) (upstreamType, error) {
	k := typeKey{oid, typmod}
	if u, ok := r.cache[k]; ok {
		return u, nil
	}
	u, err := r.lookup(ctx, q, oid, typmod, 0)
	if err != nil {
		return u, err
	}
	r.cache[k] = u
	return u, nil
}

func (r *typeResolver) lookup(ctx context.Context, q *pgx.Conn, oid uint32, typmod int32, depth int) (upstreamType, error) {
	if t, ok := builtinType(oid); ok {
		// Arrays are read as text even when built in: the binary form
		// carries lower bounds, which streamdb's arrays lack, and the
		// text parser refuses the bounds the stream's text would show.
		return upstreamType{typ: t.WithTypMod(typmod), exact: t.Family != types.Array}, nil
	}
	if depth > 8 {
		return upstreamType{unsupported: fmt.Sprintf("type %d", oid)}, nil
	}
	var (
		typtype, category string
		elem, base        uint32
		baseTypmod        int32
		name              string
	)
	err := q.QueryRow(ctx, `SELECT t.typtype::text, t.typcategory::text, t.typelem, t.typbasetype, t.typtypmod, format_type(t.oid, $2)
		FROM pg_catalog.pg_type t WHERE t.oid = $1`, oid, typmod).
		Scan(&typtype, &category, &elem, &base, &baseTypmod, &name)
	if err == pgx.ErrNoRows {
		return upstreamType{unsupported: fmt.Sprintf("type %d", oid)}, nil
	}
	if err != nil {
		return upstreamType{}, upstreamError("reading the upstream catalog", err)
	}
	switch {
	case typtype == "e":
		return upstreamType{typ: types.TypeText}, nil
	case typtype == "d":
		u, err := r.lookup(ctx, q, base, baseTypmod, depth+1)
		u.exact = false
		if u.unsupported != "" {
			u.unsupported = name
		}
		return u, err
	case category == "A" && elem != 0:
		u, err := r.lookup(ctx, q, elem, typmod, depth+1)
		if err != nil || u.unsupported != "" || u.typ.Family == types.Array {
			return upstreamType{unsupported: name}, err
		}
		return upstreamType{typ: types.ArrayOf(u.typ)}, nil
	}
	return upstreamType{unsupported: name}, nil
}
