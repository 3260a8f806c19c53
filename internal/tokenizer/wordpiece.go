package tokenizer

import (
	"errors"
	"unicode/utf8"
)

// wordPieceModel is HF's WordPiece model (BERT and the embedding and
// rerank models built on it): each pre-token is cut greedily into the
// longest vocabulary entries from the left, every piece but the first
// spelled with the continuing-subword prefix ("##"). A pre-token that cannot
// be cut completely, or that has more than max_input_chars_per_word
// characters, becomes the single unk token.
type wordPieceModel struct {
	vocab    map[string]int32
	prefix   string
	unkID    int32 // -1 when unk_token is not in the vocabulary
	maxChars int
	// maxLen is the longest vocabulary entry in bytes: no longer candidate
	// can match, so the search starts there instead of at the word's end.
	maxLen int
}

// newWordPieceModel builds the model from model.vocab and its options.
func newWordPieceModel(m *modelJSON, vocab *vocabulary) (*wordPieceModel, error) {
	w := &wordPieceModel{vocab: make(map[string]int32, vocab.len()), prefix: "##", unkID: -1, maxChars: 100}
	for tok, id := range vocab.all() {
		w.vocab[tok] = int32(id)
		w.maxLen = max(w.maxLen, len(tok))
	}
	if m.ContinuingSubwordPrefix != nil {
		w.prefix = *m.ContinuingSubwordPrefix
	}
	if m.MaxInputChars != nil {
		w.maxChars = *m.MaxInputChars
	}
	unk := "[UNK]"
	if m.UnkToken != nil {
		unk = *m.UnkToken
	}
	id, ok := vocab.get(unk)
	if !ok {
		// HF fails every encode that needs it (MissingUnkToken); refusing
		// the file up front says so once.
		return nil, fieldError("model.unk_token", errors.New("unk token "+unk+" is not in model.vocab"))
	}
	w.unkID = int32(id)
	return w, nil
}

// tokenize appends the ids of one pre-token to out (HF's WordPiece::tokenize).
func (w *wordPieceModel) tokenize(word string, out []int) []int {
	if utf8.RuneCountInString(word) > w.maxChars {
		return append(out, int(w.unkID))
	}
	mark := len(out)
	var buf [128]byte
	for start := 0; start < len(word); {
		end := len(word)
		found := int32(-1)
		for start < end {
			var id int32
			var ok bool
			if start == 0 {
				if end-start <= w.maxLen {
					id, ok = w.vocab[word[start:end]]
				}
			} else if len(w.prefix)+end-start <= w.maxLen {
				key := append(append(buf[:0], w.prefix...), word[start:end]...)
				id, ok = w.vocab[string(key)]
			}
			if ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found < 0 {
			return append(out[:mark], int(w.unkID))
		}
		out = append(out, int(found))
		start = end
	}
	return out
}
