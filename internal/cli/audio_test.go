package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/wav"
)

// audioValueRE matches the values of the block's lines that depend on
// timing; the counts (requests, tokens) stay.
var audioValueRE = regexp.MustCompile(`(?m)^((?:Benchmark duration|Request throughput|Output token throughput|` +
	`Peak output token throughput|Peak concurrent requests|RTFx|Total token throughput|Mean|Median|P\d+)[^:]*:\s+)\S+\s*$`)

// audioDataset writes a custom_audio JSONL file of three rows and the WAV
// clips it names (1 s and 2 s of 16 kHz mono 16-bit PCM); the clips add
// up to 4 s.
func audioDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var rows []string
	for i, secs := range []int{1, 2, 1} {
		clip := filepath.Join(dir, fmt.Sprintf("clip%d.wav", secs))
		if err := os.WriteFile(clip, wav.PCM16(16000, 1, make([]int16, 16000*secs)), 0o600); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, fmt.Sprintf(`{"prompt": "Transcribe clip %d.", "audio": %q, "output_tokens": %d}`, i, clip, 3+i))
	}
	path := filepath.Join(dir, "audio.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// audioArgs is a serve command line of the openai-audio backend and the
// custom_audio dataset against the simulator.
func audioArgs(path string, extra ...string) []string {
	return append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm", "--no-server-metrics",
		"--backend", "openai-audio", "--dataset-name", "custom_audio", "--dataset-path", path, "--num-prompts", "0",
		"--custom-output-len", "-1", "--ignore-eos"}, extra...)
}

// TestServeAudio runs --backend openai-audio with --dataset-name
// custom_audio through cli.Main against the simulator's transcription and
// translation endpoints: the block is vLLM's with its RTFx line (audio
// seconds over the run's duration), the result file's rtfx is that ratio,
// the token counts are the dataset's prompt lengths and the usage chunks'
// completion tokens.
func TestServeAudio(t *testing.T) {
	t.Parallel()
	path := audioDataset(t)
	for _, endpoint := range []string{"/v1/audio/transcriptions", "/v1/audio/translations"} {
		t.Run(strings.TrimPrefix(endpoint, "/v1/audio/"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			stdout, stderr, code := runMain(t, audioArgs(path, "--endpoint", endpoint, "--save-result", "--save-detailed",
				"--result-dir", dir, "--result-filename", "a.json")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			golden.CheckFile(t, filepath.Join("testdata", "TestServeAudio.golden"), []byte(audioValueRE.ReplaceAllString(stdout, "${1}N")))
			b, err := os.ReadFile(filepath.Join(dir, "a.json"))
			if err != nil {
				t.Fatal(err)
			}
			o, err := pyjson.DecodeObject(b)
			if err != nil {
				t.Fatal(err)
			}
			rtfx, _ := o.Get("rtfx")
			duration, _ := o.Get("duration")
			r, d := rtfx.(float64), duration.(float64)
			if math.Abs(r*d-4) > 1e-9 {
				t.Errorf("rtfx %v × duration %v = %v, want the clips' 4 s", r, d, r*d)
			}
			if out, _ := o.Get("total_output_tokens"); out != 12 {
				t.Errorf("total_output_tokens %v, want 3+4+5", out)
			}
			// analyze draws the run's block again, RTFx included (from the
			// saved value: no file has per-request audio durations).
			again, errOut, code := runMain(t, "analyze", filepath.Join(dir, "a.json"))
			if code != 0 {
				t.Fatalf("analyze exit %d\n%s", code, errOut)
			}
			if got, want := resultBlock(t, again, ""), resultBlock(t, stdout, ""); got != want {
				t.Errorf("analyze printed\n%s\nserve printed\n%s", got, want)
			}
		})
	}
}

// TestServeAudioDryRun: --dry-run lists the requests (lengths and ids)
// without the clips' bytes and without contacting a server.
func TestServeAudioDryRun(t *testing.T) {
	t.Parallel()
	args := audioArgs(audioDataset(t), "--dry-run", "--model", "m", "--tokenizer", tokenizer.BuiltinName, "--seed", "1")
	args = slicesWithout(args, "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001")
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || strings.Contains(stdout+stderr, "RIFF") {
		t.Fatalf("dry run:\n%s\n%s", stdout, stderr)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"request_id": "`) || !strings.Contains(l, `"output_len": `) {
			t.Errorf("dry-run line %s", l)
		}
	}
}

// slicesWithout returns args without the values in drop, each removed
// once, in order.
func slicesWithout(args []string, drop ...string) []string {
	var out []string
	for _, a := range args {
		if len(drop) > 0 && a == drop[0] {
			drop = drop[1:]
			continue
		}
		out = append(out, a)
	}
	return out
}

// TestServeAudioRefusals: what cannot run is refused before the run with
// status 2, naming what to change: openai-audio without clips, clips for a
// chat backend, a clip that is not WAV (its file and line named).
func TestServeAudioRefusals(t *testing.T) {
	t.Parallel()
	path := audioDataset(t)
	flac := filepath.Join(t.TempDir(), "bad.jsonl")
	song := filepath.Join(filepath.Dir(flac), "song.flac")
	if err := os.WriteFile(song, []byte("fLaC\x00\x00\x00\x22"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flac, []byte(fmt.Sprintf(`{"prompt": "p", "audio": %q, "output_tokens": 3}`+"\n", song)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"random dataset", append(append([]string{}, simArgs...), "--backend", "openai-audio"),
			"--backend openai-audio uploads one audio clip per request and this request has none: use --dataset-name custom_audio"},
		{"chat backend", append(audioArgs(path), "--backend", "openai-chat"),
			"--dataset-name custom_audio with --backend openai-chat: the clips are uploaded by --backend openai-audio"},
		{"flac", audioArgs(flac), flac + ":1: audio: " + song + ": not a WAV file (RIFF/WAVE): it is FLAC"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runMain(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant %q", tt.name, code, stdout, stderr, tt.want)
		}
	}
}
