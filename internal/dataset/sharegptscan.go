package dataset

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/gobench/gobench/internal/jsonscan"
)

// errGiveUp stops a scan where encoding/json must decide.
var errGiveUp = errors.New("left to encoding/json")

// scanShareGPTConversation is shareGPTConversation for the entries it
// understands, by jsonscan instead of json.Unmarshal, which scans every
// byte of a conversation twice (validating, then decoding) and took a
// third of sharegpt's generation time. It validates the entry as strictly
// as json.Unmarshal does and reads the same fields, and gives up (ok false,
// and the caller takes json.Unmarshal's path) wherever the two could
// differ: a key that matches a field only when case is ignored (which
// encoding/json accepts), a field given twice, a conversation turn that is
// not an object, a "conversations" that is not a list. FuzzScanShareGPT
// compares the two paths.
func scanShareGPTConversation(raw []byte) (e shareGPTEntry, keep, ok bool) {
	s := jsonscan.New(raw)
	var turns [2][]byte
	var image, video []byte
	n := 0
	var seen [3]bool
	err := s.Object(func(key []byte) error {
		f := shareGPTField(key, "conversations", "image", "video")
		switch {
		case f == fieldOther:
			return s.Skip()
		case f == fieldFolded || seen[f]:
			return errGiveUp
		}
		seen[f] = true
		var err error
		switch f {
		case 0:
			n, err = scanTurns(s, &turns)
		case 1:
			image, err = s.SkipRaw()
		default:
			video, err = s.SkipRaw()
		}
		return err
	})
	if err != nil || s.End() != nil {
		return e, false, false
	}
	if n < 2 {
		return e, false, true
	}
	e.turns = [2]json.RawMessage{bytes.Clone(turns[0]), bytes.Clone(turns[1])}
	e.image, e.video = bytes.Clone(image), bytes.Clone(video)
	e.media = !isNull(e.image) || !isNull(e.video)
	return e, true, true
}

// shareGPTField's answers besides an index of names.
const (
	fieldOther  = -1 // none of names, even ignoring case
	fieldFolded = -2 // one of names only when case is ignored
)

// shareGPTField returns the index of key in names, or fieldFolded when key
// is one of them only when case is ignored (encoding/json matches struct
// fields so), or fieldOther.
func shareGPTField(key []byte, names ...string) int {
	for i, f := range names {
		if string(key) == f {
			return i
		}
		if bytes.EqualFold(key, []byte(f)) {
			return fieldFolded
		}
	}
	return fieldOther
}

// scanTurns scans the "conversations" list, keeping the "value" of its
// first two turns in turns (nil when a turn has none), and returns the
// number of turns.
func scanTurns(s *jsonscan.Scanner, turns *[2][]byte) (int, error) {
	if s.Peek() != '[' {
		return 0, errGiveUp
	}
	n := 0
	err := s.Array(func(k int) error {
		n = k + 1
		if s.Peek() != '{' {
			return errGiveUp
		}
		seen := false
		return s.Object(func(key []byte) error {
			switch f := shareGPTField(key, "value"); {
			case f == fieldOther:
				return s.Skip()
			case f == fieldFolded || seen:
				return errGiveUp
			}
			seen = true
			v, err := s.SkipRaw()
			if k < 2 {
				turns[k] = v
			}
			return err
		})
	})
	return n, err
}
