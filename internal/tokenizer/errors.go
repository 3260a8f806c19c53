package tokenizer

import "fmt"

// UnsupportedError reports a well-formed tokenizer.json of a kind this
// package does not implement yet (WordPiece, Unigram, SentencePiece-style
// BPE, or a pipeline stage it does not know). Callers can detect it with
// errors.As, for example to suggest --skip-tokenizer-init.
type UnsupportedError struct {
	File  string // the tokenizer.json that was read
	Field string // the JSON field that names the kind, e.g. "model.type"
	Kind  string // what was found, e.g. "WordPiece"
}

// Error says which kind was found where.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("tokenizer kind %s in %s is not supported yet (field %s)", e.Kind, e.File, e.Field)
}

// fieldErr is an error in one JSON field, before the file name is known.
type fieldErr struct {
	field string
	err   error
}

func (e *fieldErr) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldErr) Unwrap() error { return e.err }

// fieldError attributes err to a JSON field such as "model.merges[3]".
func fieldError(field string, err error) error { return &fieldErr{field: field, err: err} }

// unsupportedf reports an unsupported kind found in field; Load fills in the
// file name.
func unsupportedf(field, format string, args ...any) error {
	return &UnsupportedError{Field: field, Kind: fmt.Sprintf(format, args...)}
}
