package dataset

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
)

// vLLM's defaults of --random-mm-limit-mm-per-prompt and
// --random-mm-bucket-config, as the help shows them
// (RandomMultiModalDataset.DEFAULT_LIMIT_MM_PER_PROMPT and
// DEFAULT_MM_ITEM_BUCKET_CONFIG, vllm/benchmarks/datasets/datasets.py@11dfa3169).
const (
	DefaultMMLimits  = `{"image": 255, "video": 1}`
	DefaultMMBuckets = "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}"
)

// maxMMItemBytes bounds one synthetic item's pixels (height × width ×
// frames × 3): 1 GiB, far above vLLM's largest default (a 720×1280 image,
// 2.6 MiB), so that a typing slip fails with the flag named instead of
// exhausting memory.
const maxMMItemBytes = 1 << 30

// MMBucket is one entry of --random-mm-bucket-config: an item shape and
// its probability.
type MMBucket struct {
	Height, Width, Frames int
	Prob                  float64
}

// mmLimits is --random-mm-limit-mm-per-prompt in its order.
type mmLimits struct {
	keys []string
	vals map[string]int
}

func (l mmLimits) value(k string) (int, bool) {
	v, ok := l.vals[k]
	return v, ok
}

// keysRepr is Python's repr of the dict's keys: dict_keys(['image', 'video']).
func (l mmLimits) keysRepr() string {
	q := make([]string, len(l.keys))
	for i, k := range l.keys {
		q[i] = pyfmt.StrRepr(k)
	}
	return "dict_keys([" + strings.Join(q, ", ") + "])"
}

// parseMMLimits parses --random-mm-limit-mm-per-prompt, a JSON object of
// modality → most items per request (vLLM reads it with json.loads).
func parseMMLimits(s string) (mmLimits, error) {
	l := mmLimits{vals: map[string]int{}}
	bad := func(why string) error {
		return exitcode.Usagef("--random-mm-limit-mm-per-prompt %q: %s", s, why)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return l, bad(`expected a JSON object like {"image": 3, "video": 0}`)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return l, bad("not valid JSON")
		}
		k, _ := t.(string)
		var v json.Number
		if err := dec.Decode(&v); err != nil {
			return l, bad(fmt.Sprintf("the limit of %q must be an integer", k))
		}
		n, err := strconv.Atoi(v.String())
		if err != nil {
			return l, bad(fmt.Sprintf("the limit of %q must be an integer", k))
		}
		if _, dup := l.vals[k]; !dup {
			l.keys = append(l.keys, k)
		}
		l.vals[k] = n
	}
	if _, err := dec.Token(); err != nil {
		return l, bad("not valid JSON")
	}
	if dec.More() {
		return l, bad("extra data after the object")
	}
	return l, nil
}

// parseMMBuckets parses --random-mm-bucket-config as vLLM's
// _parse_mm_bucket_config does with ast.literal_eval: a dict whose keys
// are (height, width, frames) tuples of integers, or strings holding such
// a tuple, and whose values are numbers. A repeated key keeps its first
// place and its last value, as a Python dict does.
func parseMMBuckets(s string) ([]MMBucket, error) {
	p := &literal{s: s}
	var out []MMBucket
	index := map[[3]int]int{}
	if !p.eat('{') {
		return nil, exitcode.Usagef("--random-mm-bucket-config %q: Bucket config must parse to a dict.", s)
	}
	for !p.eat('}') {
		key, raw, err := p.bucketKey()
		if err != nil {
			return nil, exitcode.Usagef("--random-mm-bucket-config: %v", err)
		}
		if !p.eat(':') {
			return nil, exitcode.Usagef("--random-mm-bucket-config %q: expected ':' after %s", s, raw)
		}
		v, ok := p.number()
		if !ok {
			return nil, exitcode.Usagef("--random-mm-bucket-config %q: the probability of %s must be a number", s, raw)
		}
		if key[2] < 1 {
			return nil, exitcode.Usagef("--random-mm-bucket-config: Invalid multimodal item configuration: (%d, %d, %d)", key[0], key[1], key[2])
		}
		if key[0] < 1 || key[1] < 1 || key[0]*key[1]*key[2] > maxMMItemBytes/3 {
			return nil, exitcode.Usagef("--random-mm-bucket-config: item (%d, %d, %d): height and width must be at least 1 and an item at most %d bytes of pixels",
				key[0], key[1], key[2], maxMMItemBytes)
		}
		if i, dup := index[key]; dup {
			out[i].Prob = v
		} else {
			index[key] = len(out)
			out = append(out, MMBucket{Height: key[0], Width: key[1], Frames: key[2], Prob: v})
		}
		if !p.eat(',') && !p.peek('}') {
			return nil, exitcode.Usagef("--random-mm-bucket-config %q: expected ',' or '}'", s)
		}
	}
	if p.skip(); p.i != len(p.s) {
		return nil, exitcode.Usagef("--random-mm-bucket-config %q: extra text after the dict", s)
	}
	return out, nil
}

// literal scans the small part of Python's literal syntax the bucket
// config uses.
type literal struct {
	s string
	i int
}

func (p *literal) skip() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *literal) peek(c byte) bool {
	p.skip()
	return p.i < len(p.s) && p.s[p.i] == c
}

func (p *literal) eat(c byte) bool {
	if p.peek(c) {
		p.i++
		return true
	}
	return false
}

// token is the next run of characters up to a delimiter.
func (p *literal) token() string {
	p.skip()
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" \t\r\n,:(){}'\"", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *literal) number() (float64, bool) {
	t := p.token()
	if i, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64); err == nil {
		return float64(i), true
	}
	f, err := pyfmt.ParseFloat(t)
	return f, err == nil && !strings.ContainsAny(t, "nN") // nan, inf are names, not literals
}

// bucketKey reads a tuple key, or a quoted string holding one.
func (p *literal) bucketKey() ([3]int, string, error) {
	p.skip()
	start := p.i
	if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
		q := p.s[p.i]
		end := strings.IndexByte(p.s[p.i+1:], q)
		if end < 0 {
			return [3]int{}, "", fmt.Errorf("%q: unterminated string", p.s)
		}
		inner := p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		in := &literal{s: inner}
		k, err := in.tuple()
		if in.skip(); err == nil && in.i != len(inner) {
			err = fmt.Errorf("extra text")
		}
		if err != nil {
			return k, "", fmt.Errorf("Invalid bucket key %s. Expected tuple (H, W, T).", pyfmt.StrRepr(inner))
		}
		return k, p.s[start:p.i], nil
	}
	k, err := p.tuple()
	if err != nil {
		raw := p.s[start:]
		if end := strings.IndexByte(raw, ':'); end >= 0 {
			raw = raw[:end]
		}
		return k, "", fmt.Errorf("Invalid bucket key %s. Expected tuple (H, W, T).", strings.TrimSpace(raw))
	}
	return k, p.s[start:p.i], nil
}

// tuple reads (int, int, int) with an optional trailing comma.
func (p *literal) tuple() ([3]int, error) {
	var k [3]int
	if !p.eat('(') {
		p.token()
		return k, fmt.Errorf("not a tuple")
	}
	for j := range 3 {
		n, err := strconv.Atoi(strings.ReplaceAll(p.token(), "_", ""))
		if err != nil {
			return k, fmt.Errorf("not an integer")
		}
		k[j] = n
		if j < 2 && !p.eat(',') {
			return k, fmt.Errorf("not three items")
		}
	}
	p.eat(',')
	if !p.eat(')') {
		return k, fmt.Errorf("not three items")
	}
	return k, nil
}
