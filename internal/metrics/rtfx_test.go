package metrics

import "testing"

// TestRTFx: vLLM's rtfx (serve.py@11dfa3169 calculate_metrics) sums the
// input_audio_duration of the successful requests only and divides by the
// benchmark's duration; without audio it is 0 (and the block leaves its
// line out).
func TestRTFx(t *testing.T) {
	t.Parallel()
	outputs := []Output{
		{Success: true, OutputTokens: 3, Latency: 0.5, TTFT: 0.1, InputAudioDuration: 2.5},
		{Success: false, Error: "HTTP 500", InputAudioDuration: 10},
		{Success: true, OutputTokens: 2, Latency: 0.4, TTFT: 0.1, StartTime: 0.2, InputAudioDuration: 1.5},
	}
	if r := Calculate(outputs, 2, Config{}); r.RTFx != 2 {
		t.Errorf("rtfx %v, want (2.5 + 1.5) / 2", r.RTFx)
	}
	for i := range outputs {
		outputs[i].InputAudioDuration = 0
	}
	if r := Calculate(outputs, 2, Config{}); r.RTFx != 0 {
		t.Errorf("rtfx without audio %v, want 0", r.RTFx)
	}
}
