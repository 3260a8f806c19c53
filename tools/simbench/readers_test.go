package main

import (
	"bytes"
	"testing"
)

// TestEventCounter checks that the count does not depend on how the
// stream is split.
func TestEventCounter(t *testing.T) {
	stream := bytes.Repeat([]byte("ca\r\ndata: {\"x\":1}\n\n\r\n"), 50)
	want := bytes.Count(stream, dataLine)
	for step := 1; step <= 30; step++ {
		var c eventCounter
		for i := 0; i < len(stream); i += step {
			c.add(stream[i:min(i+step, len(stream))])
		}
		if c.n != want {
			t.Errorf("split every %d bytes: %d events, want %d", step, c.n, want)
		}
	}
}
