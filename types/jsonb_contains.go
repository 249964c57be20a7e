package types

// JSONBContains implements jsonb's @> operator on two jsonb texts: whether
// a contains b. Objects contain objects whose every pair they contain
// (recursively); arrays contain arrays whose every element matches some
// element of theirs, in any order and with repeats; an array contains a
// bare scalar it has as an element, but a scalar never contains an array.
// Scalars match by value (numbers numerically).
func JSONBContains(a, b string) (bool, error) {
	va, err := ParseJSON(a)
	if err != nil {
		return false, err
	}
	vb, err := ParseJSON(b)
	if err != nil {
		return false, err
	}
	return JSONContains(va, vb), nil
}

// JSONContains is JSONBContains on parsed documents.
func JSONContains(a, b JSONValue) bool {
	if (a.Kind == JSONObject) != (b.Kind == JSONObject) {
		return false
	}
	if a.Kind == JSONObject {
		return deepContains(a, b)
	}
	// Top-level scalars are one-element "raw scalar" arrays.
	aRaw, bRaw := a.Kind != JSONArray, b.Kind != JSONArray
	if aRaw && !bRaw {
		return false
	}
	ae, be := a.Elems, b.Elems
	if aRaw {
		ae = []JSONValue{a}
	}
	if bRaw {
		be = []JSONValue{b}
	}
	return arrayContains(ae, be)
}

func isContainer(v JSONValue) bool { return v.Kind == JSONArray || v.Kind == JSONObject }

// deepContains compares two containers of the same nesting level.
func deepContains(a, b JSONValue) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == JSONArray {
		return arrayContains(a.Elems, b.Elems)
	}
	if len(a.Pairs) < len(b.Pairs) {
		return false
	}
	for _, p := range b.Pairs {
		v, ok := a.Get(p.Key)
		switch {
		case !ok, isContainer(v) != isContainer(p.Value):
			return false
		case isContainer(v):
			if !deepContains(v, p.Value) {
				return false
			}
		case !jsonScalarEqual(v, p.Value):
			return false
		}
	}
	return true
}

func arrayContains(a, b []JSONValue) bool {
	for _, e := range b {
		found := false
		for _, x := range a {
			if isContainer(e) {
				found = isContainer(x) && deepContains(x, e)
			} else {
				found = !isContainer(x) && jsonScalarEqual(x, e)
			}
			if found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func jsonScalarEqual(a, b JSONValue) bool {
	return a.Kind == b.Kind && compareJSON(a, b) == 0
}
