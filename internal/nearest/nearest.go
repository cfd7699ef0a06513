// Package nearest ranks names by edit distance, for the "did you mean"
// part of an error: a misspelled flag, model id or GPU name.
package nearest

import "slices"

// EditDistance is the Levenshtein distance between a and b, in bytes:
// the fewest single-byte insertions, deletions and substitutions that
// turn a into b.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Names returns up to n of names, nearest to name first (ties in the
// order given), keeping only those within maxDistance edits; maxDistance
// < 0 keeps every name.
func Names(name string, names []string, n, maxDistance int) []string {
	type scored struct {
		name string
		d    int
	}
	near := make([]scored, 0, len(names))
	for _, c := range names {
		if d := EditDistance(name, c); maxDistance < 0 || d <= maxDistance {
			near = append(near, scored{c, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(near)))
	for i := 0; i < len(near) && i < n; i++ {
		out = append(out, near[i].name)
	}
	return out
}
