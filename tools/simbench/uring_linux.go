package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI this reader uses (include/uapi/linux/io_uring.h).
const (
	uringSetupCQSize       = 1 << 3
	uringSetupSubmitAll    = 1 << 7
	uringSetupSingleIssuer = 1 << 12
	uringSetupDeferTaskrun = 1 << 13
	uringFeatSingleMmap    = 1 << 0
	uringFeatExtArg        = 1 << 8
	uringOffSQRing         = 0
	uringOffSQEs           = 0x10000000
	uringEnterGetEvents    = 1 << 0
	uringEnterExtArg       = 1 << 3
	uringOpRecv            = 27
	uringRecvMultishot     = 1 << 1
	uringSQEBufferSelect   = 1 << 5
	uringCQEFBuffer        = 1 << 0
	uringCQEFMore          = 1 << 1
	uringRegisterPbufRing  = 22
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// uringSQE is struct io_uring_sqe (64 bytes).
type uringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off, addr     uint64
	len, opFlags  uint32
	userData      uint64
	bufGroup      uint16
	personality   uint16
	spliceFdIn    int32
	addr3, pad    uint64
}

// uringCQE is struct io_uring_cqe (16 bytes).
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// uringBuf is struct io_uring_buf: one entry of a provided-buffer ring.
type uringBuf struct {
	addr uint64
	len  uint32
	bid  uint16
	tail uint16 // the ring's tail, in entry 0 only
}

// uringGetEventsArg is struct io_uring_getevents_arg.
type uringGetEventsArg struct {
	sigmask     uint64
	sigmaskSz   uint32
	minWaitUsec uint32
	ts          uint64
}

// uringRing is one io_uring instance with a ring of provided buffers.
type uringRing struct {
	fd             int
	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []uringSQE
	toSubmit       uint32
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []uringCQE
	// maps are the rings' mappings, unmapped by close.
	maps [][]byte
	// ts and arg are enter's wait bound, passed to the kernel by address:
	// in the heap, where they do not move (a goroutine's stack can).
	ts  unix.Timespec
	arg uringGetEventsArg

	bufs    []uringBuf
	bufMem  []byte
	bufSize int
	bufTail uint16
	bufMask uint16
}

const (
	uringBufGroup = 1
	uringNumBufs  = 256
	uringBufSize  = 4 << 10
)

// newUringRing sets up a ring for one thread (SINGLE_ISSUER: the caller
// must be locked to its thread) whose completions are taken only when it
// waits (DEFER_TASKRUN), with uringNumBufs provided buffers.
func newUringRing() (_ *uringRing, err error) {
	p := uringParams{flags: uringSetupCQSize | uringSetupSubmitAll | uringSetupSingleIssuer | uringSetupDeferTaskrun, cqEntries: 8192}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 256, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %w", errNoUring, errno)
	}
	r := &uringRing{fd: int(fd)}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if p.features&uringFeatSingleMmap == 0 || p.features&uringFeatExtArg == 0 {
		return nil, fmt.Errorf("%w: the kernel lacks IORING_FEAT_SINGLE_MMAP or IORING_FEAT_EXT_ARG", errNoUring)
	}
	size := max(int(p.sqOff.array)+int(p.sqEntries)*4, int(p.cqOff.cqes)+int(p.cqEntries)*16)
	ring, err := unix.Mmap(r.fd, uringOffSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap the rings: %w", err)
	}
	sqesMem, err := unix.Mmap(r.fd, uringOffSQEs, int(p.sqEntries)*64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap the SQEs: %w", err)
	}
	r.maps = append(r.maps, ring, sqesMem)
	at := func(off uint32) unsafe.Pointer { return unsafe.Pointer(&ring[off]) }
	r.sqHead, r.sqTail = (*uint32)(at(p.sqOff.head)), (*uint32)(at(p.sqOff.tail))
	r.sqMask = *(*uint32)(at(p.sqOff.ringMask))
	r.sqArray = unsafe.Slice((*uint32)(at(p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&sqesMem[0])), p.sqEntries)
	r.cqHead, r.cqTail = (*uint32)(at(p.cqOff.head)), (*uint32)(at(p.cqOff.tail))
	r.cqMask = *(*uint32)(at(p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*uringCQE)(at(p.cqOff.cqes)), p.cqEntries)

	// The provided buffers: a page-aligned ring of uringNumBufs entries,
	// each a uringBufSize slice of bufMem.
	ringMem, err := unix.Mmap(-1, 0, uringNumBufs*16, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, err
	}
	r.maps = append(r.maps, ringMem)
	r.bufs = unsafe.Slice((*uringBuf)(unsafe.Pointer(&ringMem[0])), uringNumBufs)
	r.bufMem = make([]byte, uringNumBufs*uringBufSize)
	r.bufSize, r.bufMask = uringBufSize, uringNumBufs-1
	reg := struct {
		ringAddr    uint64
		ringEntries uint32
		bgid, flags uint16
		resv        [3]uint64
	}{ringAddr: uint64(uintptr(unsafe.Pointer(&ringMem[0]))), ringEntries: uringNumBufs, bgid: uringBufGroup}
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); errno != 0 {
		return nil, fmt.Errorf("%w: register the buffer ring: %w", errNoUring, errno)
	}
	for i := range uringNumBufs {
		r.giveBack(uint16(i))
	}
	r.publishBufs()
	return r, nil
}

// close ends the ring (and with it every receive) and unmaps its memory.
func (r *uringRing) close() {
	_ = unix.Close(r.fd)
	for _, m := range r.maps {
		_ = unix.Munmap(m)
	}
}

// giveBack returns buffer bid to the kernel (seen at the next publishBufs).
func (r *uringRing) giveBack(bid uint16) {
	b := &r.bufs[r.bufTail&r.bufMask]
	b.addr = uint64(uintptr(unsafe.Pointer(&r.bufMem[int(bid)*r.bufSize])))
	b.len = uint32(r.bufSize)
	b.bid = bid
	r.bufTail++
}

// publishBufs makes the buffers given back visible to the kernel.
func (r *uringRing) publishBufs() {
	// The tail shares a 32-bit word with entry 0's bid.
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&r.bufs[0].bid)), uint32(r.bufs[0].bid)|uint32(r.bufTail)<<16)
}

// recv queues a multishot receive on fd into the provided buffers.
func (r *uringRing) recv(fd int) error {
	if r.toSubmit == uint32(len(r.sqes)) {
		n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.toSubmit), 0, 0, 0, 0)
		if errno != 0 {
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
		r.toSubmit -= uint32(n)
	}
	tail := *r.sqTail
	i := tail & r.sqMask
	r.sqes[i] = uringSQE{opcode: uringOpRecv, flags: uringSQEBufferSelect, ioprio: uringRecvMultishot, fd: int32(fd),
		userData: uint64(fd), bufGroup: uringBufGroup}
	r.sqArray[i] = i
	atomic.StoreUint32(r.sqTail, tail+1)
	r.toSubmit++
	return nil
}

// enter submits what is queued and waits for at least one completion, at
// most timeout (negative: no bound).
func (r *uringRing) enter(timeout time.Duration) error {
	flags := uintptr(uringEnterGetEvents)
	var argp, argsz uintptr
	if timeout >= 0 {
		r.ts = unix.NsecToTimespec(int64(timeout))
		r.arg = uringGetEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
		flags |= uringEnterExtArg
		argp, argsz = uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg)
	}
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.toSubmit), 1, flags, argp, argsz)
	if errno != 0 && errno != unix.ETIME && errno != unix.EINTR {
		return fmt.Errorf("io_uring_enter: %w", errno)
	}
	if errno == 0 {
		r.toSubmit -= uint32(n)
	}
	return nil
}

// readUring reads the streams as readBare does, with io_uring instead of
// epoll and read(2): one multishot receive per connection into a ring of
// provided buffers, and one io_uring_enter per wait instead of an
// epoll_wait plus a read(2) per ready connection.
func readUring(j readerJob) (events int, err error) {
	runtime.LockOSThread()
	ap, req, err := loopRequests(j)
	if err != nil || j.dry {
		return 0, err
	}
	r, err := newUringRing()
	if err != nil {
		return 0, err
	}
	b := &uringLoop{r: r, bare: bareLoop{addr: ap, c: j.c, conns: map[int]*bareConn{}}}
	defer func() {
		// Closing the ring first ends its receives, which hold the sockets.
		r.close()
		b.bare.closeConns()
	}()
	warm := make([]time.Duration, j.c)
	if err := b.run(warm, func(int) []byte { return req(j.id(0)) }); err != nil {
		return 0, err
	}
	err = b.run(j.offsets(), func(i int) []byte { return req(j.id(i)) })
	return b.bare.events, err
}

// uringLoop is the uring reader's state; the bare loop's keeps the
// connections and the counts.
type uringLoop struct {
	r    *uringRing
	bare bareLoop
}

// run is bareLoop's run on the ring.
func (b *uringLoop) run(offsets []time.Duration, req func(i int) []byte) error {
	return b.bare.pace(offsets, req, b.send, b.wait)
}

// wait waits for completions (at most timeout, if not negative) and takes
// them.
func (b *uringLoop) wait(timeout time.Duration) error {
	if err := b.r.enter(timeout); err != nil {
		return err
	}
	head, tail := *b.r.cqHead, atomic.LoadUint32(b.r.cqTail)
	for ; head != tail; head++ {
		cqe := b.r.cqes[head&b.r.cqMask]
		fd := int(cqe.userData)
		c := b.bare.conns[fd]
		if cqe.flags&uringCQEFMore == 0 {
			// The multishot receive ended: arm it again.
			if err := b.r.recv(fd); err != nil {
				return err
			}
		}
		if cqe.res == -int32(unix.ENOBUFS) {
			continue
		}
		if cqe.res < 0 {
			return fmt.Errorf("recv: %w", unix.Errno(-cqe.res))
		}
		if cqe.res == 0 {
			return errors.New("the simulator closed a connection")
		}
		bid := uint16(cqe.flags >> 16)
		p := b.r.bufMem[int(bid)*b.r.bufSize:][:cqe.res]
		if err := b.bare.take(c, p); err != nil {
			return err
		}
		b.r.giveBack(bid)
	}
	atomic.StoreUint32(b.r.cqHead, head)
	b.r.publishBufs()
	return nil
}

// send writes the request on an idle connection or a new one, which gets
// its multishot receive.
func (b *uringLoop) send(req []byte) error { return b.bare.send(req, b.r.recv) }
