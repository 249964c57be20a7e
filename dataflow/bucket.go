package dataflow

// changeSpan delimits the changes of one group (a TopK group, a window
// partition) among a tick's changes once bucketChanges has laid them out
// group by group.
type changeSpan struct{ start, end int }

func (s *changeSpan) span() *changeSpan { return s }

// bucketChanges appends changes to sorted grouped by groupOf, a stable
// counting sort over the touched groups: on return each touched group's
// span delimits its changes in sorted, in their original order. The
// groups' spans must be zero on entry.
func bucketChanges[C any, G interface{ span() *changeSpan }](changes []C, groupOf func(*C) int, touched []G, sorted []C) []C {
	for i := range changes {
		touched[groupOf(&changes[i])].span().end++
	}
	at := len(sorted)
	for _, g := range touched {
		sp := g.span()
		n := sp.end
		sp.start, sp.end = at, at
		at += n
	}
	sorted = append(sorted, make([]C, len(changes))...)
	for i := range changes {
		sp := touched[groupOf(&changes[i])].span()
		sorted[sp.end] = changes[i]
		sp.end++
	}
	return sorted
}
