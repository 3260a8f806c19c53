package sim

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// shedListener accepts as its listener does, except when the process is
// out of descriptors (EMFILE, ENFILE): then it gives up the descriptor it
// keeps spare, accepts the connection that waits longest with it, closes
// that connection at once and takes the spare again (libuv's answer to
// EMFILE). The client then fails at once, where net/http's server would
// retry the accept every second and leave the connection waiting for as
// long as the descriptors are held: forever when the client holding them
// is in this process (serve --sim) and waits for those very answers.
type shedListener struct {
	net.Listener
	mu     sync.Mutex
	spare  *os.File // nil when it could not be taken (again)
	closed bool     // set by Close: no spare is taken again
}

// shedding wraps ln in a shedListener with its spare descriptor taken.
func shedding(ln net.Listener) *shedListener {
	l := &shedListener{Listener: ln}
	l.spare, _ = os.Open(os.DevNull) // without one, Accept sheds nothing
	return l
}

// Accept returns the next connection; connections that arrive while the
// process is out of descriptors are closed instead, as long as the spare
// descriptor lets them be accepted.
func (l *shedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err == nil || !outOfFiles(err) {
			return c, err
		}
		kept, shed := l.shed()
		switch {
		case kept != nil:
			return kept, nil
		case !shed:
			return nil, err
		}
	}
}

// shedWait is how long shed looks for a waiting connection.
const shedWait = 10 * time.Millisecond

// shed accepts, with the spare descriptor, a connection that is waiting
// and closes it (shed true) if the process is still out of descriptors;
// if it is not any more, it returns the connection to be served. accept(2)
// fails for want of a descriptor whether or not a connection waits, so
// the accept here waits only shedWait: when none came, the caller's error
// goes back to net/http, which tries again after a pause.
func (l *shedListener) shed() (kept net.Conn, shed bool) {
	dl, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
	if !ok {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !l.takeSpare() {
		return nil, false
	}
	_ = l.spare.Close()
	l.spare = nil
	l.mu.Unlock() // Close must not wait for this accept
	// A deadline already past would not even try: Go checks it first.
	_ = dl.SetDeadline(time.Now().Add(shedWait))
	c, err := l.Listener.Accept()
	_ = dl.SetDeadline(time.Time{})
	l.mu.Lock()
	if err != nil {
		l.takeSpare()
		return nil, false
	}
	if l.takeSpare() { // descriptors are back: serve it
		return c, false
	}
	_ = c.Close()
	l.takeSpare()
	return nil, true
}

// takeSpare takes the spare descriptor unless it is held or the listener
// is closed, and reports whether it is held. l.mu is held.
func (l *shedListener) takeSpare() bool {
	if l.spare == nil && !l.closed {
		l.spare, _ = os.Open(os.DevNull)
	}
	return l.spare != nil
}

// Close closes the listener, then gives the spare descriptor back.
func (l *shedListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.spare != nil {
		_ = l.spare.Close()
		l.spare = nil
	}
	return err
}

// outOfFiles tells an accept that failed for want of a descriptor.
func outOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
