package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// Running is a simulator serving in the background, as Start leaves it.
// Close stops it.
type Running struct {
	srv    *Server
	addr   net.Addr
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's result, once done is closed

	rec     *os.File // the record file Start created, if any
	recPath string

	closeOnce sync.Once
	closeErr  error
}

// Start builds the server of cfg, listens on cfg.Addr (a free loopback
// port by default) and serves in the background until Close, so that
// `gobench sim` and `gobench serve --sim` start the simulator alike. ctx
// bounds the start only. With cfg.RecordPath, Start creates the record file
// (a failure is a *RecordError).
func Start(ctx context.Context, cfg Config) (*Running, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	r := &Running{done: make(chan struct{}), recPath: cfg.RecordPath}
	if cfg.RecordPath != "" && cfg.Record == nil {
		f, err := os.Create(cfg.RecordPath)
		if err != nil {
			return nil, &RecordError{Path: cfg.RecordPath, Err: err}
		}
		r.rec, cfg.Record = f, f
	}
	srv, err := NewServer(cfg)
	var ln net.Listener
	if err == nil {
		var lc net.ListenConfig
		if ln, err = lc.Listen(ctx, "tcp", addr); err != nil {
			err = fmt.Errorf("sim: listen on %s: %w", addr, err)
		}
	}
	if err != nil {
		if r.rec != nil {
			_ = r.rec.Close()
		}
		return nil, err
	}
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
// finish for up to Config.ShutdownTimeout, then cuts them, and closes the
// record file. Its error joins the server's (connections it had to cut)
// and the record's, a *RecordError when the ground truth could not be
// written in full. Close is idempotent.
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
			if err := r.rec.Close(); recErr == nil {
				recErr = err
			}
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
