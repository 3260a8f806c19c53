// Package pyjson is JSON as Python writes and reads it: one ordered object
// with dict semantics (Object), one decoder that keeps key order (Decode,
// DecodeObject), and two writers that are deliberately different
// (AppendPython and AppendCompact). It imports only the standard library
// and pyfmt, so every package that builds or reads gobench's JSON can use
// it.
//
// # Values
//
// The writers take nil, bool, int, int64, float64, string, json.Number
// (an integer literal, as Decode keeps integers beyond int), []int,
// []float64, [][]float64, []string, []any, *Object and []*Object. A nil
// slice is written as [] (Python lists are never null), a nil *Object as
// null. Decode produces the same kinds: objects become *Object, arrays
// []any, integers int (json.Number beyond int, so that Python's
// arbitrary-precision integers come back digit for digit), other numbers
// float64; a float out of range (1e400) is an error.
//
// # Two writers
//
// AppendPython writes what Python's json.dumps(v) writes with its default
// arguments, byte for byte: vLLM writes result files with json.dump, and
// gobench's result, compare, gate and analyze files are meant to be diffed
// against them. AppendCompact writes the same values in the short form
// that pydantic's model_dump_json uses, which is what vLLM's server sends:
// the simulator's stream events use it (through AppendCompactString, where
// speed matters), and so do gobench's request bodies. vLLM's client sends
// its bodies with aiohttp's json.dumps, ensure_ascii and spaces included;
// gobench sends fewer bytes on purpose, and the server decodes the same
// values from both.
//
//	                     AppendPython               AppendCompact
//	separators           ", " and ": "              "," and ":"
//	non-ASCII            \uXXXX, lower-case hex,    raw UTF-8
//	                     surrogate pairs above
//	                     U+FFFF (ensure_ascii)
//	U+2028, U+2029       \u2028, \u2029             raw UTF-8
//	" \ and controls     \" \\ \n \r \t \b \f, other controls \u00XX
//	DEL (0x7f)           \u007f                     raw
//	< > &                raw                        raw
//	invalid UTF-8        \ufffd per bad byte        U+FFFD per bad byte, raw
//	floats               Python's repr: 1.0, 1e-05, 1e+16, 0.30000000000000004
//	inf, -inf, nan       the strings "inf", "-inf", "nan"
//
// Neither escapes <, > and & (Python does not; encoding/json does by
// default), and AppendCompact leaves U+2028 and U+2029 raw, which JSON
// allows and which encoding/json escapes even without HTML escaping. Both
// write a non-finite float as a string instead of Python's bare Infinity
// and NaN, so that the output stays valid JSON (vLLM itself writes
// request_rate that way and in its JSON Lines and PyTorch-format writers).
// A Go string holding invalid UTF-8 cannot come from Python; both writers
// replace each bad byte by U+FFFD, as encoding/json does, so the output is
// always valid.
package pyjson
