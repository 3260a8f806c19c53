package cli

import (
	"fmt"
	"strings"
)

// simConfigEntry is one "option: value" line of a simulator config file.
type simConfigEntry struct {
	key, value string
	line       int
}

// parseSimConfig reads the subset of YAML that `vllm serve --config` files
// use for flat options: one "key: value" per line, "#" comments, blank
// lines, values plain or in single or double quotes. Nested maps and lists
// are refused, since no simulator option takes one.
func parseSimConfig(text string) ([]simConfigEntry, error) {
	var out []simConfigEntry
	seen := map[string]int{}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimRight(raw, " \t\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") || t == "---" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, fmt.Errorf("line %d: nested values are not supported: %q", n, line)
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: expected 'option: value', got %q", n, line)
		}
		key = strings.TrimSpace(key)
		if key == "" || strings.ContainsAny(key, " \t\"'") {
			return nil, fmt.Errorf("line %d: invalid option name %q", n, key)
		}
		v, err := yamlScalar(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: %s already set on line %d", n, key, prev)
		}
		seen[key] = n
		out = append(out, simConfigEntry{key: key, value: v, line: n})
	}
	return out, nil
}

// yamlScalar unquotes a scalar and drops a trailing comment.
func yamlScalar(v string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("missing value")
	}
	switch v[0] {
	case '"', '\'':
		q := v[0]
		end := strings.IndexByte(v[1:], q)
		if end < 0 {
			return "", fmt.Errorf("unterminated quote in %s", v)
		}
		inner, rest := v[1:1+end], strings.TrimSpace(v[2+end:])
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return "", fmt.Errorf("unexpected %q after the quoted value", rest)
		}
		return inner, nil
	case '[', '{', '-', '|', '>', '&', '*':
		if v[0] != '-' || len(v) == 1 || v[1] == ' ' {
			return "", fmt.Errorf("only plain values are supported, got %q", v)
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}
