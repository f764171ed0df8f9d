package tg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Draw implements pipe.Context (draw_vbo): direct and indexed draws with 8,
// 16 and 32-bit indices, base vertex, and instancing by repetition (ES 2.0
// has no gl_InstanceID, so instances are identical).
func (c *Context) Draw(info *pipe.DrawInfo) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	if info.Count <= 0 {
		return nil
	}
	if info.Mode > pipe.PrimTriangleFan {
		return fmt.Errorf("tg: draw mode %d is not a primitive mode", info.Mode)
	}
	if c.prog == nil {
		return fmt.Errorf("tg: draw without a shader program")
	}
	if info.Start < 0 {
		return fmt.Errorf("tg: draw start %d is negative", info.Start)
	}

	// Resources this draw reads must not be pending in another job
	// (vc4's write_jobs): flush their writers first.
	for _, v := range c.views {
		if v != nil && v.res != nil {
			if err := c.flushForeignWriter(v.res); err != nil {
				return err
			}
		}
	}
	for _, vb := range c.vbs {
		if r, _ := vb.Resource.(*Resource); r != nil {
			if err := c.flushForeignWriter(r); err != nil {
				return err
			}
		}
	}
	var ib *Resource
	if info.IndexSize != 0 {
		ib, _ = info.IndexBuffer.(*Resource)
		if ib == nil || ib.bo == nil {
			return fmt.Errorf("tg: indexed draw without an index buffer")
		}
		if err := c.flushForeignWriter(ib); err != nil {
			return err
		}
	}

	j, err := c.currentJob()
	if err != nil {
		return err
	}
	if j.full() {
		// Submit what we have and continue in a new job that loads the
		// surfaces back, before a buffer outgrows what the kernel accepts.
		if err := c.flushJob(j); err != nil {
			return err
		}
		if j, err = c.currentJob(); err != nil {
			return err
		}
	}
	cv, err := c.variant(c.prog, VariantKey{PrimitivePoints: info.Mode == pipe.PrimPoints})
	if err != nil {
		return err
	}
	if cv.v != c.lastVariant {
		c.lastVariant = cv.v
		c.dirty |= dirtyProgram
	}

	// Work out the index range before emitting anything, so an invalid draw
	// leaves the job untouched.
	var maxIndex uint32
	var indexType cl.IndexType
	var indexDelta uint32
	if ib != nil {
		switch info.IndexSize {
		case 1:
			indexType = cl.IndexU8
		case 2:
			indexType = cl.IndexU16
		case 4:
			indexType = cl.IndexU32
		default:
			return fmt.Errorf("tg: index size %d is not 1, 2 or 4", info.IndexSize)
		}
		first := info.IndexOffset + info.Start*info.IndexSize
		end := first + info.Count*info.IndexSize
		if info.IndexOffset < 0 || end > int(ib.size) || first%info.IndexSize != 0 {
			return fmt.Errorf("tg: indices [%d,%d) outside the %d-byte index buffer or misaligned", first, end, ib.size)
		}
		indexDelta = uint32(first)
		maxIndex = ib.maxIndexOf(first, info.Count, info.IndexSize)
	} else {
		maxIndex = uint32(info.Start + info.Count - 1)
	}
	if info.BaseVertex != c.lastBaseVertex {
		c.lastBaseVertex = info.BaseVertex
		c.dirty |= dirtyVertexBuffers
	}
	attrs, err := c.checkAttributes(cv, maxIndex, info.BaseVertex)
	if err != nil {
		return err
	}

	c.emitState(j, cv)
	if c.dirty&dirtyShaderState != 0 {
		if err := c.emitShaderState(j, cv, attrs); err != nil {
			return err
		}
	}
	c.dirty = 0

	if c.screen.drawMarkers {
		// Draw id: the context's draw count, from 1 (crash dumps name it).
		emit(j, cl.Marker{Id: uint32(c.stats.Draws + 1)})
	}
	instances := max(info.InstanceCount, 1)
	for range instances {
		if ib != nil {
			off := uint32(len(j.bcl))
			emit(j, cl.IndexedPrimitiveList{
				Mode: cl.PrimitiveMode(info.Mode), IndexType: indexType,
				Length: uint32(info.Count), MaxIndex: maxIndex,
			})
			j.relocBO(SpaceBinCL, off+uint32(cl.AddressFields(cl.OpIndexedPrimitiveList)[0]), ib.bo, BORead, indexDelta)
		} else {
			emit(j, cl.VertexArrayPrimitives{Mode: cl.PrimitiveMode(info.Mode), Length: uint32(info.Count), FirstIndex: uint32(info.Start)})
		}
	}
	j.draws++
	c.stats.Draws++
	if d := c.dsa.s; d.DepthEnable || d.StencilEnable {
		j.usesZS = true
	}
	if d := c.dsa.s; d.StencilEnable && (d.Stencil[0].WriteMask != 0 || d.Stencil[1].WriteMask != 0) && j.key.zs.res != nil {
		j.key.zs.res.stencilWritten = true
	}
	return nil
}

// flushForeignWriter flushes the job writing r unless it is the job of the
// bound framebuffer (sampling a texture that is being rendered to is a GL
// feedback loop with undefined results; we keep the order of the job).
func (c *Context) flushForeignWriter(r *Resource) error {
	w := c.writeJobs[r]
	if w == nil {
		return nil
	}
	key := c.fbKey()
	if w.key == key {
		return nil
	}
	return c.flushJob(w)
}

// attribute is a resolved attribute slot.
type attribute struct {
	constant  bool
	value     [4]float32
	res       *Resource
	base      uint32 // byte offset of vertex 0's element
	maxOffset uint32
	stride    uint32
	el        pipe.VertexElement
}

// checkAttributes resolves every attribute slot of the variant and checks
// that each array holds the vertices up to maxIndex (the kernel would
// otherwise reject the whole job).
func (c *Context) checkAttributes(cv *compiledVariant, maxIndex uint32, baseVertex int) ([]attribute, error) {
	out := c.attrScratch[:0]
	for range cv.v.Attributes {
		out = append(out, attribute{})
	}
	c.attrScratch = out
	for k, loc := range cv.v.Attributes {
		a := &out[k]
		var el pipe.VertexElement
		if c.ve != nil && loc >= 0 && loc < len(c.ve.elems) {
			el = c.ve.elems[loc]
		} else {
			el = pipe.VertexElement{Constant: true, Value: [4]float32{0, 0, 0, 1}}
		}
		a.el = el
		if el.Constant {
			a.constant, a.value = true, el.Value
			continue
		}
		if el.BufferIndex < 0 || el.BufferIndex >= len(c.vbs) {
			return nil, fmt.Errorf("tg: attribute %d reads vertex buffer slot %d, which is not bound", loc, el.BufferIndex)
		}
		vb := c.vbs[el.BufferIndex]
		r, _ := vb.Resource.(*Resource)
		if r == nil || r.bo == nil {
			return nil, fmt.Errorf("tg: attribute %d has no buffer", loc)
		}
		if el.Components < 1 || el.Components > 4 || el.Type > pipe.VertexFixed {
			return nil, fmt.Errorf("tg: attribute %d has %d components of type %d", loc, el.Components, el.Type)
		}
		base := int64(vb.Offset) + int64(el.Offset) + int64(baseVertex)*int64(vb.Stride)
		if base < 0 || base > int64(r.size) {
			return nil, fmt.Errorf("tg: attribute %d starts at byte %d, outside its %d-byte buffer", loc, base, r.size)
		}
		elemSize := uint64(el.Components * el.Type.Size())
		maxOffset := uint64(r.size) - uint64(base)
		if uint64(maxIndex)*uint64(vb.Stride)+elemSize > maxOffset {
			return nil, fmt.Errorf("tg: attribute %d: vertex %d lies beyond the end of its buffer", loc, maxIndex)
		}
		if vb.Stride > math.MaxUint16 {
			return nil, fmt.Errorf("tg: attribute %d stride %d exceeds 65535", loc, vb.Stride)
		}
		a.res, a.base, a.maxOffset, a.stride = r, uint32(base), uint32(maxOffset), vb.Stride
	}
	return out, nil
}

// emitState writes the fixed-function records whose state is dirty.
func (c *Context) emitState(j *job, cv *compiledVariant) {
	d := c.dirty
	hasZS := j.key.zs.res != nil
	// Alpha-to-coverage (blend state) is in CONFIGURATION_BITS too, which
	// only a multisampled job reads.
	if d&(dirtyRasterizer|dirtyDSA|dirtyProgram|dirtyFramebuffer) != 0 || (d&dirtyBlend != 0 && j.key.samples == 4) {
		r, z := c.rast.s, c.dsa.s
		depthTest := z.DepthEnable && hasZS
		ms := j.key.samples == 4
		emit(j, cl.ConfigurationBits{
			EnableForwardFacing: !r.CullFront,
			EnableReverseFacing: !r.CullBack,
			ClockwisePrimitives: !r.FrontCCW,
			EnableDepthOffset:   r.OffsetEnable,
			DepthTestEnable:     depthTest,
			DepthFunc:           cl.CompareFunc(z.DepthFunc),
			ZUpdatesEnable:      depthTest && z.DepthWrite,
			// The hardware decides when early rejection is exact (it
			// checks the program for TLB_Z writes; discard is fine).
			EarlyZEnable:          depthTest,
			StencilEnable:         z.StencilEnable && hasZS,
			ClipHalfZ:             r.ClipHalfZ,
			Multisample4x:         ms,
			SampleAlphaToCoverage: ms && c.blend.s.AlphaToCoverage,
			SampleCoverageEnable:  ms && r.SampleCoverage,
			SampleCoverageMask:    sampleCoverageMask(r.SampleCoverageValue, r.SampleCoverageInvert),
		})
	}
	if d&dirtyRasterizer != 0 {
		emit(j, cl.DepthOffset{Factor: c.rast.s.OffsetFactor, Units: c.rast.s.OffsetUnits})
		emit(j, cl.LineWidth{Width: max(c.rast.s.LineWidth, 1)})
	}
	if d&(dirtyScissor|dirtyViewport|dirtyFramebuffer) != 0 {
		x0, y0, x1, y1 := 0, 0, c.fb.Width, c.fb.Height
		// The hardware clips x and y only at its guard band, so the clip
		// window must hold fragments inside the viewport (GL clips
		// primitives to the view volume): framebuffer ∩ viewport ∩ scissor,
		// as vc4 does.
		v := c.viewport
		x0 = max(x0, int(math.Floor(float64(v.Translate[0]-abs32(v.Scale[0])))))
		y0 = max(y0, int(math.Floor(float64(v.Translate[1]-abs32(v.Scale[1])))))
		x1 = min(x1, int(math.Ceil(float64(v.Translate[0]+abs32(v.Scale[0])))))
		y1 = min(y1, int(math.Ceil(float64(v.Translate[1]+abs32(v.Scale[1])))))
		if c.rast.s.ScissorEnable {
			x0, y0 = max(x0, c.scissor.MinX), max(y0, c.scissor.MinY)
			x1, y1 = min(x1, c.scissor.MaxX), min(y1, c.scissor.MaxY)
		}
		w, h := max(x1-x0, 0), max(y1-y0, 0)
		emit(j, cl.ClipWindow{Left: uint16(max(x0, 0)), Bottom: uint16(max(y0, 0)), Width: uint16(w), Height: uint16(h)})
	}
	if d&(dirtyViewport|dirtyFramebuffer) != 0 {
		v := c.viewport
		emit(j, cl.ViewportOffset{X: v.Translate[0], Y: v.Translate[1]})
		emit(j, cl.ClipperXYScaling{X: v.Scale[0], Y: v.Scale[1]})
		emit(j, cl.ClipperZScaleAndOffset{Scale: v.Scale[2], Offset: v.Translate[2]})
	}
	if d&dirtyBlend != 0 {
		b := c.blend.s
		emit(j, cl.BlendConfig{
			Enable: b.Enable, EquationRGB: cl.BlendEquation(b.EquationRGB), EquationAlpha: cl.BlendEquation(b.EquationAlpha),
			SrcRGB: cl.BlendFactor(b.SrcRGB), DstRGB: cl.BlendFactor(b.DstRGB),
			SrcAlpha: cl.BlendFactor(b.SrcAlpha), DstAlpha: cl.BlendFactor(b.DstAlpha),
		})
		emit(j, cl.ColorMask{R: b.ColorMask[0], G: b.ColorMask[1], B: b.ColorMask[2], A: b.ColorMask[3]})
	}
	if d&dirtyBlendColor != 0 {
		col := c.blendColor
		emit(j, cl.BlendConstantColor{R: col[0], G: col[1], B: col[2], A: col[3]})
	}
	c.emitQuery(j)
	if d&(dirtyDSA|dirtyStencilRef) != 0 && c.dsa.s.StencilEnable {
		f, b := c.dsa.s.Stencil[0], c.dsa.s.Stencil[1]
		stencil := func(face cl.StencilFace, s pipe.StencilState, ref uint8) {
			emit(j, cl.StencilConfig{
				Face: face, Func: cl.CompareFunc(s.Func), Ref: ref, ValueMask: s.ValueMask, WriteMask: s.WriteMask,
				StencilFail: cl.StencilOp(s.Fail), DepthFail: cl.StencilOp(s.ZFail), DepthPass: cl.StencilOp(s.ZPass),
			})
		}
		if f == b && c.stencilRef[0] == c.stencilRef[1] {
			stencil(cl.FaceBoth, f, c.stencilRef[0])
		} else {
			stencil(cl.FaceFront, f, c.stencilRef[0])
			stencil(cl.FaceBack, b, c.stencilRef[1])
		}
	}
}

// emitShaderState writes the uniform streams, the shader record with its
// attribute records, and a GL_SHADER_STATE record pointing at them.
func (c *Context) emitShaderState(j *job, cv *compiledVariant, attrs []attribute) error {
	descs := c.descScratch // texture unit → descriptor offset in the uniforms buffer
	if descs == nil {
		descs = map[uint32]uint32{}
		c.descScratch = descs
	}
	clear(descs)
	// Shaders that index uniform arrays dynamically read a copy of the whole
	// storage block; one copy serves every draw until the storage changes.
	if usesStorageAddress(cv.v) && (!j.hasStorageCopy || c.dirty&dirtyUniforms != 0) {
		j.storageCopy = uint32(len(j.unifs))
		for _, s := range c.storage {
			j.unifs = binary.LittleEndian.AppendUint32(j.unifs, s)
		}
		if len(c.storage) == 0 {
			j.unifs = binary.LittleEndian.AppendUint32(j.unifs, 0)
		}
		j.hasStorageCopy = true
	}
	// Texture descriptors go to the uniforms buffer too (16-byte aligned),
	// ahead of the streams that point at them: a stream must be contiguous.
	for _, b := range []*Binary{cv.v.VS, cv.v.CS, cv.v.FS} {
		for _, u := range b.Uniforms {
			if u.Kind != UniformTexture {
				continue
			}
			unit := c.storageSlot(u.Index)
			if _, ok := descs[unit]; ok {
				continue
			}
			d, err := c.writeTextureDescriptor(j, unit)
			if err != nil {
				return err
			}
			descs[unit] = d
		}
	}
	var scratch *BO
	if cv.scratchBytes > 0 {
		var err error
		if scratch, err = j.scratchBO(c.screen.bos, cv.scratchBytes); err != nil {
			return err
		}
	}
	var vsU, csU, fsU uint32
	var err error
	c.evalPreShader(cv)
	if vsU, err = c.writeUniforms(j, cv.v.VS, descs, scratch, cv.vsScratch, cv.derived); err != nil {
		return err
	}
	if csU, err = c.writeUniforms(j, cv.v.CS, descs, scratch, cv.csScratch, cv.derived); err != nil {
		return err
	}
	if fsU, err = c.writeUniforms(j, cv.v.FS, descs, scratch, cv.fsScratch, cv.derived); err != nil {
		return err
	}

	rec := j.alignShaderRecs()
	j.shaderRe = append(j.shaderRe, make([]byte, cl.SizeShaderRecord+len(attrs)*cl.SizeAttributeRecord)...)
	var flags uint16
	if !cv.v.FSThreaded {
		flags |= cl.ShaderFlagFragmentSingleThreaded
	}
	if cv.v.WritesPointSize {
		flags |= cl.ShaderFlagVertexWritesPointSize
	}
	if cv.v.FSDiscardsOrWritesZ {
		flags |= cl.ShaderFlagFragmentDiscardsOrWritesZ
	}
	sr := cl.ShaderRecord{
		Flags:                 flags,
		FragmentNumVaryings:   uint8(cv.v.NumVaryings),
		VertexOutputWords:     cv.vertexOutputWords,
		ScratchBytesPerThread: cv.scratchBytesPerThread,
	}
	sr.Pack(j.shaderRe[rec:])
	ao := cl.ShaderRecordLayout.AddressOffsets // FS code, FS unif, VS code, VS unif, CS code, CS unif, scratch
	codeRelocs := []uint32{cv.fsOff, 0, cv.vsOff, 0, cv.csOff, 0}
	unifRelocs := []uint32{0, fsU, 0, vsU, 0, csU}
	for i := 0; i < 6; i++ {
		off := rec + uint32(ao[i])
		if i%2 == 0 {
			j.relocBO(SpaceShaderRecords, off, cv.code, BORead, codeRelocs[i])
		} else {
			j.relocs = append(j.relocs, Reloc{Space: SpaceShaderRecords, Offset: off, Target: TargetUniforms, Delta: unifRelocs[i]})
		}
	}
	if scratch != nil {
		j.relocBO(SpaceShaderRecords, rec+uint32(ao[6]), scratch, BORead|BOWrite, 0)
	}

	for k, a := range attrs {
		off := rec + cl.SizeShaderRecord + uint32(k*cl.SizeAttributeRecord)
		ar := cl.AttributeRecord{VPMOffset: uint8(4 * k)}
		if a.constant {
			var buf [16]byte
			for i, v := range a.value {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
			}
			bo, boOff, err := j.uploadData(c.screen.bos, buf[:])
			if err != nil {
				return err
			}
			ar.MaxOffset, ar.Stride, ar.Type, ar.Components = 16, 0, cl.AttrFloat, 4
			ar.Pack(j.shaderRe[off:])
			j.relocBO(SpaceShaderRecords, off+uint32(cl.AttributeRecordLayout.AddressOffsets[0]), bo, BORead, boOff)
			continue
		}
		ar.MaxOffset = a.maxOffset
		ar.Stride = uint16(a.stride)
		ar.Type = cl.AttributeType(a.el.Type)
		ar.Normalized = a.el.Normalized
		ar.Components = uint8(a.el.Components)
		ar.Pack(j.shaderRe[off:])
		j.relocBO(SpaceShaderRecords, off+uint32(cl.AttributeRecordLayout.AddressOffsets[0]), a.res.bo, BORead, a.base)
	}

	at := uint32(len(j.bcl))
	emit(j, cl.GLShaderState{AttributeCount: uint8(len(attrs))})
	j.relocs = append(j.relocs, Reloc{Space: SpaceBinCL, Offset: at + uint32(cl.AddressFields(cl.OpGLShaderState)[0]), Target: TargetShaderRecords, Delta: rec})
	return nil
}

// writeUniforms appends one stage's uniform stream to the job and returns
// its offset in the uniforms buffer. The stage's spill area starts at byte
// scratchOff of scratch (nil when no stage spills).
func (c *Context) writeUniforms(j *job, b *Binary, descs map[uint32]uint32, scratch *BO, scratchOff uint32, derived []uint32) (uint32, error) {
	start := uint32(len(j.unifs))
	storage := c.storageSlot
	for i, u := range b.Uniforms {
		at := uint32(len(j.unifs))
		var v uint32
		switch u.Kind {
		case UniformStorage:
			v = storage(u.Index)
		case UniformConstant:
			v = u.Value
		case UniformDerived:
			v = derived[u.Index] // checkUniforms bounds Index
		case UniformTexture:
			d, ok := descs[storage(u.Index)]
			if !ok {
				return 0, fmt.Errorf("tg: BUG: no texture descriptor for unit %d", storage(u.Index))
			}
			j.relocs = append(j.relocs, Reloc{Space: SpaceUniforms, Offset: at, Target: TargetUniforms, Delta: d})
		case UniformStorageAddress:
			j.relocs = append(j.relocs, Reloc{Space: SpaceUniforms, Offset: at, Target: TargetUniforms, Delta: j.storageCopy})
		case UniformScratchAddress:
			if scratch == nil {
				return 0, fmt.Errorf("tg: BUG: uniform stream entry %d asks for the scratch address, but no scratch was allocated", i)
			}
			j.relocBO(SpaceUniforms, at, scratch, BORead|BOWrite, scratchOff)
		case UniformStreamAddress:
			j.relocs = append(j.relocs, Reloc{Space: SpaceUniforms, Offset: at, Target: TargetUniforms, Delta: start})
		default:
			return 0, fmt.Errorf("tg: uniform stream entry %d has kind %v, which the driver cannot write", i, u.Kind)
		}
		j.unifs = binary.LittleEndian.AppendUint32(j.unifs, v)
	}
	return start, nil
}

// storageSlot reads slot i of the uniform storage (0 beyond its end).
func (c *Context) storageSlot(i uint32) uint32 {
	if int(i) < len(c.storage) {
		return c.storage[i]
	}
	return 0
}

// writeTextureDescriptor appends the descriptor of the texture on unit to
// the uniforms buffer and returns its offset.
func (c *Context) writeTextureDescriptor(j *job, unit uint32) (uint32, error) {
	var view *samplerView
	if int(unit) < len(c.views) {
		view = c.views[unit]
	}
	var res *Resource
	levels := 1
	swz := pipe.IdentitySwizzle
	if view != nil && view.res != nil && view.res.bo != nil {
		res, levels, swz = view.res, view.t.Levels, view.t.Swizzle
	} else {
		var err error
		if res, err = c.black(); err != nil {
			return 0, err
		}
	}
	s := pipe.SamplerState{WrapS: pipe.WrapRepeat, WrapT: pipe.WrapRepeat, MinFilter: pipe.FilterNearestMipmapLinear, MagFilter: pipe.FilterLinear}
	if int(unit) < len(c.samplers) && c.samplers[unit] != nil {
		s = c.samplers[unit].s
	}
	if levels <= 1 && s.MinFilter > pipe.FilterLinear {
		// A single-level view cannot be mipmapped: the level-0 filter of the
		// mipmap mode is what GL would produce with λ clamped to 0.
		s.MinFilter = pipe.Filter((s.MinFilter - pipe.FilterNearestMipmapNearest) % 2)
	}
	var sw uint16
	for i, x := range swz {
		sw |= uint16(x&7) << (3 * i)
	}
	for len(j.unifs)%16 != 0 {
		j.unifs = append(j.unifs, 0)
	}
	d := uint32(len(j.unifs))
	j.unifs = append(j.unifs, make([]byte, cl.SizeTextureDescriptor)...)
	cl.TextureDescriptor{
		Width: uint16(res.tmpl.Width), Height: uint16(res.tmpl.Height),
		Format: textureFormat(res.tmpl.Format), Levels: uint8(levels),
		WrapS: cl.Wrap(s.WrapS), WrapT: cl.Wrap(s.WrapT),
		MinFilter: cl.MinFilter(s.MinFilter), MagFilter: cl.MagFilter(s.MagFilter & 1),
		Cube: res.faces == 6, FaceStride: res.faceStride, Swizzle: sw,
	}.Pack(j.unifs[d:])
	j.relocBO(SpaceUniforms, d+uint32(cl.TextureDescriptorLayout.AddressOffsets[0]), res.bo, BORead, 0)
	return d, nil
}

// black returns a 1×1 (0, 0, 0, 1) texture for units without a complete
// texture (GL ES 2.0 §3.8.2).
func (c *Context) black() (*Resource, error) {
	if c.blackTexture != nil {
		return c.blackTexture, nil
	}
	r, err := c.screen.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA8, Width: 1, Height: 1, Levels: 1, Bind: pipe.BindSamplerView})
	if err != nil {
		return nil, err
	}
	copy(r.bo.Map, []byte{0, 0, 0, 255})
	c.blackTexture = r
	return r, nil
}

// maxIndexOf returns the largest index of count indices of size bytes at
// byte offset first, caching the answer until the buffer is written.
func (r *Resource) maxIndexOf(first, count, size int) uint32 {
	key := indexRange{first, count, size}
	if v, ok := r.maxIndex[key]; ok {
		return v
	}
	var m uint32
	data := r.bo.Map[first : first+count*size]
	switch size {
	case 1:
		for _, b := range data {
			m = max(m, uint32(b))
		}
	case 2:
		for i := 0; i < len(data); i += 2 {
			m = max(m, uint32(binary.LittleEndian.Uint16(data[i:])))
		}
	case 4:
		for i := 0; i < len(data); i += 4 {
			m = max(m, binary.LittleEndian.Uint32(data[i:]))
		}
	}
	if r.maxIndex == nil {
		r.maxIndex = map[indexRange]uint32{}
	}
	r.maxIndex[key] = m
	return m
}

func usesStorageAddress(v *Variant) bool {
	for _, b := range []*Binary{v.VS, v.CS, v.FS} {
		for _, u := range b.Uniforms {
			if u.Kind == UniformStorageAddress {
				return true
			}
		}
	}
	return false
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// sampleCoverageMask is GL_SAMPLE_COVERAGE's mask of four samples:
// round(value·4) of them (sample 0 first, the order alpha-to-coverage
// uses in hardware.md §5.2), or the others when inverted.
func sampleCoverageMask(value float32, invert bool) uint8 {
	n := int(min(max(value, 0), 1)*4 + 0.5)
	m := uint8(1<<n - 1)
	if invert {
		m = ^m & 0xF
	}
	return m
}
