package tokenizer

// The optional interfaces a Tokenizer may implement, and the kinds Load
// reads. They are separate from Tokenizer so that implementations that
// lack a feature (test fakes, the server's tokenizer) need not stub it.

// Message is one chat message given to a chat template.
type Message struct {
	Role    string
	Content string
}

// ChatTemplater is implemented by tokenizers that can render a chat
// template, as vLLM's custom dataset does for every prompt unless
// --skip-chat-template. It is separate from Tokenizer so that tokenizers
// without templates (test fakes, the server's) need not implement it.
type ChatTemplater interface {
	// ApplyChatTemplate is transformers'
	// apply_chat_template(messages, add_generation_prompt=..., tokenize=False,
	// **kwargs): kwargs (nil for none) become template variables, over the
	// special tokens, as vLLM's --chat-template-kwargs passes them. It
	// fails with an error wrapping ErrNoChatTemplate when there is no
	// template, with ErrReservedKwarg for a kwarg the call itself sets, and
	// with the template's message when it raises.
	ApplyChatTemplate(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error)
}

// Fallible is implemented by tokenizers whose calls can fail, such as the
// server's /tokenize: Encode and Decode then return empty results, and Err
// reports the first failure. Callers check it after each phase that used
// the tokenizer (building the dataset, counting output tokens).
type Fallible interface {
	Err() error
}

// Err returns the first failure of tok if it is Fallible, else nil.
func Err(tok Tokenizer) error {
	if f, ok := tok.(Fallible); ok {
		return f.Err()
	}
	return nil
}

// Kind names a tokenizer algorithm, for logs and messages.
type Kind string

// The kinds of tokenizer.json that Load reads.
const (
	KindByteLevelBPE     Kind = "byte-level BPE"
	KindSentencePieceBPE Kind = "SentencePiece-style BPE"
	KindWordPiece        Kind = "WordPiece"
)

// Kind says which algorithm the tokenizer runs.
func (t *hfTokenizer) Kind() Kind { return t.kind }
