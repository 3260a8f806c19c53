// Package evloop is gobench's optional second client engine
// (--client-engine epoll): one goroutine, locked to its thread, drives every
// request of a run over non-blocking TCP sockets and one epoll set, and
// speaks just enough HTTP/1.1 for an OpenAI-compatible streaming answer.
//
// Why: with net/http every stream event costs a read that returns data, a
// read that returns EAGAIN and a goroutine's park and wake-up, and the
// scheduler's search for work in between (tools/simbench measures net/http
// alone at about 1.5 times a bare epoll loop per event). Here an event
// costs the one read(2) of its readiness, shared by every event that read
// returns, and no goroutine switch: the caller's goroutine waits once per
// request, not once per event.
//
// What it shares with net/http's path (backend.Client.Do), so that both
// build identical records: the request's headers (backend.Client
// RequestHeaders), the SSE rules (stream.Reader, here in push mode), the
// per-event step (backend.Stream), the error texts of the bounds
// (backend.Client.StopText) and of a non-200 answer (backend.StatusError),
// the timers (backend.Client.StartTimer) and the clock (backend.Client.Now,
// read once per read(2) that returned data, before any of its events is
// parsed).
//
// What it supports: http URLs only (no TLS, no proxy: the command line
// refuses those), streamed answers (not the pooling backends), response
// heads of up to 10 MiB in all (net/http Transport's default bound, which
// gobench's transport keeps), bodies framed by chunked transfer-encoding
// (decoder.go), by Content-Length or by the end of the connection, and
// keep-alive connections reused across requests. A server's host name is
// resolved at most once per 300 s, as vLLM's client caches DNS answers
// (engine.go, resolver).
//
// Its records follow net/http's path's on these answers:
//
//   - A request written into a reused connection that the server had
//     closed, before any byte of its answer, is sent once more on a new
//     connection, and only then (a new connection's failure, a failure
//     after the first byte and a second failure stay failures). The
//     record says so (metrics.Output.Resent) and keeps the first
//     attempt's StartTime.
//   - The body's data before a framing error counts: after [DONE], a
//     last chunk that ends badly or never comes is the connection's end,
//     not a failure.
//   - It follows no redirect: a 301, 302, 303, 307 or 308 with a Location
//     is a failed request whose error names the status and the Location,
//     in net/http's words where net/http would not follow it either
//     (package redirect's rule, redirect.go); other 3xx answers fail as
//     any non-200 does.
//
// Where the records still differ: a same-origin 307 or 308, which
// net/http's path follows, fails here; a chunk-size line ending in a bare
// "\n" is accepted here and refused by net/http; and the error texts of a
// malformed head and of a socket error are the engine's own.
//
// The parsers (head.go, decoder.go) are plain functions over bytes, fuzzed
// (FuzzHead, FuzzChunked) and built on every platform; the loop itself
// (engine_linux.go) is Linux-only, and New elsewhere returns an error.
package evloop
