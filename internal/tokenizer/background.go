package tokenizer

import "sync/atomic"

// background is a table built on its own goroutine after a load. get
// waits for it; ready returns it only if it is built. The tables are
// all shortcuts whose absence changes how a word is tokenized, never the
// result (each shortcut is tested equal to the path it replaces), so the
// encoder takes ready: a run's first prompts do not wait for tables of
// megabytes (40 to 60 ms of Qwen3's start-up on the project's 2-core VM), they
// take the slower paths until the tables are there.
type background[T any] struct {
	done chan struct{}
	v    atomic.Pointer[T]
}

// buildInBackground starts f on its own goroutine; its result becomes the
// value of the returned background.
func buildInBackground[T any](f func() T) *background[T] {
	b := &background[T]{done: make(chan struct{})}
	go func() {
		v := f()
		b.v.Store(&v)
		close(b.done)
	}()
	return b
}

// get waits for the value.
func (b *background[T]) get() T {
	if v := b.v.Load(); v != nil {
		return *v
	}
	<-b.done
	return *b.v.Load()
}

// ready returns the value if it is built: one atomic load, cheap enough
// for every word.
func (b *background[T]) ready() (T, bool) {
	if v := b.v.Load(); v != nil {
		return *v, true
	}
	var zero T
	return zero, false
}

// WaitBuilt waits until the tables tok builds in the background after its
// load are built, if it builds any. Encoding never waits for them (see
// background); a measurement of the encoder alone, such as make bench's
// generation figure, waits first so that it does not time their build.
func WaitBuilt(tok Tokenizer) {
	if h, ok := tok.(*hfTokenizer); ok {
		if m, ok := h.model.(*bpeModel); ok {
			m.waitTables()
		}
	}
}

// waitTables waits for m's background tables.
func (m *bpeModel) waitTables() {
	if m.singles != nil {
		m.singles.words.get()
	}
	if m.uniqueIDs != nil {
		m.uniqueIDs.get()
	}
	if m.bytePairs != nil {
		m.bytePairs.get()
	}
	if m.cuts != nil {
		m.cuts.get()
	}
}
