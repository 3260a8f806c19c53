package backend

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// errBodyReleased is what GetBody returns for a body already let go of:
// net/http asks for the body again only to resend it (a retry on a fresh
// connection, a 307 or 308 redirect), which happens before the final
// response, never after release.
var errBodyReleased = errors.New("request body already released after the response")

// sentBody is a request body that lets go of its bytes once the server has
// answered (release). A streamed request lives for as long as its stream,
// and net/http keeps the request, and through it the body, reachable until
// the response's body is closed (the response points at the request, the
// connection's read loop holds it): with a bytes.Reader the prompt stayed
// in memory, as the body, for the whole stream. That is a prompt's size
// per request in flight (1,400 streams of 1,024-token prompts: about 7 MB;
// long-context runs many times more), for bytes nothing reads again.
//
// The bytes are read under a mutex because net/http may still be writing
// the body when the answer arrives (a server may answer before it has read
// the request); release then keeps them (see release).
type sentBody struct {
	mu sync.Mutex
	b  []byte
	// last is the reader made last: the one the transport writes from (it
	// makes a new one only to start the body again).
	last *bodyReader
}

// bodyReader reads a sentBody from its start.
type bodyReader struct {
	src *sentBody
	off int
}

// setBody makes b the body of hreq in a sentBody, as
// http.NewRequestWithContext does for a bytes.Reader (the same
// Content-Length, and GetBody for a resend), and returns it. An empty body
// is http.NoBody, as NewRequestWithContext makes it.
func setBody(hreq *http.Request, b []byte) *sentBody {
	if len(b) == 0 {
		hreq.Body, hreq.GetBody, hreq.ContentLength = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }, 0
		return nil
	}
	s := &sentBody{b: b}
	r, _ := s.reader()
	hreq.Body, hreq.GetBody, hreq.ContentLength = r, s.reader, int64(len(b))
	return s
}

// reader returns a new reader of the body from its start.
func (s *sentBody) reader() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b == nil { // released: setBody makes no sentBody of no bytes
		return nil, errBodyReleased
	}
	s.last = &bodyReader{src: s}
	return s.last, nil
}

// Read reads the body's next bytes.
func (r *bodyReader) Read(p []byte) (int, error) {
	s := r.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.off >= len(s.b) {
		return 0, io.EOF
	}
	n := copy(p, s.b[r.off:])
	r.off += n
	return n, nil
}

// Close does nothing: the bytes are the caller's until release.
func (r *bodyReader) Close() error { return nil }

// release lets go of the bytes once the server has answered, if the
// transport has read all of them; a body still being written keeps them
// (its request ends with its stream, and the bytes with it). s may be nil
// (an empty body).
func (s *sentBody) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last != nil && s.last.off == len(s.b) {
		s.b = nil
	}
}
