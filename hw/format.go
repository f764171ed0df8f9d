package hw

import (
	"encoding/binary"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// Colour formats of the tile buffer (TILE_RENDERING_MODE_CONFIGURATION
// ColorFormat, hardware.md §4.1, §4.4). The tile buffer always holds
// RGBA8 words; a format with fewer bits per channel keeps every pixel it
// writes at that precision: each written channel (after blending, in
// float) is rounded to the format's bits and held as the 8-bit expansion
// of the rounded value, so the next blend reads the destination the
// memory surface will hold, and the store packs it without loss. A
// channel with no bits (alpha of RGB565 and RGBX8888) is held as 1.0.
// No dithering.

// colorFormat describes one ColorFormat: bits per channel, the layout of
// a pixel in memory and the rounding table of each channel.
type colorFormat struct {
	bits  [4]uint8 // R, G, B, A; 0 = the channel is not stored (reads 1.0)
	bytes int      // bytes per pixel in memory
	// shift of each channel in the little-endian memory word (16-bit
	// formats: GL's packed UNSIGNED_SHORT_* layouts, R in the top bits)
	shift [4]uint8
	// quant[c][v] is the 8-bit value v rounded to bits[c] and expanded
	// back to 8 bits; nil for RGBA8888, whose rounding is the identity.
	quant *[4][256]uint8
}

var colorFormats = func() (t [5]colorFormat) {
	t[cl.ColorFormatRGBA8888] = colorFormat{bits: [4]uint8{8, 8, 8, 8}, bytes: 4, shift: [4]uint8{0, 8, 16, 24}}
	t[cl.ColorFormatRGB565] = colorFormat{bits: [4]uint8{5, 6, 5, 0}, bytes: 2, shift: [4]uint8{11, 5, 0, 0}}
	t[cl.ColorFormatRGBA4444] = colorFormat{bits: [4]uint8{4, 4, 4, 4}, bytes: 2, shift: [4]uint8{12, 8, 4, 0}}
	t[cl.ColorFormatRGBA5551] = colorFormat{bits: [4]uint8{5, 5, 5, 1}, bytes: 2, shift: [4]uint8{11, 6, 1, 0}}
	t[cl.ColorFormatRGBX8888] = colorFormat{bits: [4]uint8{8, 8, 8, 0}, bytes: 4, shift: [4]uint8{0, 8, 16, 24}}
	for f := range t {
		if f == int(cl.ColorFormatRGBA8888) {
			continue
		}
		q := new([4][256]uint8)
		for c := 0; c < 4; c++ {
			for v := 0; v < 256; v++ {
				q[c][v] = expandBits(narrowBits(uint32(v), t[f].bits[c]), t[f].bits[c])
			}
		}
		t[f].quant = q
	}
	return t
}()

// narrowBits rounds an 8-bit unorm value to n bits: round(v·(2ⁿ−1)/255).
func narrowBits(v uint32, n uint8) uint32 {
	if n == 0 {
		return 0
	}
	m := uint32(1)<<n - 1
	return (v*m + 127) / 255
}

// expandBits widens an n-bit unorm value to 8 bits: round(x·255/(2ⁿ−1));
// 0 bits is a channel that is not stored, which reads as 1.0.
func expandBits(x uint32, n uint8) uint8 {
	if n == 0 {
		return 255
	}
	m := uint32(1)<<n - 1
	return uint8((x*255 + m/2) / m)
}

// quantize rounds a packed RGBA8 pixel to the format's precision.
func (f *colorFormat) quantize(v uint32) uint32 {
	q := f.quant
	if q == nil {
		return v
	}
	return uint32(q[0][v&0xFF]) | uint32(q[1][v>>8&0xFF])<<8 | uint32(q[2][v>>16&0xFF])<<16 | uint32(q[3][v>>24])<<24
}

// pack converts a tile-buffer pixel to the format's memory word.
func (f *colorFormat) pack(v uint32) uint32 {
	if f.bytes == 4 {
		return f.quantize(v)
	}
	var p uint32
	for c := 0; c < 4; c++ {
		if f.bits[c] != 0 {
			p |= narrowBits(v>>(8*c)&0xFF, f.bits[c]) << f.shift[c]
		}
	}
	return p
}

// unpack converts a memory word of the format to a tile-buffer pixel.
func (f *colorFormat) unpack(p uint32) uint32 {
	if f.bytes == 4 {
		return f.quantize(p)
	}
	var v uint32
	for c := 0; c < 4; c++ {
		n := f.bits[c]
		var x uint32
		if n != 0 {
			x = p >> f.shift[c] & (1<<n - 1)
		}
		v |= uint32(expandBits(x, n)) << (8 * c)
	}
	return v
}

// unormLow converts a blended channel value to the tile buffer's 8 bits
// for a format with fewer bits than RGBA8888 (blendPixel uses unorm8
// for that one): rounded once, straight from the float, to the channel's
// bits and expanded (rounding to 8 bits first would round twice and could
// land one step off).
func (f *colorFormat) unormLow(c int, v float32) uint32 {
	n := f.bits[c]
	if n == 0 {
		return 255
	}
	m := float32(uint32(1)<<n - 1)
	return uint32(expandBits(uint32(clamp01(v)*m+0.5), n))
}

// value is the channel value a tile-buffer byte stands for: x/255, or
// for fewer bits the exact level it expands, so blending reads the
// destination as the memory surface holds it.
func (f *colorFormat) value(c int, x uint32) float32 {
	if f.quant == nil {
		return float32(x) / 255
	}
	n := f.bits[c]
	if n == 0 {
		return 1
	}
	return float32(narrowBits(x, n)) / float32(uint32(1)<<n-1)
}

// storeRow packs n tile-buffer pixels into row (f.bytes each).
func (f *colorFormat) storeRow(row []byte, line []uint32) {
	if f.bytes == 2 {
		for i, v := range line {
			binary.LittleEndian.PutUint16(row[i*2:], uint16(f.pack(v)))
		}
		return
	}
	for i, v := range line {
		binary.LittleEndian.PutUint32(row[i*4:], f.pack(v))
	}
}

// loadRow unpacks a row of memory pixels into the tile buffer.
func (f *colorFormat) loadRow(line []uint32, row []byte) {
	if f.bytes == 2 {
		for i := range line {
			line[i] = f.unpack(uint32(binary.LittleEndian.Uint16(row[i*2:])))
		}
		return
	}
	for i := range line {
		line[i] = f.unpack(binary.LittleEndian.Uint32(row[i*4:]))
	}
}

// loadStoreFormatRow loads or stores one row of a colour buffer in a
// format other than RGBA8888 (row is the row's memory bytes).
func (w *worker) loadStoreFormatRow(va uint32, lo int, line []uint32, row []byte, store bool) error {
	f := &w.cfg.format
	if store {
		if w.cfg.msaa {
			var res [maxTileSize]uint32
			for i := range line {
				res[i] = w.resolvePixel(lo + i)
			}
			f.storeRow(row, res[:len(line)])
		} else {
			f.storeRow(row, line)
		}
		if flt := w.m.write(va, row); flt != nil {
			return flt
		}
		return nil
	}
	if flt := w.m.read(va, row); flt != nil {
		return flt
	}
	f.loadRow(line, row)
	if w.cfg.msaa {
		w.replicateSamples(false, lo, lo+len(line))
	}
	return nil
}
