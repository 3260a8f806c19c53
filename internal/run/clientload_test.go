package run

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
)

// TestScheduleLagWarning runs the same load twice against the simulator
// with --schedule-lag-warn-ms 300: once with the dispatcher held 600 ms
// before it releases the first request (every request is due at 0, so
// each leaves at least 600 ms late), once as it is. The warning fires in
// the first run and not in the second, whose lag is the machine's few
// milliseconds; no threshold near a real lag is asserted.
func TestScheduleLagWarning(t *testing.T) {
	t.Parallel()
	srv := startSim(t, 5*time.Millisecond, 100*time.Microsecond)
	const hold = 600 * time.Millisecond
	for _, late := range []bool{true, false} {
		o := baseOptions(srv.URL)
		o.ScheduleLagWarnMS = 300
		o.NumPrompts = 100 // report.GobenchMinRequests: the section is drawn
		o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, t.TempDir()
		var b buffers
		p, err := NewPlan(context.Background(), o, b.env())
		if err != nil {
			t.Fatal(err)
		}
		if late {
			p.hold = func(i int) {
				if i == 0 {
					time.Sleep(hold)
				}
			}
		}
		res, err := p.Execute(context.Background(), b.env())
		if err != nil {
			t.Fatal(err)
		}
		saved := readResult(t, res.File)
		lags := toFloats(saved["schedule_lags"])
		if len(lags) != o.NumPrompts {
			t.Fatalf("late %v: %d schedule_lags, want %d", late, len(lags), o.NumPrompts)
		}
		client, _ := saved["gobench_client"].(map[string]any)
		warned := strings.Contains(b.err.String(), "the client may have been the bottleneck")
		if late {
			for i, l := range lags {
				if l < hold.Seconds() {
					t.Errorf("request %d left %v s late, want at least %v", i, l, hold.Seconds())
				}
			}
		}
		if warned != late || client["client_may_be_bottleneck"] != late {
			t.Errorf("late %v: warned %v, client_may_be_bottleneck %v (gobench_client %v)\n%s", late, warned,
				client["client_may_be_bottleneck"], client, b.err.String())
		}
		if !strings.Contains(b.out.String(), "Client: schedule lag p99 ") {
			t.Errorf("late %v: no client section after the block:\n%s", late, b.out.String())
		}
	}
}

// TestScheduleLagWarnFlag: a negative or NaN threshold is a usage error
// naming the flag.
func TestScheduleLagWarnFlag(t *testing.T) {
	t.Parallel()
	o := baseOptions("http://127.0.0.1:1")
	o.ScheduleLagWarnMS = -1
	err := o.Validate()
	var ue *exitcode.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--schedule-lag-warn-ms") {
		t.Errorf("Validate() = %v, want a usage error naming --schedule-lag-warn-ms", err)
	}
}
