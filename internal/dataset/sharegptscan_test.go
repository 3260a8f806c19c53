package dataset

import (
	"bytes"
	"testing"
)

// shareGPTScanSeeds are entries of every kind the scan takes or gives up
// on.
var shareGPTScanSeeds = []string{
	`{"id": "a", "conversations": [{"from": "human", "value": "hi\nthere"}, {"from": "gpt", "value": "hello \"you\""}]}`,
	`{"conversations": [{"value": "one"}]}`,
	`{"conversations": []}`,
	`{"conversations": [{"value": "a"}, {"value": "b"}, {"value": "c"}], "image": "x.png", "video": null}`,
	`{"conversations": [{"value": 1.5e3}, {"value": [true, false, null, {"k": -0.5}]}], "other": {"n": [1, 2, {"m": "\u00e9"}]}}`,
	`{"conversations": [{"value": "a"}, {}]}`,                                  // a turn with no value, as json.Unmarshal reads it: nil
	`{"conversati\u006fns": [{"value": "a"}, {"value": "b"}]}`,                 // an escaped key, decoded as encoding/json decodes it
	`{"Conversations": [{"value": "a"}, {"value": "b"}]}`,                      // a case-folded key: gives up
	`{"conversations": [{"Value": "a"}, {"value": "b"}]}`,                      // the same in a turn
	`{"conversations": [{"value": "a"}, {"value": "b"}], "conversations": []}`, // a field twice
	`{"conversations": [1, 2]}`,                                                // turns that are not objects
	`{"conversations": null}`,
	`{"conversations": [{"value": "a"}, {"value": "b"}]} x`, // trailing bytes
	`{"conversations": [{"value": 01}, {"value": "b"}]}`,    // an invalid number
	`[1, 2]`,
	`{"a": tru}`,
}

// TestScanShareGPTGivesUp: the entries where encoding/json and a plain
// reading could differ are left to encoding/json.
func TestScanShareGPTGivesUp(t *testing.T) {
	for _, raw := range shareGPTScanSeeds[7:] {
		if _, _, ok := scanShareGPTConversation([]byte(raw)); ok {
			t.Errorf("scanShareGPTConversation(%s) took it", raw)
		}
	}
	for _, raw := range shareGPTScanSeeds[:7] {
		if _, _, ok := scanShareGPTConversation([]byte(raw)); !ok {
			t.Errorf("scanShareGPTConversation(%s) gave up", raw)
		}
	}
}

// FuzzScanShareGPT: whatever entry the scan takes, json.Unmarshal's path
// takes without error and reads the same.
func FuzzScanShareGPT(f *testing.F) {
	for _, s := range shareGPTScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, keep, ok := scanShareGPTConversation(raw)
		if !ok || len(raw) == 0 {
			return
		}
		want, wantKeep, err := decodeShareGPTConversation(raw)
		if err != nil {
			t.Fatalf("the scan took %q, which json.Unmarshal refuses: %v", raw, err)
		}
		same := keep == wantKeep && got.media == want.media &&
			bytes.Equal(got.turns[0], want.turns[0]) && bytes.Equal(got.turns[1], want.turns[1]) &&
			bytes.Equal(got.image, want.image) && bytes.Equal(got.video, want.video) &&
			(got.image == nil) == (want.image == nil) && (got.video == nil) == (want.video == nil) &&
			(got.turns[0] == nil) == (want.turns[0] == nil) && (got.turns[1] == nil) == (want.turns[1] == nil)
		if !same {
			t.Fatalf("%q: the scan read %+v (keep %v), json.Unmarshal %+v (keep %v)", raw, got, keep, want, wantKeep)
		}
	})
}
