//go:build linux

package evloop

import (
	"errors"
	"net"
	"net/url"
	"os"

	"golang.org/x/sys/unix"
)

// This file is the loop's connections: dialing, writing a request, the
// epoll interest, and the pool of kept-alive connections.

// conn is one TCP connection.
type conn struct {
	fd  int
	key string
	// events is the epoll interest registered.
	events uint32
	// connecting: connect(2) is in progress; reused: the connection
	// carried an earlier request (a retry is allowed).
	connecting, reused bool
	call               *call
}

// fdTable finds a connection by its descriptor, the one datum epoll hands
// back: descriptors are small integers the kernel reuses lowest first, so a
// slice indexed by them is a load where a map is a hash and a probe, once
// per event.
type fdTable []*conn

// get returns fd's connection, or nil.
func (t fdTable) get(fd int) *conn {
	if fd < 0 || fd >= len(t) {
		return nil
	}
	return t[fd]
}

// set makes cn fd's connection (nil: none).
func (t *fdTable) set(fd int, cn *conn) {
	if fd >= len(*t) {
		*t = append(*t, make([]*conn, fd+1-len(*t))...)
	}
	(*t)[fd] = cn
}

// start sends cl on a kept-alive connection to its server, or a new one.
// The request's StartTime is read here, as Do reads it immediately before
// handing the request to the transport.
func (l *loop) start(cl *call) {
	cl.e = l.e
	cl.out.StartTime = l.e.c.Now()
	if pool := l.idle[cl.key]; len(pool) > 0 {
		cn := pool[len(pool)-1]
		l.idle[cl.key] = pool[:len(pool)-1]
		l.attach(cn, cl)
		l.write(cn)
		return
	}
	l.dial(cl)
}

func (l *loop) attach(cn *conn, cl *call) {
	cn.call, cl.conn = cl, cn
	cl.written, cl.gotByte, cl.inBody, cl.headBuf, cl.headSeen = 0, false, false, nil, 0
}

// dial opens a new connection for cl.
func (l *loop) dial(cl *call) {
	sa, domain := sockaddr(cl.addr)
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		l.fail(cl, l.dialError(cl, "socket", err))
		return
	}
	// As net.Dial does for TCP: small writes are not delayed.
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	cn := &conn{fd: fd, key: cl.key, connecting: true}
	err = unix.Connect(fd, sa)
	if err != nil && !errors.Is(err, unix.EINPROGRESS) {
		_ = unix.Close(fd)
		l.fail(cl, l.dialError(cl, "connect", err))
		return
	}
	cn.events = unix.EPOLLOUT
	ev := unix.EpollEvent{Events: cn.events, Fd: int32(fd)}
	if err := unix.EpollCtl(l.e.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		_ = unix.Close(fd)
		l.fail(cl, l.dialError(cl, "epoll_ctl", err))
		return
	}
	l.conns.set(fd, cn)
	l.attach(cn, cl)
}

// dialError says why a connection failed as net/http says it:
// Post "URL": dial tcp ADDR: connect: connection refused.
func (l *loop) dialError(cl *call, op string, err error) error {
	return &url.Error{Op: "Post", URL: cl.url, Err: &net.OpError{Op: "dial", Net: "tcp", Addr: cl.addr, Err: os.NewSyscallError(op, err)}}
}

func sockaddr(a *net.TCPAddr) (unix.Sockaddr, int) {
	if ip4 := a.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], ip4)
		return sa, unix.AF_INET
	}
	sa := &unix.SockaddrInet6{Port: a.Port}
	copy(sa.Addr[:], a.IP.To16())
	return sa, unix.AF_INET6
}

// interest sets cn's epoll interest.
func (l *loop) interest(cn *conn, events uint32) {
	if cn.events == events {
		return
	}
	cn.events = events
	ev := unix.EpollEvent{Events: events, Fd: int32(cn.fd)}
	_ = unix.EpollCtl(l.e.epfd, unix.EPOLL_CTL_MOD, cn.fd, &ev)
}

// write sends what is left of the request.
func (l *loop) write(cn *conn) {
	cl := cn.call
	for cl.written < len(cl.wire) {
		// MSG_NOSIGNAL: a peer that closed gives EPIPE, not SIGPIPE.
		n, err := unix.SendmsgN(cn.fd, cl.wire[cl.written:], nil, nil, unix.MSG_NOSIGNAL)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) {
				l.interest(cn, unix.EPOLLIN|unix.EPOLLOUT)
				return
			}
			l.broken(cn, os.NewSyscallError("write", err))
			return
		}
		cl.written += n
	}
	l.interest(cn, unix.EPOLLIN)
}

// release keeps cn for the next request to its server.
func (l *loop) release(cn *conn) {
	cn.call, cn.reused = nil, true
	l.interest(cn, unix.EPOLLIN)
	l.idle[cn.key] = append(l.idle[cn.key], cn)
}

// dropIdle closes an idle connection the server closed.
func (l *loop) dropIdle(cn *conn) {
	pool := l.idle[cn.key]
	for i, c := range pool {
		if c == cn {
			l.idle[cn.key] = append(pool[:i], pool[i+1:]...)
			break
		}
	}
	l.close(cn)
}

// close closes cn; its request, if any, is its caller's to end.
func (l *loop) close(cn *conn) {
	if l.conns.get(cn.fd) != cn {
		return
	}
	l.conns.set(cn.fd, nil)
	_ = unix.EpollCtl(l.e.epfd, unix.EPOLL_CTL_DEL, cn.fd, nil)
	_ = unix.Close(cn.fd)
	if cl := cn.call; cl != nil && cl.conn == cn {
		cl.conn = nil
	}
	cn.call = nil
}
