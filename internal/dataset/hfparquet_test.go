package dataset

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
)

type pqTurn struct {
	From  string `parquet:"from"`
	Value string `parquet:"value"`
}

type pqConversation struct {
	ID            string   `parquet:"id"`
	Conversations []pqTurn `parquet:"conversations,list"`
}

// readConversations reads a JSON Lines file of ShareGPT rows.
func readConversations(t *testing.T, path string) []pqConversation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []pqConversation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r pqConversation
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestHFParquetEqualsJSONLines: the golden ShareGPT shards written as
// Parquet (nested list of structs, as the Hub stores them) give the same
// samples as the JSON Lines the golden was made from, for the streaming
// shuffle and --no-stream.
func TestHFParquetEqualsJSONLines(t *testing.T) {
	t.Parallel()
	src := filepath.Join("testdata", "hf", "sharegpt", "data")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		name := "train-0000" + strconv.Itoa(k) + "-of-00003"
		rows := readConversations(t, filepath.Join(src, name+".jsonl"))
		f, err := os.Create(filepath.Join(dir, "data", name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewGenericWriter[pqConversation](f, parquet.MaxRowsPerRowGroup(300))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []hfCase{{Seed: 0, NumPrompts: 2200}, {Seed: 3, NumPrompts: 40, NoStream: true}} {
		c.HFName, c.Split, c.MaxDistance = "Aeala/ShareGPT_Vicuna_unfiltered", "train", 1
		want, err := Load(c.options(filepath.Join("testdata", "hf", "sharegpt")), chatFake{newFake()}, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Load(c.options(dir), chatFake{newFake()}, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(toGolden(want), toGolden(got)); diff != "" {
			t.Errorf("seed %d (-jsonl +parquet):\n%s", c.Seed, diff)
		}
	}
}

// TestHFCSV: a CSV copy of the Blazedit rows (numbers as text) gives the
// golden's samples.
func TestHFCSV(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "hf", "blazedit", "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	path := filepath.Join(t.TempDir(), "train.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	_ = w.Write([]string{"code", "change_request", "norm_distance"})
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		_ = w.Write([]string{m["code"].(string), m["change_request"].(string), strconv.FormatFloat(m["norm_distance"].(float64), 'g', -1, 64)})
	}
	w.Flush()
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	var cases []hfCase
	readJSON(t, filepath.Join("hf", "hf_golden.json"), &cases)
	n := 0
	for _, c := range cases {
		if c.Dir != "blazedit" {
			continue
		}
		n++
		got, err := Load(c.options(path), chatFake{newFake()}, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(compactJSON(t, c.Samples), toHFGolden(t, got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
	}
	if n == 0 {
		t.Fatal("no blazedit case")
	}
}
