package tg

import (
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/pipe"
)

// readTimeout is how long a CPU access waits for the GPU: without bound
// (a negative timeout), because the kernel's watchdog ends every job — a
// hung one after JobTimeout without progress, one that keeps progressing
// while others wait after 12 × JobTimeout — and a legitimate heavy frame on a slow, loaded
// machine can take longer than any fixed bound picked here (a 100,000-
// iteration shader at 128² took over a minute on a shared 2-core host).
const readTimeout time.Duration = -1

// prepareCPUWrite makes r's memory safe to overwrite without changing
// what work queued before the write sees:
//   - if nothing queued or running uses the BO, it is written in place;
//   - if only readers use it (vertex, index and texture data the GPU never
//     writes), the resource moves to a fresh BO (with the old contents
//     copied unless the write replaces everything), and the queued jobs keep
//     reading the old one: no flush, no wait (buffer renaming);
//   - a resource the GPU renders to is flushed and waited for, because its
//     current contents are not final until those jobs run.
func (c *Context) prepareCPUWrite(r *Resource, whole bool) error {
	r.maxIndex = nil
	queued := false
	for _, j := range c.jobs {
		if j.references(r.bo) {
			queued = true
			break
		}
	}
	if !queued && c.screen.ws.WaitBO(r.bo.Handle, 0) == nil {
		return nil
	}
	if !r.renderTarget {
		bo, err := c.screen.bos.alloc(r.size, r.bo.Name)
		if err != nil {
			return err
		}
		if !whole {
			copy(bo.Map[:r.size], r.bo.Map[:r.size])
		}
		r.bo.Release()
		r.bo = bo
		// Attribute records and texture descriptors already emitted in
		// this job name the old BO; the next draw must emit new ones.
		c.dirty |= dirtyVertexBuffers | dirtyTextures
		return nil
	}
	if err := c.flushUsers(r); err != nil {
		return err
	}
	if err := c.screen.ws.WaitBO(r.bo.Handle, readTimeout); err != nil {
		return fmt.Errorf("tg: waiting for the GPU to release a %s: %w", r.bo.Name, err)
	}
	return nil
}

// BufferWrite implements pipe.Context.
func (c *Context) BufferWrite(pr pipe.Resource, offset int, data []byte) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	r, ok := pr.(*Resource)
	if !ok || r == nil || r.bo == nil {
		return fmt.Errorf("tg: BufferWrite to an invalid resource")
	}
	if offset < 0 || offset+len(data) > int(r.size) {
		return fmt.Errorf("tg: write of %d bytes at %d outside a %d-byte buffer", len(data), offset, r.size)
	}
	if len(data) == 0 {
		return nil
	}
	if err := c.prepareCPUWrite(r, offset == 0 && len(data) == int(r.size)); err != nil {
		return err
	}
	copy(r.bo.Map[offset:], data)
	return nil
}

// checkRect validates a face/level rectangle of a texture-like resource.
func (r *Resource) checkRect(face, level, x, y, w, h, have int) error {
	if r.tmpl.Target == pipe.TargetBuffer {
		return fmt.Errorf("tg: buffer used as an image")
	}
	if face < 0 || face >= r.faces || level < 0 || level >= len(r.levelOff) {
		return fmt.Errorf("tg: face %d level %d outside the resource (%d faces, %d levels)", face, level, r.faces, len(r.levelOff))
	}
	lw, lh := r.levelSize(level)
	if x < 0 || y < 0 || w < 0 || h < 0 || x+w > lw || y+h > lh {
		return fmt.Errorf("tg: rectangle %d,%d %dx%d outside level %d (%dx%d)", x, y, w, h, level, lw, lh)
	}
	if need := w * h * r.tmpl.Format.BytesPerPixel(); have < need {
		return fmt.Errorf("tg: %d bytes for a %dx%d rectangle that needs %d", have, w, h, need)
	}
	return nil
}

// TextureWrite implements pipe.Context.
func (c *Context) TextureWrite(pr pipe.Resource, face, level, x, y, w, h int, data []byte) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	r, ok := pr.(*Resource)
	if !ok || r == nil || r.bo == nil {
		return fmt.Errorf("tg: TextureWrite to an invalid resource")
	}
	if err := r.checkRect(face, level, x, y, w, h, len(data)); err != nil {
		return err
	}
	if w == 0 || h == 0 {
		return nil
	}
	lw, lh := r.levelSize(level)
	whole := r.faces == 1 && len(r.levelOff) == 1 && x == 0 && y == 0 && w == lw && h == lh
	if err := c.prepareCPUWrite(r, whole); err != nil {
		return err
	}
	bpp := r.tmpl.Format.BytesPerPixel()
	stride := int(r.levelStride(level))
	base := int(r.imageOffset(face, level))
	if n := r.samples(); n > 1 {
		// Every sample of a pixel gets the written value.
		for row := 0; row < h; row++ {
			for i := 0; i < w; i++ {
				src := data[(row*w+i)*bpp:][:bpp]
				dst := base + (y+row)*stride + (x+i)*bpp*n
				for s := 0; s < n; s++ {
					copy(r.bo.Map[dst+s*bpp:], src)
				}
			}
		}
	} else {
		for row := 0; row < h; row++ {
			dst := base + (y+row)*stride + x*bpp
			copy(r.bo.Map[dst:dst+w*bpp], data[row*w*bpp:])
		}
	}
	if r.tmpl.Format == pipe.FormatZ24S8 {
		r.stencilWritten = true // written data may hold stencil: a depth-only clear must keep it
	}
	return nil
}

// ResourceRead implements pipe.Context (a transfer map for reading): the
// job writing the resource is submitted and waited for.
func (c *Context) ResourceRead(pr pipe.Resource, face, level, x, y, w, h int, dst []byte) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	r, ok := pr.(*Resource)
	if !ok || r == nil || r.bo == nil {
		return fmt.Errorf("tg: ResourceRead from an invalid resource")
	}
	if r.tmpl.Target == pipe.TargetBuffer {
		if x < 0 || w < 0 || x+w > int(r.size) || len(dst) < w {
			return fmt.Errorf("tg: read of %d bytes at %d outside a %d-byte buffer", w, x, r.size)
		}
	} else if err := r.checkRect(face, level, x, y, w, h, len(dst)); err != nil {
		return err
	}
	if w := c.writeJobs[r]; w != nil {
		if err := c.flushJob(w); err != nil {
			return err
		}
	}
	if err := c.screen.ws.WaitBO(r.bo.Handle, readTimeout); err != nil {
		return fmt.Errorf("tg: waiting for the GPU to finish writing a %s: %w", r.bo.Name, err)
	}
	if r.tmpl.Target == pipe.TargetBuffer {
		copy(dst, r.bo.Map[x:x+w])
		return nil
	}
	bpp := r.tmpl.Format.BytesPerPixel()
	stride := int(r.levelStride(level))
	base := int(r.imageOffset(face, level))
	if n := r.samples(); n > 1 {
		// A multisampled surface reads as its sample 0.
		for row := 0; row < h; row++ {
			for i := 0; i < w; i++ {
				src := base + (y+row)*stride + (x+i)*bpp*n
				copy(dst[(row*w+i)*bpp:][:bpp], r.bo.Map[src:])
			}
		}
		return nil
	}
	for row := 0; row < h; row++ {
		src := base + (y+row)*stride + x*bpp
		copy(dst[row*w*bpp:(row+1)*w*bpp], r.bo.Map[src:])
	}
	return nil
}

// GenerateMipmap implements pipe.Context on the CPU: each level is the 2×2
// box filter of the one above (odd edges repeat their last texel).
func (c *Context) GenerateMipmap(pr pipe.Resource, face int) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	r, ok := pr.(*Resource)
	if !ok || r == nil || r.bo == nil {
		return fmt.Errorf("tg: GenerateMipmap of an invalid resource")
	}
	if !boxFilterLevel(r.tmpl.Format, nil, nil, 0, 0, 0, 0) {
		return fmt.Errorf("tg: GenerateMipmap of a resource of format %d (colour formats only)", r.tmpl.Format)
	}
	if face < 0 || face >= r.faces {
		return fmt.Errorf("tg: face %d outside the texture", face)
	}
	if len(r.levelOff) < 2 {
		return nil
	}
	if err := c.flushWriter(r); err != nil {
		return err
	}
	if err := c.prepareCPUWrite(r, false); err != nil {
		return err
	}
	for l := 1; l < len(r.levelOff); l++ {
		sw, sh := r.levelSize(l - 1)
		dw, dh := r.levelSize(l)
		src := r.bo.Map[r.imageOffset(face, l-1):]
		dst := r.bo.Map[r.imageOffset(face, l):]
		boxFilterLevel(r.tmpl.Format, dst, src, dw, dh, sw, sh)
	}
	return nil
}
