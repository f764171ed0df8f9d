package pipe

// CompareFunc is a depth or stencil comparison (GL order, docs/hardware.md §4.1).
type CompareFunc uint8

const (
	FuncNever CompareFunc = iota
	FuncLess
	FuncEqual
	FuncLEqual
	FuncGreater
	FuncNotEqual
	FuncGEqual
	FuncAlways
)

// StencilOp is a stencil update operation.
type StencilOp uint8

const (
	StencilKeep StencilOp = iota
	StencilZero
	StencilReplace
	StencilIncr
	StencilDecr
	StencilInvert
	StencilIncrWrap
	StencilDecrWrap
)

// BlendEquation combines source and destination terms.
type BlendEquation uint8

const (
	BlendAdd BlendEquation = iota
	BlendSubtract
	BlendReverseSubtract
	BlendMin // min(src, dst), factors ignored (EXT_blend_minmax)
	BlendMax // max(src, dst)
)

// BlendFactor scales a blend term.
type BlendFactor uint8

const (
	FactorZero BlendFactor = iota
	FactorOne
	FactorSrcColor
	FactorOneMinusSrcColor
	FactorDstColor
	FactorOneMinusDstColor
	FactorSrcAlpha
	FactorOneMinusSrcAlpha
	FactorDstAlpha
	FactorOneMinusDstAlpha
	FactorConstantColor
	FactorOneMinusConstantColor
	FactorConstantAlpha
	FactorOneMinusConstantAlpha
	FactorSrcAlphaSaturate
)

// BlendState is the blend CSO.
type BlendState struct {
	Enable             bool
	EquationRGB        BlendEquation
	EquationAlpha      BlendEquation
	SrcRGB, DstRGB     BlendFactor
	SrcAlpha, DstAlpha BlendFactor
	ColorMask          [4]bool // R, G, B, A writes enabled
	// AlphaToCoverage (GL_SAMPLE_ALPHA_TO_COVERAGE) keeps round(alpha·samples)
	// of a fragment's samples; only multisampled framebuffers see it.
	AlphaToCoverage bool
}

// StencilState is one face of the stencil test.
type StencilState struct {
	Func                 CompareFunc
	ValueMask, WriteMask uint8
	Fail, ZFail, ZPass   StencilOp
}

// DepthStencilAlphaState is the depth-stencil CSO (alpha test does not exist in ES 2.0).
type DepthStencilAlphaState struct {
	DepthEnable   bool
	DepthFunc     CompareFunc
	DepthWrite    bool
	StencilEnable bool
	Stencil       [2]StencilState // front, back
}

// RasterizerState is the rasterizer CSO.
type RasterizerState struct {
	CullFront, CullBack bool
	FrontCCW            bool // GL_CCW front faces (the default)
	OffsetEnable        bool
	OffsetFactor        float32
	OffsetUnits         float32
	LineWidth           float32
	ScissorEnable       bool
	// SampleCoverage (GL_SAMPLE_COVERAGE) keeps round(value·samples) of
	// a fragment's samples (the others when inverted); only multisampled
	// framebuffers see it.
	SampleCoverage       bool
	SampleCoverageValue  float32
	SampleCoverageInvert bool
	// ClipHalfZ clips z to [0, w] instead of [-w, w] (Gallium's
	// clip_halfz; EXT_clip_control's ZERO_TO_ONE depth mode, whose depth
	// range mapping the state tracker puts in the viewport's z scale and
	// translate).
	ClipHalfZ bool
}

// Wrap is a texture coordinate wrap mode (docs/hardware.md §6.2).
type Wrap uint8

const (
	WrapRepeat Wrap = iota
	WrapClampToEdge
	WrapMirroredRepeat
)

// Filter is a texture filter (docs/hardware.md §6.2); mag filters use only
// FilterNearest and FilterLinear.
type Filter uint8

const (
	FilterNearest Filter = iota
	FilterLinear
	FilterNearestMipmapNearest
	FilterLinearMipmapNearest
	FilterNearestMipmapLinear
	FilterLinearMipmapLinear
)

// SamplerState is the sampler CSO.
type SamplerState struct {
	WrapS, WrapT Wrap
	MinFilter    Filter
	MagFilter    Filter
}

// Swizzle source for one output channel of a sampler view.
type Swizzle uint8

const (
	SwizzleR Swizzle = iota
	SwizzleG
	SwizzleB
	SwizzleA
	SwizzleZero
	SwizzleOne
)

// SamplerViewTemplate describes how a texture resource is sampled.
type SamplerViewTemplate struct {
	Levels  int        // mip levels usable (≥ 1, ≤ the resource's)
	Swizzle [4]Swizzle // output R, G, B, A
}

// IdentitySwizzle reads R, G, B, A unchanged.
var IdentitySwizzle = [4]Swizzle{SwizzleR, SwizzleG, SwizzleB, SwizzleA}

// VertexType is the element type of a vertex attribute (docs/hardware.md §6.1).
type VertexType uint8

const (
	VertexFloat VertexType = iota
	VertexByte
	VertexUnsignedByte
	VertexShort
	VertexUnsignedShort
	VertexFixed
)

// Size is the byte size of one component.
func (t VertexType) Size() int {
	switch t {
	case VertexByte, VertexUnsignedByte:
		return 1
	case VertexShort, VertexUnsignedShort:
		return 2
	}
	return 4
}

// VertexElement is one generic attribute (by GL location = its index in the
// vertex-elements array).
type VertexElement struct {
	// Constant attributes (glDisableVertexAttribArray) read Value for every vertex.
	Constant    bool
	Value       [4]float32
	BufferIndex int // vertex buffer slot
	Offset      uint32
	Type        VertexType
	Components  int // 1..4
	Normalized  bool
}

// VertexBuffer binds a buffer resource to a slot.
type VertexBuffer struct {
	Resource Resource
	Offset   uint32
	Stride   uint32 // bytes between vertices; the state tracker resolves GL's 0
}

// Surface is one level of a resource used as a render target.
type Surface struct {
	Resource Resource
	Face     int
	Level    int
}

// FramebufferState is the bound framebuffer: a colour and a depth/stencil
// surface (either may be empty) and the render size.
//
// Samples 4 renders with four samples per pixel in the tile buffer and
// resolves them when the tile is stored (the surfaces themselves hold one
// value per pixel: EXT_multisampled_render_to_texture's model); 0 or 1 is
// single-sampled.
type FramebufferState struct {
	Width, Height int
	Color         Surface
	ZS            Surface
	Samples       int
}

// ViewportState maps normalised device coordinates to window coordinates:
// window = ndc·Scale + Translate.
type ViewportState struct {
	Scale     [3]float32
	Translate [3]float32
}

// ScissorState is a window-space rectangle [MinX,MaxX)×[MinY,MaxY).
type ScissorState struct {
	MinX, MinY, MaxX, MaxY int
}

// PrimitiveMode is a primitive topology (GL order).
type PrimitiveMode uint8

const (
	PrimPoints PrimitiveMode = iota
	PrimLines
	PrimLineLoop
	PrimLineStrip
	PrimTriangles
	PrimTriangleStrip
	PrimTriangleFan
)

// DrawInfo describes one draw (draw_vbo).
type DrawInfo struct {
	Mode          PrimitiveMode
	Start         int // first vertex (arrays) or first index (indexed)
	Count         int // vertices or indices
	IndexSize     int // 0 for array draws; 1, 2 or 4 bytes per index
	IndexBuffer   Resource
	IndexOffset   int // byte offset of index 0 in IndexBuffer
	InstanceCount int // 0 and 1 both mean one instance
	BaseVertex    int // added to every index
}
