package run

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Slots are granted in the order requests joined, whatever order their
// goroutines run in.
func TestFIFOOrder(t *testing.T) {
	t.Parallel()
	s := newFIFO(1)
	first := s.join()
	waiters := []chan struct{}{s.join(), s.join(), s.join()}
	select {
	case <-first:
	default:
		t.Fatal("the first request did not get the free slot")
	}
	for i, w := range waiters {
		for j, other := range waiters[i+1:] {
			select {
			case <-other:
				t.Fatalf("waiter %d granted before waiter %d", i+1+j, i)
			default:
			}
		}
		s.release()
		select {
		case <-w:
		case <-time.After(time.Second):
			t.Fatalf("waiter %d not granted", i)
		}
	}
	// A waiter that leaves does not take a slot; a granted one that leaves
	// gives it back.
	gone := s.join()
	s.leave(gone)
	s.release()
	if got := s.join(); !isClosed(got) {
		t.Fatal("slot lost after a waiter left")
	}
}

// TestFIFOEnqueueRunsInOrder checks that queued work starts in the order
// it was queued, one at a time with one slot, and that a slot released
// with nothing queued is free again.
func TestFIFOEnqueueRunsInOrder(t *testing.T) {
	s := newFIFO(1)
	var mu sync.Mutex
	var got []int
	done := make(chan struct{})
	const n = 5
	for i := range n {
		s.enqueue(func() {
			mu.Lock()
			got = append(got, i)
			last := len(got) == n
			mu.Unlock()
			s.release()
			if last {
				close(done)
			}
		})
	}
	<-done
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if ch := s.join(); !isClosed(ch) {
		t.Error("the slot was not free after the queue drained")
	}
}
