package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/sim"
)

// TestSimulatorPageListsEveryScenario: docs/simulator.md's table of
// scenarios gives each scenario preset (with its older names), the verdict
// it reproduces and the very load the preset documents and the scenario
// tests run.
func TestSimulatorPageListsEveryScenario(t *testing.T) {
	page := filepath.Join(root(t), "docs", "simulator.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sim.Presets() {
		if p.Verdict == "" {
			continue
		}
		name := "`" + p.Name + "`"
		for _, a := range p.Aliases {
			name += " (`" + a + "`)"
		}
		row := "| " + name + " | `" + p.Verdict + "` | `" + p.LoadArgs() + "` |"
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/simulator.md lacks the row\n%s", row)
		}
	}
}
