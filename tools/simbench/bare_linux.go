package main

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// bareConn is one keep-alive connection of the bare loop.
type bareConn struct {
	fd int
	// head: the status line is still to come; tail: the stream's last
	// bytes, where the end of a chunked body shows.
	head   bool
	tail   [len(chunkedEnd)]byte
	events eventCounter
}

// chunkedEnd ends a chunked body: the last chunk's CRLF, the zero-length
// chunk and the empty trailer.
const chunkedEnd = "\r\n0\r\n\r\n"

// readBare reads the streams with one thread, one level-triggered epoll
// set and raw non-blocking sockets: one read(2) per readiness, no parsing
// beyond the status code and the end of each chunked body. It is the floor
// a client on this kernel cannot go below.
func readBare(j readerJob) (events int, err error) {
	runtime.LockOSThread()
	ap, req, err := loopRequests(j)
	if err != nil || j.dry {
		return 0, err
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return 0, err
	}
	b := &bareLoop{ep: ep, addr: ap, c: j.c, conns: map[int]*bareConn{}, buf: make([]byte, 16<<10)}
	defer func() { _ = unix.Close(ep); b.closeConns() }()
	warm := make([]time.Duration, j.c) // the warm-ups, all at once, as gobench's: request 0
	if err := b.run(warm, func(int) []byte { return req(j.id(0)) }); err != nil {
		return 0, err
	}
	err = b.run(j.offsets(), func(i int) []byte { return req(j.id(i)) })
	return b.events, err
}

// loopRequests returns the server's address and the request with a given
// x-request-id, as the loop readers send them.
func loopRequests(j readerJob) (netip.AddrPort, func(id string) []byte, error) {
	u, err := url.Parse(j.url)
	if err != nil {
		return netip.AddrPort{}, nil, err
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		return netip.AddrPort{}, nil, fmt.Errorf("the loop readers need an IP:port base URL: %w", err)
	}
	head := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Request-Id: ",
		u.Host, len(j.body))
	return ap, func(id string) []byte {
		return append(append(append([]byte(head), id...), "\r\n\r\n"...), j.body...)
	}, nil
}

// bareLoop is the bare reader's state.
type bareLoop struct {
	ep       int
	addr     netip.AddrPort
	c        int
	events   int
	conns    map[int]*bareConn
	idle     []*bareConn
	inflight int
	buf      []byte
}

// run sends a request at each offset (at most c at a time) and reads the
// streams until every one has ended.
func (b *bareLoop) run(offsets []time.Duration, req func(i int) []byte) error {
	events := make([]unix.EpollEvent, 256)
	return b.pace(offsets, req, func(r []byte) error { return b.send(r, b.watch) }, func(timeout time.Duration) error {
		ms := -1
		if timeout >= 0 {
			ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := unix.EpollWait(b.ep, events, ms)
		if errors.Is(err, unix.EINTR) {
			return nil
		} else if err != nil {
			return err
		}
		for _, ev := range events[:n] {
			if err := b.read(b.conns[int(ev.Fd)]); err != nil {
				return err
			}
		}
		return nil
	})
}

// pace is a loop reader's loop: it sends a request at each offset with
// send (at most c at a time) and calls wait, with how long until the next
// request is due (negative: no bound), until every stream has ended.
func (b *bareLoop) pace(offsets []time.Duration, req func(i int) []byte, send func([]byte) error, wait func(time.Duration) error) error {
	start, i := time.Now(), 0
	yielded := start
	for {
		// As gobench's epoll engine does (see internal/evloop's run): a
		// loop that is never rescheduled keeps the runtime's sysmon
		// preempting it every 10 ms and waking every 20 µs; a yield every
		// 5 ms spares both, and the floor should not carry that cost.
		if time.Since(yielded) >= 5*time.Millisecond {
			runtime.Gosched()
			yielded = time.Now()
		}
		for i < len(offsets) && b.inflight < b.c && time.Since(start) >= offsets[i] {
			if err := send(req(i)); err != nil {
				return err
			}
			i++
		}
		if i == len(offsets) && b.inflight == 0 {
			return nil
		}
		timeout := time.Duration(-1)
		if i < len(offsets) && b.inflight < b.c {
			timeout = max(0, time.Until(start.Add(offsets[i])))
		}
		if err := wait(timeout); err != nil {
			return err
		}
	}
}

// closeConns closes every connection.
func (b *bareLoop) closeConns() {
	for fd := range b.conns {
		_ = unix.Close(fd)
	}
}

// send writes the request on an idle connection or a new one, which arm
// hands to the loop's wait (epoll's set, io_uring's receive).
func (b *bareLoop) send(req []byte, arm func(fd int) error) error {
	var c *bareConn
	if k := len(b.idle); k > 0 {
		c, b.idle = b.idle[k-1], b.idle[:k-1]
	} else {
		fd, err := b.dial()
		if err != nil {
			return err
		}
		c = &bareConn{fd: fd}
		b.conns[fd] = c // closeConns closes it, armed or not
		if err := arm(fd); err != nil {
			return err
		}
	}
	return b.write(c, req)
}

// watch adds fd to the epoll set.
func (b *bareLoop) watch(fd int) error {
	return unix.EpollCtl(b.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
}

// dial connects a new non-blocking socket to the server.
func (b *bareLoop) dial() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: int(b.addr.Port()), Addr: b.addr.Addr().As4()}); err != nil {
		_ = unix.Close(fd)
		return 0, fmt.Errorf("connect: %w", err)
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // as Go's net does
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return 0, err
	}
	return fd, nil
}

// write sends req on c, which then carries a request.
func (b *bareLoop) write(c *bareConn, req []byte) error {
	if n, err := unix.Write(c.fd, req); err != nil || n != len(req) {
		return fmt.Errorf("write the request: %d of %d bytes: %v", n, len(req), err)
	}
	c.head, c.tail = true, [len(chunkedEnd)]byte{}
	b.inflight++
	return nil
}

// read takes what one ready connection holds, in one read(2).
func (b *bareLoop) read(c *bareConn) error {
	n, err := unix.Read(c.fd, b.buf)
	switch {
	case errors.Is(err, unix.EAGAIN):
		return nil
	case err != nil:
		return fmt.Errorf("read: %w", err)
	case n == 0:
		return errors.New("the simulator closed a connection")
	}
	return b.take(c, b.buf[:n])
}

// take counts p, the next bytes of c's stream.
func (b *bareLoop) take(c *bareConn, p []byte) error {
	n := len(p)
	if c.head {
		if len(p) < 12 || string(p[:12]) != "HTTP/1.1 200" {
			return fmt.Errorf("the simulator answered %q", p[:min(len(p), 40)])
		}
		c.head = false
	}
	if k := len(c.tail); n >= k {
		copy(c.tail[:], p[n-k:])
	} else {
		copy(c.tail[:], c.tail[n:])
		copy(c.tail[k-n:], p)
	}
	c.events.add(p)
	if string(c.tail[:]) == chunkedEnd {
		b.events += c.events.n
		c.events = eventCounter{}
		b.inflight--
		b.idle = append(b.idle, c)
	}
	return nil
}
