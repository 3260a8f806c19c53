// Package argparse reads vLLM's command line as Python's argparse reads it,
// on top of spf13/pflag, so that a `vllm bench serve` command line means
// the same to gobench, errors included (vLLM's FlexibleArgumentParser,
// vllm/utils/argparse_utils.py@00da11e37).
//
// Normalize rewrites the arguments into the --name=value form pflag then
// parses without rules of its own: underscores in names, unambiguous
// prefixes (allow_abbrev), nargs lists, negative numbers as values and
// vLLM's dotted JSON keys (--extra-body.top_k 5). WithConfig puts the
// flags of serve's --config YAML file in front of the command line's, as
// vLLM's load_config_file does. The flag values (Scalar, List, Strings,
// JSON) parse like argparse's type= callables, record whether they were
// given (many vLLM flags default to None), know their Python value for the
// argument namespace vLLM saves (PythonValuer) and the values shell
// completion offers. Errors are exitcode usage errors worded as argparse
// words them, with a "did you mean" for an unknown name (Nearest).
//
// It knows no command: the caller passes the flag set, which flags are
// nargs lists, and for --config a fresh flag set to check each entry on.
package argparse
