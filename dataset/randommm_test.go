package dataset

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var (
	qwen3VL = Vision{ModelType: "qwen3_vl", PatchSize: 16, SpatialMerge: 2, MinPixels: 65536, MaxPixels: 16777216}
	qwen2VL = Vision{ModelType: "qwen2_vl", PatchSize: 14, SpatialMerge: 2, MinPixels: 56 * 56, MaxPixels: 28 * 28 * 1280}
)

// Tokens per image worked by hand from Qwen2-VL's smart_resize: sides
// rounded (half to even, as Python) to multiples of patch × merge, scaled
// into [min, max] pixels, then patches / merge² + 2.
func TestImageTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    Vision
		h, w int
		want int
	}{
		{qwen3VL, 224, 224, 66},     // 224² < 65536: scaled to 256², 16·16 patches / 4 + 2
		{qwen3VL, 720, 1280, 882},   // 720/32 = 22.5 rounds to 22: 704 × 1280, 44·80 / 4 + 2
		{qwen2VL, 256, 256, 83},     // 252 × 252, 18·18 / 4 + 2
		{qwen2VL, 720, 1280, 1198},  // 728 × 1288, 52·92 / 4 + 2
		{qwen2VL, 4000, 4000, 1227}, // over 1003520 pixels: 980 × 980, 70·70 / 4 + 2
	} {
		if got := c.v.ImageTokens(c.h, c.w); got != c.want {
			t.Errorf("%s %d×%d: %d tokens, want %d", c.v.ModelType, c.h, c.w, got, c.want)
		}
	}
}

func TestVisionOf(t *testing.T) {
	t.Parallel()
	v, err := VisionOf("m", []byte(`{"model_type": "qwen3_vl_moe", "vision_config": {"patch_size": 16, "spatial_merge_size": 2}}`))
	if err != nil || v.PatchSize != 16 || v.SpatialMerge != 2 || v.MinPixels != 65536 {
		t.Errorf("%+v, %v", v, err)
	}
	for cfg, want := range map[string]string{
		`{"model_type": "llama"}`: "has no vision config",
		`{"model_type": "llava", "vision_config": {"patch_size": 14, "spatial_merge_size": 1}}`: `image processor of model_type "llava" is not known`,
		`[`: "config.json",
	} {
		if _, err := VisionOf("m", []byte(cfg)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", cfg, err, want)
		}
	}
}

// The mean image tokens a request carries against theory: k uniform on
// {1, 2, 3} (base 2, ratio 0.5), each image 256×256 with probability 0.7
// or 720×1280 with 0.3, so E = 2 · (0.7·83 + 0.3·1198) tokens. Tolerance:
// 4 standard errors of 20000 draws.
func TestRandomMMImageTokens(t *testing.T) {
	t.Parallel()
	m := RandomMM{BaseItems: 2, ItemsRangeRatio: 0.5, LimitImages: 4, Buckets: []Bucket{{256, 256, 1, 0.7}, {720, 1280, 1, 0.3}, {720, 1280, 16, 0}}}
	const n = 20000
	got, err := m.ImageTokens(qwen2VL, n, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	mean, sq := 0.0, 0.0
	for _, x := range got {
		mean += float64(x)
		sq += float64(x) * float64(x)
	}
	mean /= n
	sd := math.Sqrt(sq/n - mean*mean)
	want := 2 * (0.7*83 + 0.3*1198)
	if math.Abs(mean-want) > 4*sd/math.Sqrt(n) {
		t.Errorf("mean %.1f image tokens a request, want %.1f ± %.1f", mean, want, 4*sd/math.Sqrt(n))
	}
	// A limit of one image: every request has exactly one.
	m.LimitImages, m.LimitVideos = 1, 1
	got, _ = m.ImageTokens(qwen2VL, 200, rand.New(rand.NewPCG(3, 4)))
	for _, x := range got {
		if x != 83 && x != 1198 {
			t.Fatalf("%d tokens with one image allowed, want 83 or 1198", x)
		}
	}
	for _, c := range []struct {
		m    RandomMM
		want string
	}{
		{RandomMM{BaseItems: 3, LimitImages: 1, LimitVideos: 1, Buckets: m.Buckets}, "exceeds --random-mm-limit-mm-per-prompt"},
		{RandomMM{BaseItems: 1, LimitImages: 1, Buckets: []Bucket{{1, 1, 4, 1}}}, "video buckets are not sampled"},
		{RandomMM{BaseItems: 1, LimitImages: 1, ItemsRangeRatio: 2, Buckets: m.Buckets}, "must be in [0, 1]"},
	} {
		if _, err := c.m.ImageTokens(qwen2VL, 1, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.m, err, c.want)
		}
	}
}

func TestParseBuckets(t *testing.T) {
	t.Parallel()
	b, err := ParseBuckets("{(256, 256, 1): 0.7, (720, 1280, 1): 0.3}")
	if err != nil || len(b) != 2 || b[1] != (Bucket{720, 1280, 1, 0.3}) {
		t.Errorf("%v, %v", b, err)
	}
	for _, s := range []string{"(256, 256, 1): 1", "{(256, 256): 1}", "{(0, 256, 1): 1}", "{(256, 256, 1): 2}", "{(256, 256, 1) 1}"} {
		if _, err := ParseBuckets(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	im, vid, err := ParseMMLimit(`{"image": 3, "video": 0}`, DefaultRandomMM())
	if err != nil || im != 3 || vid != 0 {
		t.Errorf("%d, %d, %v", im, vid, err)
	}
	if _, _, err := ParseMMLimit(`{"audio": 1}`, DefaultRandomMM()); err == nil {
		t.Error("audio: no error")
	}
}
