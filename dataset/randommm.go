package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// A Vision is what a model's vision tower makes of an image: patches of
// PatchSize pixels a side, SpatialMerge × SpatialMerge of them merged
// into one token, images resized (Qwen2-VL's smart_resize) to sides that
// are multiples of PatchSize·SpatialMerge with MinPixels to MaxPixels
// pixels, and two tokens around each image (vision start and end).
type Vision struct {
	ModelType               string
	PatchSize, SpatialMerge int
	MinPixels, MaxPixels    int
}

// visionPixels are the image processors' pixel bounds, which live in
// preprocessor_config.json, not config.json: Qwen2VLImageProcessor's
// min_pixels 56·56 and max_pixels 28·28·1280 (Qwen2-VL and Qwen2.5-VL), and
// Qwen3-VL's size shortest_edge 65536, longest_edge 16777216 (pixels).
var visionPixels = map[string][2]int{
	"qwen2_vl":   {56 * 56, 28 * 28 * 1280},
	"qwen2_5_vl": {56 * 56, 28 * 28 * 1280},
	"qwen3_vl":   {65536, 16777216},
}

// VisionOf reads the vision tower of a model's config.json:
// vision_config's patch_size and spatial_merge_size, for the model types
// whose image processor is known (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, and
// their MoE variants). A config without them is an error naming model.
func VisionOf(model string, config []byte) (Vision, error) {
	var c struct {
		ModelType string `json:"model_type"`
		Vision    *struct {
			PatchSize    int `json:"patch_size"`
			SpatialMerge int `json:"spatial_merge_size"`
		} `json:"vision_config"`
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return Vision{}, fmt.Errorf("%w: --model %s: config.json: %v", ErrDataset, model, err)
	}
	if c.Vision == nil || c.Vision.PatchSize < 1 || c.Vision.SpatialMerge < 1 {
		return Vision{}, fmt.Errorf("%w: --model %s has no vision config (vision_config.patch_size and spatial_merge_size): random-mm needs a vision-language model such as Qwen/Qwen3-VL-8B-Instruct", ErrDataset, model)
	}
	mt := strings.TrimSuffix(c.ModelType, "_moe")
	px, ok := visionPixels[mt]
	if !ok {
		return Vision{}, fmt.Errorf("%w: --model %s: the image processor of model_type %q is not known (known: Qwen2-VL, Qwen2.5-VL, Qwen3-VL), so its tokens per image are not", ErrDataset, model, c.ModelType)
	}
	return Vision{ModelType: c.ModelType, PatchSize: c.Vision.PatchSize, SpatialMerge: c.Vision.SpatialMerge, MinPixels: px[0], MaxPixels: px[1]}, nil
}

// ImageTokens returns the prompt tokens of one h × w image: the resized
// image's patches over SpatialMerge², plus the two around it.
func (v Vision) ImageTokens(h, w int) int {
	f := float64(v.PatchSize * v.SpatialMerge)
	H, W := float64(h), float64(w)
	hb := math.Max(f, math.RoundToEven(H/f)*f)
	wb := math.Max(f, math.RoundToEven(W/f)*f)
	switch {
	case hb*wb > float64(v.MaxPixels):
		beta := math.Sqrt(H * W / float64(v.MaxPixels))
		hb = math.Max(f, math.Floor(H/beta/f)*f)
		wb = math.Max(f, math.Floor(W/beta/f)*f)
	case hb*wb < float64(v.MinPixels):
		beta := math.Sqrt(float64(v.MinPixels) / (H * W))
		hb = math.Ceil(H*beta/f) * f
		wb = math.Ceil(W*beta/f) * f
	}
	p := float64(v.PatchSize)
	return int(hb/p*(wb/p))/(v.SpatialMerge*v.SpatialMerge) + 2
}

// A Bucket is one (height, width, frames) shape of --random-mm-bucket-config
// with its probability; Frames 1 is an image.
type Bucket struct {
	H, W, Frames int
	P            float64
}

// RandomMM are vLLM's --random-mm-* flags.
type RandomMM struct {
	// BaseItems is --random-mm-base-items-per-request; ItemsRangeRatio
	// --random-mm-num-mm-items-range-ratio, in [0, 1].
	BaseItems       int
	ItemsRangeRatio float64
	// LimitImages and LimitVideos are --random-mm-limit-mm-per-prompt.
	LimitImages, LimitVideos int
	Buckets                  []Bucket
}

// DefaultRandomMM is vLLM's default: one item a request, at most 255
// images and 1 video, half 256×256 and half 720×1280 images (its video
// bucket has probability 0).
func DefaultRandomMM() RandomMM {
	return RandomMM{BaseItems: 1, LimitImages: 255, LimitVideos: 1,
		Buckets: []Bucket{{256, 256, 1, 0.5}, {720, 1280, 1, 0.5}, {720, 1280, 16, 0}}}
}

var bucketRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*:\s*([0-9.eE+-]+)$`)
})

// ParseBuckets reads --random-mm-bucket-config, a Python dict of
// (H, W, T) tuples to probabilities: '{(256, 256, 1): 0.7, (720, 1280, 1): 0.3}'.
func ParseBuckets(s string) ([]Bucket, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, fmt.Errorf("%w: --random-mm-bucket-config %s: want a dict {(H, W, T): probability, ...}", ErrDataset, s)
	}
	t = strings.TrimSpace(t[1 : len(t)-1])
	var out []Bucket
	for t != "" {
		end := strings.Index(t, ")")
		if end < 0 {
			return nil, fmt.Errorf("%w: --random-mm-bucket-config %s: want (H, W, T): probability entries", ErrDataset, s)
		}
		next := strings.IndexByte(t[end:], ',')
		entry := t
		if next >= 0 {
			entry, t = t[:end+next], strings.TrimSpace(t[end+next+1:])
		} else {
			t = ""
		}
		m := bucketRE().FindStringSubmatch(strings.TrimSpace(entry))
		if m == nil {
			return nil, fmt.Errorf("%w: --random-mm-bucket-config entry %q: want (H, W, T): probability", ErrDataset, entry)
		}
		var b Bucket
		var err1, err2, err3, err4 error
		b.H, err1 = strconv.Atoi(m[1])
		b.W, err2 = strconv.Atoi(m[2])
		b.Frames, err3 = strconv.Atoi(m[3])
		b.P, err4 = strconv.ParseFloat(m[4], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || b.H < 1 || b.W < 1 || b.Frames < 1 ||
			b.H > 1<<16 || b.W > 1<<16 || !(b.P >= 0 && b.P <= 1) {
			return nil, fmt.Errorf("%w: --random-mm-bucket-config entry %q: sides from 1 to 65536 pixels, T >= 1, probability in [0, 1]", ErrDataset, entry)
		}
		out = append(out, b)
	}
	return out, nil
}

// ParseMMLimit reads --random-mm-limit-mm-per-prompt, JSON {"image": n,
// "video": m}; a modality left out keeps def's.
func ParseMMLimit(s string, def RandomMM) (images, videos int, err error) {
	var m map[string]int
	if e := json.Unmarshal([]byte(s), &m); e != nil {
		return 0, 0, fmt.Errorf("%w: --random-mm-limit-mm-per-prompt %s: want JSON {\"image\": n, \"video\": m}: %v", ErrDataset, s, e)
	}
	images, videos = def.LimitImages, def.LimitVideos
	for k, v := range m {
		switch {
		case v < 0:
			return 0, 0, fmt.Errorf("%w: --random-mm-limit-mm-per-prompt %s: %s %d must be >= 0", ErrDataset, s, k, v)
		case k == "image":
			images = v
		case k == "video":
			videos = v
		default:
			return 0, 0, fmt.Errorf("%w: --random-mm-limit-mm-per-prompt %s: unknown modality %q (random-mm has image and video)", ErrDataset, s, k)
		}
	}
	return images, videos, nil
}

// ImageTokens draws the image tokens of n requests as vLLM's
// RandomMultiModalDataset draws their items: k items a request, uniform
// on [floor(b(1-r)), ceil(b(1+r))] and at most the limits' sum; each
// item's bucket drawn by the renormalized probabilities, a modality's
// buckets dropped once it reaches its limit. Buckets of probability 0
// are removed; a video bucket left is an error (vLLM does not sample
// videos either).
func (m RandomMM) ImageTokens(v Vision, n int, rng *rand.Rand) ([]int, error) {
	switch {
	case m.BaseItems < 0:
		return nil, fmt.Errorf("%w: --random-mm-base-items-per-request %d must be >= 0", ErrDataset, m.BaseItems)
	case !(m.ItemsRangeRatio >= 0 && m.ItemsRangeRatio <= 1):
		return nil, fmt.Errorf("%w: --random-mm-num-mm-items-range-ratio %v must be in [0, 1]", ErrDataset, m.ItemsRangeRatio)
	case m.BaseItems > m.LimitImages+m.LimitVideos:
		return nil, fmt.Errorf("%w: --random-mm-base-items-per-request %d exceeds --random-mm-limit-mm-per-prompt (%d images, %d videos)", ErrDataset, m.BaseItems, m.LimitImages, m.LimitVideos)
	}
	var buckets []Bucket
	for _, b := range m.Buckets {
		if b.P == 0 {
			continue
		}
		if b.Frames > 1 {
			return nil, fmt.Errorf("%w: --random-mm-bucket-config (%d, %d, %d): video buckets are not sampled (vLLM's random-mm does not either); give T = 1", ErrDataset, b.H, b.W, b.Frames)
		}
		buckets = append(buckets, b)
	}
	if len(buckets) == 0 && m.BaseItems > 0 {
		return nil, fmt.Errorf("%w: --random-mm-bucket-config has no bucket of probability > 0", ErrDataset)
	}
	lo := int(math.Floor(float64(m.BaseItems) * (1 - m.ItemsRangeRatio)))
	hi := int(math.Ceil(float64(m.BaseItems) * (1 + m.ItemsRangeRatio)))
	hi = min(hi, m.LimitImages+m.LimitVideos)
	lo = min(lo, hi)
	tokens := make([]int, len(buckets))
	for i, b := range buckets {
		tokens[i] = v.ImageTokens(b.H, b.W)
	}
	out := make([]int, n)
	for r := range out {
		k := lo + rng.IntN(hi-lo+1)
		k = min(k, m.LimitImages) // every bucket left is an image
		for range k {
			x := rng.Float64() * sumP(buckets)
			i := 0
			for ; i < len(buckets)-1 && x >= buckets[i].P; i++ {
				x -= buckets[i].P
			}
			out[r] += tokens[i]
		}
	}
	return out, nil
}

func sumP(bs []Bucket) float64 {
	s := 0.0
	for _, b := range bs {
		s += b.P
	}
	return s
}

// PrefixBlocks returns block ids, blockSize tokens each, for prompts of
// the given input tokens that all begin with the same prefix tokens and
// share nothing after it: the prefix's full blocks have the same ids in
// every prompt, every other block is the prompt's own. At most 2^24 ids.
func PrefixBlocks(inputs []int, prefix, blockSize int) ([][]int64, error) {
	if blockSize < 1 || prefix < 0 {
		return nil, fmt.Errorf("%w: block size %d and prefix %d must be >= 1 and >= 0", ErrDataset, blockSize, prefix)
	}
	total := 0
	for _, in := range inputs {
		if total += (in + blockSize - 1) / blockSize; total > maxBlockIDs {
			return nil, fmt.Errorf("%w: %d prompts span more than %d blocks of %d tokens: give fewer prompts or shorter ones", ErrDataset, len(inputs), maxBlockIDs, blockSize)
		}
	}
	shared := prefix / blockSize
	out := make([][]int64, len(inputs))
	for i, in := range inputs {
		ids := make([]int64, (in+blockSize-1)/blockSize)
		for j := range ids {
			if j < shared {
				ids[j] = int64(j) + 1
			} else {
				ids[j] = -(int64(i)<<24 | int64(j)) - 1
			}
		}
		out[i] = ids
	}
	return out, nil
}
