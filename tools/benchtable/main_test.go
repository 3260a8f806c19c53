package main

import (
	"strings"
	"testing"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

func TestTable(t *testing.T) {
	in := `{"group":"memory","figure":"peak RSS","value":142.04,"unit":"MB","target":"<= 150 MB","met":true,"note":"client only"}

{"group":"cpu","figure":"gobench, 512 streams","value":7.456,"unit":"µs/event","target":"<= 7 µs/event","met":false,"note":"same machine"}
{"group":"cpu","figure":"bare epoll loop","value":4.9,"unit":"µs/event","target":"","met":null,"note":"same machine"}
{"group":"zeta","figure":"other","value":1234.5,"unit":"","met":null}
`
	rows, err := benchrow.Read(strings.NewReader(in), "rows.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := write(&b, rows); err != nil {
		t.Fatal(err)
	}
	// cpu before memory (the fixed order), an unknown group last; 7.456
	// and 4.9 with two decimals, 142.04 and 1234.5 with none.
	// Each note once, under the table, numbered in order of first use.
	want := `group   figure                measured       target         met  note
cpu     gobench, 512 streams  7.46 µs/event  <= 7 µs/event  NO   [1]
cpu     bare epoll loop       4.90 µs/event  -              -    [1]
memory  peak RSS              142 MB         <= 150 MB      yes  [2]
zeta    other                 1234           -              -

[1] same machine
[2] client only
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}
