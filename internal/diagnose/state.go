package diagnose

import (
	"math"
	"sort"
	"strconv"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// State is the server's state gauges at one moment, summed over its
// sources and engines: requests running and waiting, and the KV-cache
// usage as the mean and the highest of the engines (each engine has its own
// cache, and one full engine preempts however empty the others are). NaN
// is a gauge the server does not have.
type State struct {
	// At is the time of the scrape, in seconds from the window's start.
	At               float64
	Running, Waiting float64
	KVMean, KVMax    float64
	// Preemptions is the server's preemption counter at the scrape (since
	// it started; NaN when it publishes none): the difference between two
	// samples is the preemptions between them.
	Preemptions float64
}

// ReadState reads the state gauges of a scrape (already narrowed to the
// model) taken at seconds from the window's start, by the names of the
// engine its metrics show (servermetrics.Detect).
func ReadState(s *sm.Scrape, at float64) State { return readState(s, sm.Detect(s), at) }

// readState reads the state gauges of s by e's names: running, waiting,
// the KV-cache usage (or the used share of the engine's token budget) and
// the preemption counter.
func readState(s *sm.Scrape, e sm.Engine, at float64) State {
	st := State{At: at, Running: math.NaN(), Waiting: math.NaN(), KVMean: math.NaN(), KVMax: math.NaN(), Preemptions: math.NaN()}
	if g, ok := gauge(s, e.Running); ok {
		st.Running = g.Sum
	}
	if g, ok := gauge(s, e.Waiting); ok {
		st.Waiting = g.Sum
	}
	if g, ok := gauge(s, e.KVUsage); ok {
		st.KVMean, st.KVMax = g.Mean, g.Max
	} else if used, ok := gauge(s, e.KVUsed); ok {
		if total, ok := gauge(s, e.KVCapacity); ok {
			st.KVMean = div(used.Sum, total.Sum)
			st.KVMax = st.KVMean
		}
	}
	if v, ok := counter(s, e.Preemptions); ok {
		st.Preemptions = v
	}
	return st
}

// gauge is the gauge name of s; not ok when name is "" or absent.
func gauge(s *sm.Scrape, name string) (sm.GaugeValue, bool) {
	if name == "" {
		return sm.GaugeValue{}, false
	}
	return s.Gauge(name)
}

// Gauges are the state at the end of the window, its peaks over every
// state sampled in the window, and the server's configuration as its info
// metrics publish it.
type Gauges struct {
	// End is the state when the window ended.
	End State
	// WaitingByReason splits the end's waiting requests (capacity,
	// deferred); nil when the server does not publish it.
	WaitingByReason map[string]float64
	// Swapped is V0's requests swapped to CPU at the end; NaN without.
	Swapped float64
	// Engines is the number of engines (series of the running gauge over
	// all sources).
	Engines int
	// Peak holds the highest running, waiting and KV usage (KVMean is
	// then the highest mean) over Samples states; Samples counts them.
	Peak    State
	Samples int
	// CacheConfig is vllm:cache_config_info's labels (the first source's).
	CacheConfig map[string]string
	// MaxNumSeqs is a max_num_seqs label of any info metric (vLLM
	// publishes none today; a fork or a later version may), and InfoName
	// the metric it came from; 0 when none has it.
	MaxNumSeqs int
	InfoName   string
}

// gauges reads the gauges of the window's end and the peaks over states.
func gauges(end *sm.Scrape, e sm.Engine, states []State) Gauges {
	g := Gauges{End: readState(end, e, math.NaN()), Swapped: math.NaN()}
	if e.WaitingByReason != "" {
		g.WaitingByReason = end.GaugeBy(e.WaitingByReason, "reason")
	}
	if r, ok := gauge(end, e.Running); ok {
		g.Engines = r.N
	}
	if sw, ok := gauge(end, e.Swapped); ok {
		g.Swapped = sw.Sum
	}
	if infos := end.Infos(e.CacheConfig); e.CacheConfig != "" && len(infos) > 0 {
		g.CacheConfig = infos[0]
	}
	g.MaxNumSeqs, g.InfoName = infoMaxNumSeqs(end)
	g.Peak = State{At: math.NaN(), Running: math.NaN(), Waiting: math.NaN(), KVMean: math.NaN(), KVMax: math.NaN()}
	for _, s := range states {
		g.Peak.Running = maxKnown(g.Peak.Running, s.Running)
		g.Peak.Waiting = maxKnown(g.Peak.Waiting, s.Waiting)
		g.Peak.KVMean = maxKnown(g.Peak.KVMean, s.KVMean)
		g.Peak.KVMax = maxKnown(g.Peak.KVMax, s.KVMax)
	}
	g.Samples = len(states)
	return g
}

// infoMaxNumSeqs finds a max_num_seqs label on an info metric (a family
// whose name ends in _info).
func infoMaxNumSeqs(s *sm.Scrape) (int, string) {
	for _, name := range s.Names() {
		if !strings.HasSuffix(name, "_info") {
			continue
		}
		for _, labels := range s.Infos(name) {
			if n, err := strconv.Atoi(labels["max_num_seqs"]); err == nil && n > 0 {
				return n, name
			}
		}
	}
	return 0, ""
}

// maxKnown is the larger of a and b, ignoring NaN.
func maxKnown(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
