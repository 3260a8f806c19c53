package sim

import (
	"encoding/json"
	"strconv"
)

// The placeholder tokens the simulator counts for a media part of a chat
// message: it does not decode media, so each item costs a fixed number of
// prompt tokens, whatever its size (a real server's count depends on the
// model's processor: a 256×256 image is 64 to 256 tokens for most vision
// models). A video counts once, whatever its frames.
const (
	imageTokens = 64
	videoTokens = 256
	audioTokens = 64
)

// mediaPart is the part of a media content part the simulator checks.
type mediaPart struct {
	ImageURL   json.RawMessage `json:"image_url"`
	VideoURL   json.RawMessage `json:"video_url"`
	InputAudio json.RawMessage `json:"input_audio"`
}

// urlField is {"url": "..."}.
type urlField struct {
	URL *string `json:"url"`
}

// audioField is input_audio's {"data": base64, "format": "wav"}.
type audioField struct {
	Data   *string `json:"data"`
	Format *string `json:"format"`
}

// countMedia counts a media content part of message i, part j: image_url
// and video_url need {"url": string}, input_audio needs {"data", "format"}
// strings (the OpenAI schema vLLM validates). Its placeholder ids, a hash
// of the media's reference, go to out, so that equal media share cached
// prefix blocks. A part of another type counts nothing.
func countMedia(typ string, raw json.RawMessage, i, j int, out *[]int) (n int, err *apiError) {
	var p mediaPart
	if json.Unmarshal(raw, &p) != nil {
		return 0, nil
	}
	at := "body.messages." + strconv.Itoa(i) + ".content." + strconv.Itoa(j) + "."
	var ref string
	switch typ {
	case "image_url", "video_url":
		field := p.ImageURL
		n = imageTokens
		if typ == "video_url" {
			field, n = p.VideoURL, videoTokens
		}
		var u urlField
		if isNull(field) || json.Unmarshal(field, &u) != nil || u.URL == nil {
			return 0, validationError("missing", at+typ+".url", "Field required")
		}
		ref = *u.URL
	case "input_audio":
		var a audioField
		if isNull(p.InputAudio) || json.Unmarshal(p.InputAudio, &a) != nil || a.Data == nil || a.Format == nil {
			return 0, validationError("missing", at+"input_audio.data", "Field required")
		}
		ref, n = *a.Data, audioTokens
	default:
		return 0, nil
	}
	if out != nil {
		h := uint32(2166136261)
		for k := 0; k < len(ref); k++ {
			h = (h ^ uint32(ref[k])) * 16777619
		}
		for k := range n {
			*out = append(*out, int((h+uint32(k))&0x7fffffff))
		}
	}
	return n, nil
}
