package sim

import "testing"

// TestStorePages: unreserved pages hold 64, 64, 128, ..., 2048 records,
// then 4096 each; slot and all find every record where alloc put it; and
// a run that recycles its records (summary mode) allocates only the first
// page.
func TestStorePages(t *testing.T) {
	var s requestStore
	const n = 3*pageSize + 17
	for i := 0; i < n; i++ {
		s.alloc(i)
	}
	want := []int{64, 64, 128, 256, 512, 1024, 2048, 4096, 4096, 4096}
	if len(s.pages) != len(want) {
		t.Fatalf("%d pages, want %d", len(s.pages), len(want))
	}
	for k, p := range s.pages {
		if len(p) != want[k] {
			t.Errorf("page %d holds %d records, want %d", k, len(p), want[k])
		}
	}
	for i := 0; i < n; i++ {
		if r := s.slot(i); r.ID != i {
			t.Fatalf("slot %d holds request %d", i, r.ID)
		}
	}
	all := s.all()
	for i := range all {
		if all[i].ID != i {
			t.Fatalf("all()[%d] is request %d", i, all[i].ID)
		}
	}

	var small requestStore
	for i := 0; i < 10_000; i++ {
		small.release(small.alloc(i))
	}
	if len(small.pages) != 1 || len(small.pages[0]) != firstPage {
		t.Errorf("a recycling run holds %d pages (first of %d records), want one of %d", len(small.pages), len(small.pages[0]), firstPage)
	}
}
