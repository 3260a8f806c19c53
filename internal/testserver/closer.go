package testserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// CloseMode says when a Closer ends a keep-alive connection. Each is what
// a real server does: the client must lose no request to any of them.
type CloseMode int

const (
	// AfterStream ends the connection right after the last chunk of every
	// streamed answer, although the answer said "Keep-Alive: timeout=5,
	// max=100": llama.cpp's llama-server (cpp-httplib) does this, and a
	// client that takes the connection back into its pool when it reads
	// the last chunk can send the next request before the FIN arrives.
	AfterStream CloseMode = iota
	// OnNextRequest keeps the connection after an answer, then reads the
	// next request on it and closes without a byte of answer: the same
	// race, made certain (a server closing an idle connection at the very
	// moment the client reuses it: an idle timeout, or at will).
	OnNextRequest
	// AfterCap answers Cap requests on a connection and closes it after
	// the last, without saying "Connection: close" (a request cap).
	AfterCap
)

// Closer is an OpenAI-compatible streaming server over raw TCP that closes
// keep-alive connections as its Mode says, counting what it saw.
type Closer struct {
	// URL is the server's base URL (http://127.0.0.1:port).
	URL string
	// Mode says when connections are closed; Cap is AfterCap's count.
	Mode CloseMode
	Cap  int
	// Tokens is how many token events each answer streams (default 4).
	Tokens int

	ln                       net.Listener
	wg                       sync.WaitGroup
	conns, requests, dropped atomic.Int64
	answered                 atomic.Int64
	mu                       sync.Mutex
	open                     map[net.Conn]bool
}

// NewCloser starts a Closer on 127.0.0.1:0; the test's cleanup stops it.
func NewCloser(t testing.TB, mode CloseMode) *Closer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Closer{URL: "http://" + ln.Addr().String(), Mode: mode, Cap: 3, Tokens: 4, ln: ln, open: map[net.Conn]bool{}}
	c.wg.Add(1)
	go c.accept()
	t.Cleanup(c.Close)
	return c
}

// Close stops the server and waits for its connections to end.
func (c *Closer) Close() {
	_ = c.ln.Close()
	c.mu.Lock()
	for cn := range c.open {
		_ = cn.Close()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// Conns is how many connections the server accepted; Requests how many
// requests it read; Answered how many it began to answer; Dropped how many
// it read and closed the connection on without answering.
func (c *Closer) Conns() int64    { return c.conns.Load() }
func (c *Closer) Requests() int64 { return c.requests.Load() }
func (c *Closer) Answered() int64 { return c.answered.Load() }
func (c *Closer) Dropped() int64  { return c.dropped.Load() }

func (c *Closer) accept() {
	defer c.wg.Done()
	for {
		cn, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.conns.Add(1)
		c.mu.Lock()
		c.open[cn] = true
		c.mu.Unlock()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.serve(cn)
			c.mu.Lock()
			delete(c.open, cn)
			c.mu.Unlock()
			_ = cn.Close()
		}()
	}
}

// serve answers the requests of one connection until its mode ends it.
func (c *Closer) serve(cn net.Conn) {
	br := bufio.NewReader(cn)
	for n := 1; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		c.requests.Add(1)
		if c.Mode == OnNextRequest && n > 1 {
			c.dropped.Add(1)
			return
		}
		c.answered.Add(1) // before the answer: the client may finish first
		if err := c.answer(cn, req); err != nil {
			return
		}
		if c.Mode == AfterStream || (c.Mode == AfterCap && n >= c.Cap) {
			return
		}
	}
}

// answer writes one streamed answer in llama-server's shape: chunked, a
// Keep-Alive header, a final completions chunk with empty text and usage
// beside its choices, then [DONE].
func (c *Closer) answer(w io.Writer, req *http.Request) error {
	chat := strings.HasSuffix(req.URL.Path, "/chat/completions")
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nServer: testserver\r\nContent-Type: text/event-stream\r\n" +
		"Transfer-Encoding: chunked\r\nKeep-Alive: timeout=5, max=100\r\n\r\n")
	event := func(data string) {
		msg := "data: " + data + "\n\n"
		b.WriteString(strconv.FormatInt(int64(len(msg)), 16) + "\r\n" + msg + "\r\n")
	}
	for i := 0; i < c.Tokens; i++ {
		if chat {
			event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"t%d"}}],"object":"chat.completion.chunk"}`, i))
		} else {
			event(fmt.Sprintf(`{"choices":[{"index":0,"text":"t%d","finish_reason":null}],"object":"text_completion"}`, i))
		}
	}
	usage := fmt.Sprintf(`"usage":{"completion_tokens":%d,"prompt_tokens":3,"total_tokens":%d}`, c.Tokens, c.Tokens+3)
	if chat {
		event(`{"choices":[],"object":"chat.completion.chunk",` + usage + `}`)
	} else {
		event(`{"choices":[{"index":0,"text":"","finish_reason":"length"}],"object":"text_completion",` + usage + `}`)
	}
	event("[DONE]")
	b.WriteString("0\r\n\r\n")
	_, err := io.WriteString(w, b.String())
	return err
}
