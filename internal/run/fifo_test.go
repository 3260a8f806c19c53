package run

import (
	"testing"
	"time"
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
