//go:build !linux

package evloop

import (
	"context"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// Engine is the epoll client engine; elsewhere than on Linux New refuses
// to make one.
type Engine struct{}

// New returns ErrUnsupported: the engine needs Linux's epoll.
func New(*backend.Client) (*Engine, error) { return nil, ErrUnsupported }

// Do fails every request (New never returns an Engine here).
func (e *Engine) Do(_ context.Context, b backend.Backend, req *backend.Request, _ []byte) metrics.Output {
	return failed(b, req, ErrUnsupported)
}

// Close does nothing.
func (e *Engine) Close() error { return nil }
