package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/atomicfile"
)

// Running is a simulator serving in the background, as Start leaves it.
// Close stops it.
type Running struct {
	srv    *Server
	addr   net.Addr
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's result, once done is closed

	rec     *recordFile // the record file Start created, if any
	recPath string

	closeOnce sync.Once
	closeErr  error
}

// Start builds the server of cfg, listens on cfg.Addr (a free loopback
// port by default) and serves in the background until Close, so that
// `gobench sim` and `gobench serve --sim` start the simulator alike. ctx
// bounds the start only. With cfg.RecordPath, Start creates the record file
// (a failure is a *RecordError): under a temporary name in its directory
// until Close, so that no reader, and no kill -9, ever finds a half record
// under the final name (see newRecordFile).
func Start(ctx context.Context, cfg Config) (*Running, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	r := &Running{done: make(chan struct{}), recPath: cfg.RecordPath}
	if cfg.RecordPath != "" && cfg.Record == nil {
		f, err := newRecordFile(cfg.RecordPath)
		if err != nil {
			return nil, &RecordError{Path: cfg.RecordPath, Err: err}
		}
		r.rec, cfg.Record = f, f
	}
	srv, err := NewServer(cfg)
	var ln net.Listener
	if err == nil {
		listen := cfg.Listen
		if listen == nil {
			listen = new(net.ListenConfig).Listen
		}
		if ln, err = listen(ctx, "tcp", addr); err != nil {
			err = fmt.Errorf("sim: listen on %s: %w", addr, err)
		}
	}
	if err != nil {
		r.rec.abort()
		return nil, err
	}
	ln = shedding(ln) // never a client left waiting on a process out of descriptors
	r.srv, r.addr = srv, ln.Addr()
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	go func() {
		r.err = srv.Serve(sctx, ln)
		close(r.done)
	}()
	return r, nil
}

// Addr is the address the simulator listens on.
func (r *Running) Addr() net.Addr { return r.addr }

// URL is the simulator's base URL, http://host:port.
func (r *Running) URL() string { return "http://" + r.addr.String() }

// Done is closed once the simulator has stopped serving: after Close, or
// earlier when it could no longer accept connections (Close then reports
// why).
func (r *Running) Done() <-chan struct{} { return r.done }

// Close stops the simulator: it stops accepting, lets requests in flight
// finish for up to Config.ShutdownTimeout, then cuts them, and puts the
// record file in place (or, when a write to it failed, removes it: an
// incomplete ground truth is not left to be trusted). Its error joins the
// server's (connections it had to cut) and the record's, a *RecordError
// when the ground truth could not be written in full. Close is idempotent.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		r.cancel()
		// Serve bounds its shutdown by ShutdownTimeout; the extra second
		// only guards against a handler that ignores the closed connection.
		bound := r.srv.cfg.ShutdownTimeout + time.Second
		select {
		case <-r.done:
			r.closeErr = r.err
		case <-time.After(bound):
			r.closeErr = fmt.Errorf("sim: the server did not stop within %v", bound)
		}
		recErr := r.srv.RecordErr()
		if r.rec != nil {
			recErr = r.rec.close(r.recPath, recErr)
		}
		if recErr != nil {
			r.closeErr = errors.Join(r.closeErr, &RecordError{Path: r.recPath, Err: recErr})
		}
	})
	return r.closeErr
}

// RecordError is a record (Config.RecordPath) that could not be created,
// written or closed: the ground truth it holds is incomplete.
type RecordError struct {
	// Path is the record file.
	Path string
	// Err is what went wrong.
	Err error
}

func (e *RecordError) Error() string { return "sim: record " + e.Path + ": " + e.Err.Error() }

func (e *RecordError) Unwrap() error { return e.Err }

// errRecordClosed is what a request that ends after Close (one the
// shutdown could not stop) gets from the record: its line is left out.
var errRecordClosed = errors.New("the record was closed")

// recordFile is the record file of Start: the header and one line per
// request go to a temporary file (".NAME.RANDOM.tmp") in the record's
// directory, which Close syncs and renames to the record's name. A
// simulator killed with SIGKILL leaves that temporary file, holding every
// line written so far (each line is one write), and no file under the
// record's name. The lock keeps Close from racing a request that ends
// during the shutdown.
type recordFile struct {
	mu     sync.Mutex
	p      *atomicfile.Pending
	closed bool
}

// newRecordFile creates the temporary file of the record at path; the
// directory must exist.
func newRecordFile(path string) (*recordFile, error) {
	p, err := atomicfile.Prepare(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	return &recordFile{p: p}, nil
}

// Write appends to the temporary file.
func (f *recordFile) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errRecordClosed
	}
	return f.p.Write(b)
}

// close puts the record in place at path, unless writing it failed
// (writeErr): then the temporary file is removed and writeErr returned.
func (f *recordFile) close(path string, writeErr error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if writeErr != nil {
		f.p.Abort()
		return writeErr
	}
	return f.p.Commit(path)
}

// abort removes the temporary file; nil does nothing.
func (f *recordFile) abort() {
	if f != nil {
		f.p.Abort()
	}
}
