package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every command's help is drawn by renderHelp: its description, usage and
// examples, then its flags under headings (helpGroup), the way gh and
// kubectl lay theirs out. A flag marked hidden is one of vLLM's that
// gobench accepts by name and refuses when given (not supported yet): the
// default help leaves those out, and the groups marked "more", and says so
// in one line at the end; --help-all lists every flag.

// helpGroup is one heading of a command's help and the flags under it, in
// the order listed.
type helpGroup struct {
	title string
	flags []string
	// more, when set, keeps the group out of the default help (--help-all
	// lists it) and says what its flags are in the line that counts them.
	more string
}

const (
	helpFlag    = "help"
	helpAllFlag = "help-all"
	// helpWidth is the width the flags' descriptions are wrapped to: the
	// same on every terminal, so that goldens hold the help.
	helpWidth = 100
	// maxTermWidth bounds the column of flag names: a longer name has the
	// line to itself, and its description starts on the next.
	maxTermWidth = 38
	// refusedTitle heads the hidden flags in --help-all.
	refusedTitle = "vLLM flags not supported yet (accepted by name, refused when used):"
)

// helpGroupsFor returns the headings of cmd's help; nil lists every flag
// under "Flags:".
func helpGroupsFor(cmd *cobra.Command) []helpGroup {
	switch cmd.CommandPath() {
	case "gobench serve":
		return serveHelpGroups()
	case "gobench sim":
		return simHelpGroups()
	}
	return nil
}

// setUpHelp draws the help of root and of every command below it with
// renderHelp, and gives each --help and --help-all.
func setUpHelp(root *cobra.Command) {
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		all := false
		if f := cmd.Flags().Lookup(helpAllFlag); f != nil {
			all = f.Value.String() == "true"
		}
		_, _ = io.WriteString(cmd.OutOrStdout(), renderHelp(cmd, all))
	})
	var add func(*cobra.Command)
	add = func(c *cobra.Command) {
		addHelpFlags(c)
		for _, sub := range c.Commands() {
			add(sub)
		}
	}
	add(root)
}

// addHelpFlags defines --help (as cobra would, so that cobra still reads
// it) and --help-all on cmd.
func addHelpFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	if fs.Lookup(helpFlag) != nil {
		return
	}
	fs.BoolP(helpFlag, "h", false, "Show this help.")
	fs.Lookup(helpFlag).Annotations = map[string][]string{cobra.FlagSetByCobraAnnotation: {"true"}}
	fs.Var(&helpAllValue{fs: fs}, helpAllFlag, "Show this help with every flag listed.")
	fs.Lookup(helpAllFlag).NoOptDefVal = "true"
}

// helpAllValue is --help-all: it turns --help on, and the help then lists
// every flag.
type helpAllValue struct {
	fs *pflag.FlagSet
	on bool
}

func (v *helpAllValue) String() string { return strconv.FormatBool(v.on) }

// Type is "bool", so that the flag takes no value.
func (v *helpAllValue) Type() string { return "bool" }

// IsBoolFlag tells pflag that --help-all needs no value.
func (v *helpAllValue) IsBoolFlag() bool { return true }

// Set turns --help on with --help-all.
func (v *helpAllValue) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return argErrorf("argument --%s: ignored explicit argument %s", helpAllFlag, pyfmt.StrRepr(s))
	}
	v.on = on
	if on {
		return v.fs.Set(helpFlag, "true")
	}
	return nil
}

// renderHelp is cmd's help; all lists every flag.
func renderHelp(cmd *cobra.Command, all bool) string {
	var b strings.Builder
	desc := cmd.Long
	if desc == "" {
		desc = cmd.Short
	}
	if desc = strings.TrimSpace(desc); desc != "" {
		b.WriteString(desc + "\n\n")
	}
	b.WriteString("Usage:\n")
	if cmd.Runnable() {
		fmt.Fprintf(&b, "  %s\n", cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "  %s [command]\n", cmd.CommandPath())
	}
	if ex := strings.TrimRight(cmd.Example, "\n"); ex != "" {
		fmt.Fprintf(&b, "\nExamples:\n%s\n", ex)
	}
	writeCommands(&b, cmd)
	writeFlags(&b, cmd, all)
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nRun '%s COMMAND --help' for a command's flags.\n", cmd.CommandPath())
	}
	return b.String()
}

// writeCommands lists cmd's subcommands with their one-line summaries.
func writeCommands(b *strings.Builder, cmd *cobra.Command) {
	var subs []*cobra.Command
	width := 0
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" && !c.Hidden {
			subs = append(subs, c)
			width = max(width, len(c.Name()))
		}
	}
	if len(subs) == 0 {
		return
	}
	b.WriteString("\nCommands:\n")
	for _, c := range subs {
		fmt.Fprintf(b, "  %-*s   %s\n", width, c.Name(), c.Short)
	}
}

// helpSection is a heading and the flags listed under it.
type helpSection struct {
	title string
	flags []*pflag.Flag
}

// writeFlags lists cmd's flags under their headings, aligned in one
// column, and ends with what the default help leaves out.
func writeFlags(b *strings.Builder, cmd *cobra.Command, all bool) {
	sections, footer := flagSections(cmd, all)
	col := 0
	for _, s := range sections {
		for _, f := range s.flags {
			if n := utf8.RuneCountInString(flagTerm(f)); n <= maxTermWidth {
				col = max(col, n)
			}
		}
	}
	indent := strings.Repeat(" ", col+3)
	for _, s := range sections {
		fmt.Fprintf(b, "\n%s\n", s.title)
		for _, f := range s.flags {
			term := flagTerm(f)
			if n := utf8.RuneCountInString(term); n > col {
				b.WriteString(term + "\n" + indent) // a long name has a line of its own
			} else {
				b.WriteString(term + strings.Repeat(" ", col-n+3))
			}
			b.WriteString(strings.Join(wrapWords(flagDescription(f), helpWidth-col-3), "\n"+indent) + "\n")
		}
	}
	if footer != "" {
		b.WriteString("\n" + strings.Join(wrapWords(footer, helpWidth), "\n") + "\n")
	}
}

// flagSections sorts cmd's flags into the sections its help shows, and
// says what the default help leaves out ("" when nothing or all).
func flagSections(cmd *cobra.Command, all bool) ([]helpSection, string) {
	fs := cmd.Flags()
	groups := helpGroupsFor(cmd)
	placed := map[string]bool{helpFlag: true, helpAllFlag: true}
	var sections []helpSection
	more := map[string]int{}
	var moreOrder []string
	for _, g := range groups {
		var fl []*pflag.Flag
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil && !f.Hidden && !placed[name] {
				placed[name] = true
				fl = append(fl, f)
			}
		}
		if g.more != "" && len(fl) > 0 {
			if more[g.more] == 0 {
				moreOrder = append(moreOrder, g.more)
			}
			more[g.more] += len(fl)
		}
		if len(fl) > 0 && (all || g.more == "") {
			sections = append(sections, helpSection{g.title, fl})
		}
	}
	var other, refused []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case placed[f.Name]:
		case f.Hidden:
			refused = append(refused, f)
		default:
			other = append(other, f)
		}
	})
	if all && len(refused) > 0 {
		sections = append(sections, helpSection{refusedTitle, refused})
	}
	tail := helpSection{"Flags:", other}
	if groups != nil {
		tail.title = "Other flags:"
		if len(other) == 0 {
			tail.title = "Help flags:"
		}
	}
	if f := fs.Lookup(helpFlag); f != nil {
		tail.flags = append(tail.flags, f)
	}
	if f := fs.Lookup(helpAllFlag); f != nil && (len(refused) > 0 || len(moreOrder) > 0) {
		tail.flags = append(tail.flags, f)
	}
	sections = append(sections, tail)
	if all {
		return sections, ""
	}
	return sections, leftOut(cmd, len(refused), moreOrder, more)
}

// leftOut is the line that ends the default help: how many flags it does
// not list, and how to see them.
func leftOut(cmd *cobra.Command, refused int, moreOrder []string, more map[string]int) string {
	var parts []string
	if refused > 0 {
		parts = append(parts, fmt.Sprintf("%d vLLM flags gobench does not support yet (refused when used)", refused))
	}
	for _, what := range moreOrder {
		parts = append(parts, fmt.Sprintf("%d %s", more[what], what))
	}
	if len(parts) == 0 {
		return ""
	}
	list := parts[0]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return fmt.Sprintf("Not listed: %s. '%s --%s' lists every flag.", list, cmd.CommandPath(), helpAllFlag)
}

// flagTerm is the left column of a flag's line: its names and the kind of
// value it takes, as pflag writes them.
func flagTerm(f *pflag.Flag) string {
	term := "      --" + f.Name
	if f.Shorthand != "" {
		term = "  -" + f.Shorthand + ", --" + f.Name
	}
	if varname, _ := pflag.UnquoteUsage(f); varname != "" {
		term += " " + varname
	}
	return term
}

// flagDescription is a flag's help text and, unless it is a zero value,
// its default, as pflag writes them.
func flagDescription(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	switch {
	case f.Value.Type() == "string":
		if f.DefValue != "" {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
	case f.DefValue == "", f.DefValue == "false", f.DefValue == "0", f.DefValue == "<nil>", f.DefValue == "[]":
	default:
		usage += " (default " + f.DefValue + ")"
	}
	return usage
}

// wrapWords breaks text into lines of at most width characters, at
// spaces (a longer word has a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
