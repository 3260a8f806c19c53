package cli

import (
	"fmt"

	"github.com/gobench/gobench/internal/buildinfo"
	"github.com/spf13/cobra"
)

// newVersionCmd builds `gobench version`: the same line as --version, which
// result files record as gobench_version.
func newVersionCmd(deps *Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gobench's version, Go toolchain and platform",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(deps.Stdout, buildinfo.Describe(deps.Version))
			return err
		},
	}
}
