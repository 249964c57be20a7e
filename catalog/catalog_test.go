package catalog

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

func names(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}

// TestCatalogVersions adds and removes objects on clones: a frozen copy
// keeps what it had, dependents follow DependsOn, On and Source, and ids
// continue past the greatest object added.
func TestCatalogVersions(t *testing.T) {
	c := New()
	tbl := &Object{ID: FirstUserID, Kind: KindTable, Schema: DefaultSchema, Name: "t"}
	view := &Object{ID: FirstUserID + 1, Kind: KindMaterializedView, Schema: DefaultSchema, Name: "v", DependsOn: []uint64{tbl.ID}}
	idx := &Object{ID: FirstUserID + 2, Kind: KindIndex, Schema: DefaultSchema, Name: "i", On: tbl.ID}
	c.Add(tbl)
	c.Add(view)
	c.Add(idx)
	frozen := c.Frozen()
	next := c.Clone()
	next.Remove(view)

	if got := names(frozen.Dependents(tbl.ID)); !slices.Equal(got, []string{"v", "i"}) {
		t.Errorf("frozen dependents of t = %v", got)
	}
	if got := names(next.Dependents(tbl.ID)); !slices.Equal(got, []string{"i"}) {
		t.Errorf("dependents after removing v = %v", got)
	}
	if _, ok := next.Lookup("", "v"); ok {
		t.Error("removed view still found by name")
	}
	if _, ok := frozen.Lookup("", "v"); !ok {
		t.Error("frozen copy lost the view")
	}
	if next.Version != c.Version+1 || frozen.Version != c.Version {
		t.Errorf("versions: live %d, frozen %d, next %d", c.Version, frozen.Version, next.Version)
	}
	if next.NextID != FirstUserID+3 {
		t.Errorf("NextID = %d", next.NextID)
	}
	var all []string
	for o := range frozen.All() {
		all = append(all, o.Name)
	}
	if !slices.Equal(all, []string{"t", "v", "i"}) {
		t.Errorf("All = %v, want id order", all)
	}
	if got := names(frozen.Objects(KindTable)); !slices.Equal(got, []string{"t"}) {
		t.Errorf("Objects(table) = %v", got)
	}
}

// TestObjectJSON stores an object and reads it back: the plan is not
// stored, everything else is.
func TestObjectJSON(t *testing.T) {
	o := &Object{ID: 7, Kind: KindView, Schema: DefaultSchema, Name: "v", SQL: "CREATE VIEW v AS SELECT 1",
		Columns: []ColumnDef{{Name: "a", Type: types.TypeInt4, NotNull: true}},
		Plan:    &planner.Get{ID: 3, Name: "t"}}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back Object
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Plan != nil {
		t.Error("the plan was stored")
	}
	if back.Name != "v" || back.SQL != o.SQL || len(back.Columns) != 1 || back.Columns[0].Type != types.TypeInt4 || !back.Columns[0].NotNull {
		t.Errorf("round trip lost fields: %+v", back)
	}
}

// TestReplaceKeepsDependents checks that a renamed object keeps the
// record of the views that read it.
func TestReplaceKeepsDependents(t *testing.T) {
	c := New()
	tbl := &Object{ID: 1, Kind: KindTable, Schema: DefaultSchema, Name: "t"}
	v := &Object{ID: 2, Kind: KindView, Schema: DefaultSchema, Name: "v", DependsOn: []uint64{1}}
	c.Add(tbl)
	c.Add(v)
	renamed := *tbl
	renamed.Name = "t2"
	c.Replace(tbl, &renamed)
	if deps := c.Dependents(1); len(deps) != 1 || deps[0].Name != "v" {
		t.Fatalf("dependents of the renamed table: %v", deps)
	}
	if _, ok := c.Lookup(DefaultSchema, "t"); ok {
		t.Error("the old name still resolves")
	}
	if o, ok := c.Lookup(DefaultSchema, "t2"); !ok || o.ID != 1 {
		t.Error("the new name does not resolve")
	}
}
