package bench

import (
	"fmt"
	"image"
)

// Diff is the comparison shared/bench/imgdiff prints: the largest channel
// difference, the mean absolute difference per channel, and the number of
// pixels whose largest RGB channel difference exceeds 2 and 16.
type Diff struct {
	Pixels  int
	MaxDiff int
	MeanAbs float64
	Over2   int
	Over16  int
}

func (d Diff) String() string {
	return fmt.Sprintf("pixels=%d maxdiff=%d meanabs/chan=%.4f px>2=%d px>16=%d", d.Pixels, d.MaxDiff, d.MeanAbs, d.Over2, d.Over16)
}

// Compare measures a against b, which must have the same bounds.
func Compare(a, b *image.NRGBA) (Diff, error) {
	if a.Bounds() != b.Bounds() {
		return Diff{}, fmt.Errorf("bench: size mismatch %v vs %v", a.Bounds(), b.Bounds())
	}
	var d Diff
	sum := 0
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	for y := 0; y < h; y++ {
		pa, pb := a.Pix[y*a.Stride:], b.Pix[y*b.Stride:]
		for x := 0; x < w; x++ {
			pm := 0
			for c := 0; c < 3; c++ {
				v := int(pa[4*x+c]) - int(pb[4*x+c])
				if v < 0 {
					v = -v
				}
				sum += v
				pm = max(pm, v)
			}
			d.MaxDiff = max(d.MaxDiff, pm)
			if pm > 2 {
				d.Over2++
			}
			if pm > 16 {
				d.Over16++
			}
		}
	}
	d.Pixels = w * h
	d.MeanAbs = float64(sum) / float64(3*d.Pixels)
	return d, nil
}
