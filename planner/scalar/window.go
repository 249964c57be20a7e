package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// WindowKind identifies a window function for the dataflow Window
// operator, which computes it from the ordered partition: the functions
// are descriptors, not evaluators, because their values depend on a row's
// position among its peers rather than on the row alone.
type WindowKind uint8

// Window functions.
const (
	WinRowNumber WindowKind = iota + 1
	WinRank
	WinDenseRank
	WinPercentRank
	WinCumeDist
	WinNtile
	WinLag
	WinLead
	WinFirstValue
	WinLastValue
	WinNthValue
)

// WindowFunc is a window function overload. Arguments: ntile(buckets);
// lag/lead(value[, offset[, default]]); first_value/last_value(value);
// nth_value(value, n).
type WindowFunc struct {
	Name   string
	Kind   WindowKind
	Params []types.Type
	Ret    types.Type
}

// ResolveWindowFunc picks the overload of a window function (aggregates
// used as window functions resolve through ResolveAggregate).
func ResolveWindowFunc(name string, args []types.Type) (*WindowFunc, []types.Type, error) {
	wfs := lib.windows[name]
	fs := make([]*Func, len(wfs))
	for i, w := range wfs {
		fs[i] = &Func{Name: w.Name, Params: w.Params, Ret: w.Ret}
	}
	c, err := resolve(fs, args, false)
	if err != nil {
		return nil, nil, funcError(err, name, args)
	}
	var chosen *WindowFunc
	for i, f := range fs {
		if f == c.fn {
			chosen = wfs[i]
		}
	}
	f, targets, _ := finish(c, args)
	inst := *chosen
	inst.Params, inst.Ret = targets, f.Ret
	return &inst, targets, nil
}

// IsWindowFunc reports whether name is a window function proper.
func IsWindowFunc(name string) bool { return len(lib.windows[name]) > 0 }

func addWindow(name string, kind WindowKind, ret types.Type, params ...[]types.Type) {
	if len(params) == 0 {
		params = [][]types.Type{nil}
	}
	for _, p := range params {
		lib.windows[name] = append(lib.windows[name], &WindowFunc{Name: name, Kind: kind, Params: p, Ret: ret})
	}
}

func init() {
	addWindow("row_number", WinRowNumber, int8T)
	addWindow("rank", WinRank, int8T)
	addWindow("dense_rank", WinDenseRank, int8T)
	addWindow("percent_rank", WinPercentRank, f8)
	addWindow("cume_dist", WinCumeDist, f8)
	addWindow("ntile", WinNtile, int4T, ts(int4T))
	for _, n := range []struct {
		name string
		kind WindowKind
	}{{"lag", WinLag}, {"lead", WinLead}} {
		addWindow(n.name, n.kind, AnyCompatible, ts(AnyCompatible), ts(AnyCompatible, int4T), ts(AnyCompatible, int4T, AnyCompatible))
	}
	addWindow("first_value", WinFirstValue, AnyElement, ts(AnyElement))
	addWindow("last_value", WinLastValue, AnyElement, ts(AnyElement))
	addWindow("nth_value", WinNthValue, AnyElement, ts(AnyElement, int4T))
}
