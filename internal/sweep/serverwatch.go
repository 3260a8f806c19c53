package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// errServerExited is the cause of a context that watch cancelled.
var errServerExited = errors.New("the server process exited")

// watch returns ctx, cancelled with errServerExited as soon as the
// process exits, so that neither a health check nor a benchmark run goes
// on against a server that is gone; release stops the watching.
func (s *server) watch(ctx context.Context) (context.Context, func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	go func() {
		select {
		case <-s.done:
			cancel(errServerExited)
		case <-stop:
		}
	}()
	return wctx, func() {
		close(stop)
		cancel(nil)
	}
}

// hasExited reports whether the process has exited.
func (s *server) hasExited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// exitError says that the process exited (when: "before it was ready",
// "during the benchmark"), how, and the end of its output.
func (s *server) exitError(when string) error {
	tail := logTail(s.logPath, tailLines, tailBytes)
	if tail == "" {
		return fmt.Errorf("the server command exited (%s) %s; its output is in %s", s.exited(), when, s.logPath)
	}
	return fmt.Errorf("the server command exited (%s) %s; the end of its output:\n%s\n(all of it in %s)",
		s.exited(), when, tail, s.logPath)
}

// tailLines and tailBytes bound the end of the server's output that an
// error quotes: enough for a traceback's last frames and its message.
const (
	tailLines = 20
	tailBytes = 8 << 10
)

// logTail is the last lines of the file at path (at most maxLines, read
// from its last maxBytes), each indented; "" when it cannot be read or
// holds nothing but the sweep's own header line.
func logTail(path string, maxLines int, maxBytes int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(info.Size()-maxBytes, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, info.Size()-off))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first line read may be cut
	}
	var out []string
	for _, l := range lines[max(len(lines)-maxLines, 0):] {
		if strings.HasPrefix(l, logHeader) || strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, "  "+l)
	}
	return strings.Join(out, "\n")
}
