package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// row is one figure of `make bench`'s table (tools/benchtable's row, the
// bench row contract: group, figure, value, unit, target, met, note).
type row struct {
	Group  string  `json:"group"`
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Target string  `json:"target"`
	Met    *bool   `json:"met"`
	Note   string  `json:"note"`
}

// shared is what a note says when the server and the client share the
// machine (its 2 cores, with other work).
const shared = "simulator and client on this machine, shared with other work"

func boolp(b bool) *bool { return &b }

// appendRows appends rows to the file name as JSON lines, in one write.
func appendRows(name string, rows []row) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("-rows: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("-rows %s: %w", name, err)
	}
	return f.Close()
}
