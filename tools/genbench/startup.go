package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// startup runs `gobench serve --num-prompts 1` against an in-process
// simulator runs times and returns the median time from starting the
// process to the simulator receiving the first completion request.
func startup(bin, tok string, runs int) (time.Duration, error) {
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		return 0, fmt.Errorf("simulator: %w", err)
	}
	var mu sync.Mutex
	var first time.Time
	h := s.Handler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("simulator: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Shutdown(context.Background()) }()
	base := "http://" + ln.Addr().String()
	var times []time.Duration
	for range max(1, runs) {
		mu.Lock()
		first = time.Time{}
		mu.Unlock()
		cmd := exec.Command(bin, "serve", "--base-url", base, "--model", "gobench/sim", "--tokenizer", tok,
			"--dataset-name", "random", "--num-prompts", "1", "--random-input-len", "1024", "--random-output-len", "4",
			"--disable-tqdm", "--seed", "1")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%s serve --tokenizer %s: %w", bin, tok, err)
		}
		mu.Lock()
		f := first
		mu.Unlock()
		if f.IsZero() {
			return 0, errors.New("the serve process sent no completion request")
		}
		times = append(times, f.Sub(start))
	}
	return median(times), nil
}
