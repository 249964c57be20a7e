package pgcatalog

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// pg_type.tsv holds PostgreSQL 15's pg_type rows for the types streamdb
// supports, their arrays and the pseudo-types clients meet (COPY text
// format, regproc columns as OIDs), in typeTSVColumns order.
//
//go:embed pg_type.tsv
var typeTSV string

var typeTSVColumns = strings.Fields(`oid typname typnamespace typowner typlen typbyval typtype typcategory
	typispreferred typisdefined typdelim typrelid typsubscript typelem typarray typinput typoutput typreceive
	typsend typmodin typmodout typanalyze typalign typstorage typnotnull typbasetype typtypmod typndims
	typcollation typdefault`)

// pg_proc.tsv holds the built-in functions of PostgreSQL 15's pg_catalog:
// oid, name, kind, argument count, result type, argument types, returns
// set, volatility, strict.
//
//go:embed pg_proc.tsv
var procTSV string

// proc is a built-in function as pg_proc lists it.
type proc struct {
	oid      uint32
	name     string
	kind     string
	nargs    int
	ret      uint32
	args     []uint32
	retset   bool
	volatile string
	strict   bool
}

var builtin = sync.OnceValue(loadBuiltin)

type builtins struct {
	types     []types.Row // pg_type rows, in pg_type column order
	typeNames map[uint32]string
	typeOIDs  map[string]uint32
	procs     []proc
	procNames map[uint32]string
	procOIDs  map[string]uint32
}

func loadBuiltin() *builtins {
	b := &builtins{typeNames: map[uint32]string{}, typeOIDs: map[string]uint32{}, procNames: map[uint32]string{}, procOIDs: map[string]uint32{}}
	pgType := tableNames["pg_catalog.pg_type"]
	ioProcs := map[uint32]bool{}
	for _, line := range strings.Split(strings.TrimSpace(typeTSV), "\n") {
		fields := strings.Split(line, "\t")
		row := make(types.Row, len(pgType.Columns))
		for i, c := range pgType.Columns {
			row[i] = zero(c.Type)
		}
		for i, f := range fields {
			j := pgType.index[typeTSVColumns[i]]
			if f == `\N` {
				row[j] = types.Null
				continue
			}
			d, err := types.ParseText(f, pgType.Columns[j].Type, nil)
			if err != nil {
				panic("pgcatalog: pg_type.tsv: " + err.Error())
			}
			row[j] = d
			if pgType.Columns[j].Type.Family == types.RegProc {
				ioProcs[uint32(d.Int())] = true
			}
		}
		oid := uint32(row[pgType.index["oid"]].Int())
		name := row[pgType.index["typname"]].Str()
		b.typeNames[oid] = name
		b.typeOIDs[name] = oid
		b.types = append(b.types, row)
	}
	for _, line := range strings.Split(strings.TrimSpace(procTSV), "\n") {
		f := strings.Split(line, "\t")
		oid := parseUint(f[0])
		if !scalar.Known(f[1]) && !ioProcs[oid] {
			continue
		}
		p := proc{oid: oid, name: f[1], kind: f[2], ret: parseUint(f[4]), retset: f[6] == "t", volatile: f[7], strict: f[8] == "t"}
		p.nargs, _ = strconv.Atoi(f[3])
		for _, a := range strings.Fields(f[5]) {
			p.args = append(p.args, parseUint(a))
		}
		if !ioProcs[oid] && !b.supported(p) {
			continue
		}
		b.procs = append(b.procs, p)
		b.procNames[oid] = p.name
		if _, dup := b.procOIDs[p.name]; !dup {
			b.procOIDs[p.name] = oid
		}
	}
	return b
}

// supported reports whether every type of a function's signature is one
// pg_type lists: overloads over ranges, geometry and the like are left out.
func (b *builtins) supported(p proc) bool {
	if _, ok := b.typeNames[p.ret]; !ok {
		return false
	}
	for _, a := range p.args {
		if _, ok := b.typeNames[a]; !ok {
			return false
		}
	}
	return true
}

func parseUint(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}

// typeName returns the pg_type name of a type OID.
func typeName(oid uint32) (string, bool) {
	n, ok := builtin().typeNames[oid]
	return n, ok
}

func init() {
	define("pg_catalog", "pg_type", false, func(b *rowSet, src Source) {
		b.rows = append(b.rows, builtin().types...)
	})
	define("pg_catalog", "pg_proc", false, func(b *rowSet, src Source) {
		for _, p := range builtin().procs {
			b.add("oid", p.oid, "proname", p.name, "pronamespace", NamespacePGCatalog, "proowner", superuserOID,
				"prolang", languageInternalOID, "procost", 1, "prokind", p.kind, "proretset", p.retset,
				"provolatile", p.volatile, "proisstrict", p.strict, "proparallel", "s", "pronargs", p.nargs,
				"prorettype", p.ret, "proargtypes", p.args, "prosrc", p.name)
		}
	})
}
