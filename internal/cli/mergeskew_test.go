package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/resultkey"
)

// skewShift is how far shard 1's wall clock reads ahead of shard 0's in
// TestMergeBoundsShiftedClock.
const skewShift = 250 * time.Millisecond

// TestMergeBoundsShiftedClock: two shards against one simulator (whose
// net/http server sends a Date header with every answer), shard 1's wall
// clock reading skewShift ahead (its Deps.Now): it starts skewShift early
// and its anchor says it started on time. The merge's bound of shard 1's
// timeline minus shard 0's, made from the Date changes both saw, holds
// skewShift and is far narrower than a second; --correct-skew moves shard
// 1 back by the bound's middle.
//
// The requests run for about three seconds, so both shards see two or
// three changes of the Date value. The true offset of the two timelines
// is skewShift plus the difference of the gaps between each shard's two
// reads of its anchor (wall clock, then the run's clock: well under a
// millisecond); the bound holds the true offset, so skewShift is checked
// with that millisecond of slack. The width bound (under a second) is
// about a hundred times what the shards' 30 ms between requests give.
func TestMergeBoundsShiftedClock(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 10*time.Millisecond, 2*time.Millisecond, 0)
	dir := t.TempDir()
	workload := []string{"--tokenizer", "gobench-builtin", "--dataset-name", "random", "--random-input-len", "16",
		"--random-output-len", "4", "--num-prompts", "200", "--request-rate", "66", "--burstiness", "1000",
		"--seed", "3", "--disable-tqdm"}
	ahead := func() time.Time { return time.Now().Add(skewShift) }
	files := runShardsWith(t, srv.URL, dir, workload, []func() time.Time{nil, ahead})

	merged := filepath.Join(dir, "merged.json")
	out, errOut, code := runMain(t, append(append([]string{"merge"}, files...), "-o", merged)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	low, high, shared, note := shardBound(t, merged, 1)
	if note != nil {
		t.Fatalf("no bound: %v\n%s", note, out)
	}
	const slack = 1.0 // ms: the anchors' read gaps
	want := float64(skewShift) / float64(time.Millisecond)
	if !(low-slack < want && want < high+slack) || high-low > 1000 || shared < 1 {
		t.Errorf("shard 1 − shard 0 bounded in (%.3f, %.3f) ms from %d Date changes; want %.0f ms inside, narrower than 1 s:\n%s",
			low, high, shared, want, out)
	}
	t.Logf("bound (%.3f, %.3f) ms, %.3f ms wide, from %d Date changes", low, high, high-low, shared)
	if !strings.Contains(out, "shard 1 − shard 0: between") || (low > 0) != strings.Contains(out, "excludes zero") {
		t.Errorf("merge output lacks the bound or the hint:\n%s", out)
	}

	corrected := filepath.Join(dir, "corrected.json")
	out, errOut, code = runMain(t, append(append([]string{"merge", "--correct-skew"}, files...), "-o", corrected)...)
	if code != 0 || !strings.Contains(out, "Corrected: shard 1's timeline moved by") {
		t.Fatalf("merge --correct-skew: exit %d: %s\n%s", code, errOut, out)
	}
	m := readOne(t, corrected)
	var gm struct {
		Corrected bool `json:"skew_corrected"`
		Shards    []struct {
			Correction float64 `json:"correction_ms"`
		} `json:"shards"`
	}
	raw, _ := m.Raw(resultkey.GobenchMerge)
	if err := json.Unmarshal(raw, &gm); err != nil {
		t.Fatal(err)
	}
	if !gm.Corrected || len(gm.Shards) != 2 || gm.Shards[0].Correction != 0 || !(low < gm.Shards[1].Correction && gm.Shards[1].Correction < high) {
		t.Errorf("gobench_merge after --correct-skew: %s", raw)
	}
	if _, errOut, code := runMain(t, "analyze", corrected); code != 0 {
		t.Errorf("analyze the corrected merge: exit %d: %s", code, errOut)
	}
}

// shardBound reads shard i's offset_vs_shard0_ms of a merged result, its
// Date changes and its note.
func shardBound(t *testing.T, merged string, i int) (low, high float64, shared int, note any) {
	t.Helper()
	raw, _ := readOne(t, merged).Raw(resultkey.GobenchMerge)
	var gm struct {
		Shards []struct {
			Offset  []float64 `json:"offset_vs_shard0_ms"`
			Changes int       `json:"offset_date_changes"`
			Note    any       `json:"offset_note"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(raw, &gm); err != nil || len(gm.Shards) <= i {
		t.Fatalf("gobench_merge %s: %v", raw, err)
	}
	s := gm.Shards[i]
	if s.Note != nil || len(s.Offset) != 2 {
		return 0, 0, s.Changes, s.Note
	}
	if !slices.Equal(gm.Shards[0].Offset, []float64{0, 0}) {
		t.Errorf("shard 0's offset %v, want [0 0]", gm.Shards[0].Offset)
	}
	return s.Offset[0], s.Offset[1], s.Changes, nil
}
