package sim

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gobench/gobench/internal/readlimit"
	"go.yaml.in/yaml/v3"
)

// configEntry is one "option: value" of a config file.
type configEntry struct {
	key, value string
	line       int
}

// maxConfigBytes bounds a --config file, so that a path naming a device or
// a pipe that never ends fails instead of exhausting memory: a file of
// flat options is a few hundred bytes.
const maxConfigBytes = 1 << 20

// readConfigFile gives the knobs of the config file (--config) that the
// command line did not give.
func (o *Options) readConfigFile() error {
	if o.configFile == "" {
		return nil
	}
	b, err := readlimit.File(o.configFile, maxConfigBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", o.flag("config"), err)
	}
	entries, err := parseConfigFile(b)
	if err != nil {
		return optionErrorf("%s %s: %v", o.flag("config"), o.configFile, err)
	}
	for _, e := range entries {
		name := strings.ReplaceAll(e.key, "_", "-")
		k, ok := o.knob(name)
		if !ok || name == "config" {
			return optionErrorf("%s %s line %d: unknown option %q", o.flag("config"), o.configFile, e.line, e.key)
		}
		if o.isGiven(name) {
			continue
		}
		if err := k.set(o, e.value); err != nil {
			return optionErrorf("%s %s line %d: %s: %v", o.flag("config"), o.configFile, e.line, e.key, err)
		}
		o.given[name] = e.line
	}
	return nil
}

// parseConfigFile reads a YAML config file of flat options, as
// `vllm serve --config` takes them (FlexibleArgumentParser.load_config_file
// in vllm/utils/argparse_utils.py loads the file with yaml.safe_load and
// turns each key into a flag): one "option: value" per line, values plain or quoted, "#" comments. Nested
// maps and lists are refused, since no simulator option takes one; so is
// an option given twice, spelt with dashes or underscores.
func parseConfigFile(text []byte) ([]configEntry, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line %d: a config file holds one YAML document", max(next.Line, 1))
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: expected 'option: value' lines, got %s", root.Line, nodeKind(root))
	}
	var out []configEntry
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, fmt.Errorf("line %d: expected an option name, got %s", k.Line, nodeKind(k))
		}
		switch {
		case v.Kind != yaml.ScalarNode:
			return nil, fmt.Errorf("line %d: %s: only plain values are supported, got %s", k.Line, k.Value, nodeKind(v))
		case v.ShortTag() == "!!null":
			return nil, fmt.Errorf("line %d: %s: missing value", k.Line, k.Value)
		}
		name := strings.ReplaceAll(k.Value, "_", "-")
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("line %d: %s already set on line %d", k.Line, k.Value, prev)
		}
		seen[name] = k.Line
		out = append(out, configEntry{key: k.Value, value: v.Value, line: k.Line})
	}
	return out, nil
}

// nodeKind names what a YAML node holds, for an error.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias (*" + n.Value + ")"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "a document"
}
