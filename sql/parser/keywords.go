package parser

// The keyword categories below are PostgreSQL 17's (src/include/parser/kwlist.h,
// as embedded by pg_query). Reserved keywords cannot be bare identifiers in
// PostgreSQL, and this parser refuses them likewise, so a name that pg_query
// would reject elsewhere is rejected here too. Printing quotes every keyword
// that is not unreserved, as PostgreSQL's quote_ident does, so that what
// String prints is read back the same by both parsers.

// reservedKeywords cannot be used as unquoted names.
var reservedKeywords = map[string]struct{}{
	"all": {}, "analyse": {}, "analyze": {}, "and": {}, "any": {}, "array": {},
	"as": {}, "asc": {}, "asymmetric": {}, "both": {}, "case": {}, "cast": {},
	"check": {}, "collate": {}, "column": {}, "constraint": {}, "create": {},
	"current_catalog": {}, "current_date": {}, "current_role": {},
	"current_time": {}, "current_timestamp": {}, "current_user": {},
	"default": {}, "deferrable": {}, "desc": {}, "distinct": {}, "do": {},
	"else": {}, "end": {}, "except": {}, "false": {}, "fetch": {}, "for": {},
	"foreign": {}, "from": {}, "grant": {}, "group": {}, "having": {}, "in": {},
	"initially": {}, "intersect": {}, "into": {}, "lateral": {}, "leading": {},
	"limit": {}, "localtime": {}, "localtimestamp": {}, "not": {}, "null": {},
	"offset": {}, "on": {}, "only": {}, "or": {}, "order": {}, "placing": {},
	"primary": {}, "references": {}, "returning": {}, "select": {},
	"session_user": {}, "some": {}, "symmetric": {}, "system_user": {},
	"table": {}, "then": {}, "to": {}, "trailing": {}, "true": {}, "union": {},
	"unique": {}, "user": {}, "using": {}, "variadic": {}, "when": {},
	"where": {}, "window": {}, "with": {},
}

// nameKeywords may be column, type or function names in PostgreSQL but are
// quoted when printed, like the reserved ones.
var nameKeywords = map[string]struct{}{
	"authorization": {}, "between": {}, "bigint": {}, "binary": {}, "bit": {},
	"boolean": {}, "char": {}, "character": {}, "coalesce": {}, "collation": {},
	"concurrently": {}, "cross": {}, "current_schema": {}, "dec": {},
	"decimal": {}, "exists": {}, "extract": {}, "float": {}, "freeze": {},
	"full": {}, "greatest": {}, "grouping": {}, "ilike": {}, "inner": {},
	"inout": {}, "int": {}, "integer": {}, "interval": {}, "is": {},
	"isnull": {}, "join": {}, "json": {}, "json_array": {}, "json_arrayagg": {},
	"json_exists": {}, "json_object": {}, "json_objectagg": {},
	"json_query": {}, "json_scalar": {}, "json_serialize": {}, "json_table": {},
	"json_value": {}, "least": {}, "left": {}, "like": {}, "merge_action": {},
	"national": {}, "natural": {}, "nchar": {}, "none": {}, "normalize": {},
	"notnull": {}, "nullif": {}, "numeric": {}, "out": {}, "outer": {},
	"overlaps": {}, "overlay": {}, "position": {}, "precision": {}, "real": {},
	"right": {}, "row": {}, "setof": {}, "similar": {}, "smallint": {},
	"substring": {}, "tablesample": {}, "time": {}, "timestamp": {},
	"treat": {}, "trim": {}, "values": {}, "varchar": {}, "verbose": {},
	"xmlattributes": {}, "xmlconcat": {}, "xmlelement": {}, "xmlexists": {},
	"xmlforest": {}, "xmlnamespaces": {}, "xmlparse": {}, "xmlpi": {},
	"xmlroot": {}, "xmlserialize": {}, "xmltable": {},
}
