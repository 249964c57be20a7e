package sql

import (
	"strings"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
)

// errUndefinedObject returns PostgreSQL's error for a missing relation of
// the given kind.
func errUndefinedObject(kind catalog.ObjectKind, name string) error {
	switch kind {
	case catalog.KindIndex:
		return pgerr.New(pgerr.UndefinedObject, "index %q does not exist", name)
	case catalog.KindView:
		return pgerr.New(pgerr.UndefinedTable, "view %q does not exist", name)
	case catalog.KindMaterializedView:
		return pgerr.New(pgerr.UndefinedTable, "materialized view %q does not exist", name)
	case catalog.KindTable:
		return pgerr.New(pgerr.UndefinedTable, "table %q does not exist", name)
	}
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// errWrongKind is PostgreSQL's error for a DROP naming an object of
// another kind.
func errWrongKind(name string, want, have catalog.ObjectKind) error {
	article := "a"
	if want == catalog.KindIndex {
		article = "an"
	}
	haveArticle := "a"
	if have == catalog.KindIndex {
		haveArticle = "an"
	}
	return pgerr.New(pgerr.WrongObjectType, "%q is not %s %s", name, article, want).
		WithHint("Use DROP %s to remove %s %s.", strings.ToUpper(have.String()), haveArticle, have)
}

// article returns "a" or "an" for a kind's name.
func article(k catalog.ObjectKind) string {
	if k == catalog.KindIndex {
		return "an"
	}
	return "a"
}
