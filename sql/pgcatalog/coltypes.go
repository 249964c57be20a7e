package pgcatalog

import "github.com/streamdb/streamdb/types"

// Column types of the system relations, as columns_gen.go names them.
var (
	tBool        = types.TypeBool
	tInt2        = types.TypeInt2
	tInt4        = types.TypeInt4
	tInt8        = types.TypeInt8
	tFloat4      = types.TypeFloat4
	tOid         = types.TypeOid
	tName        = types.TypeName
	tText        = types.TypeText
	tVarchar     = types.TypeVarchar
	tChar        = types.TypeQChar
	tBytea       = types.TypeBytea
	tTimestampTZ = types.TypeTimestampTZ
	tRegProc     = types.TypeRegProc
	tYesNo       = types.Type{Family: types.Varchar, Mod: 3}
	tOidArray    = types.ArrayOf(types.TypeOid)
	tInt2Array   = types.ArrayOf(types.TypeInt2)
	tTextArray   = types.ArrayOf(types.TypeText)
	tCharArray   = types.ArrayOf(tChar)
	tInt2Vector  = types.TypeInt2Vector
	tOidVector   = types.TypeOidVector
)
