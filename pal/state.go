package pal

import (
	"fmt"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// The fixed-function enums are hw/cl's (the packet database's), so a
// state object packs its records without translation.
type (
	CompareFunc   = cl.CompareFunc
	BlendFactor   = cl.BlendFactor
	BlendFunc     = cl.BlendEquation
	StencilOp     = cl.StencilOp
	PrimitiveType = cl.PrimitiveMode
	IndexType     = cl.IndexType
	VertexType    = cl.AttributeType
)

// ColorBlendStateCreateInfo describes blending of the colour target.
type ColorBlendStateCreateInfo struct {
	BlendEnable                  bool
	SrcBlendColor, DstBlendColor BlendFactor
	BlendFuncColor               BlendFunc
	SrcBlendAlpha, DstBlendAlpha BlendFactor
	BlendFuncAlpha               BlendFunc
	DisableWriteR, DisableWriteG bool
	DisableWriteB, DisableWriteA bool
}

// ColorBlendState is PAL's IColorBlendState. Like PAL's state objects it
// is translated to hardware form when created: binding it copies
// prepacked BLEND_CONFIG and COLOR_MASK records into the command stream.
type ColorBlendState struct {
	dev    *Device
	packed [cl.SizeBlendConfig + cl.SizeColorMask]byte
}

// CreateColorBlendState creates a blend state object.
func (d *Device) CreateColorBlendState(ci ColorBlendStateCreateInfo) (*ColorBlendState, error) {
	bc := cl.BlendConfig{Enable: ci.BlendEnable, EquationRGB: ci.BlendFuncColor, EquationAlpha: ci.BlendFuncAlpha,
		SrcRGB: ci.SrcBlendColor, DstRGB: ci.DstBlendColor, SrcAlpha: ci.SrcBlendAlpha, DstAlpha: ci.DstBlendAlpha}
	if err := bc.Check(); err != nil {
		return nil, fmt.Errorf("%w: ColorBlendState: %v", ErrInvalidArgument, err)
	}
	s := &ColorBlendState{dev: d}
	bc.Pack(s.packed[:])
	cl.ColorMask{R: !ci.DisableWriteR, G: !ci.DisableWriteG, B: !ci.DisableWriteB, A: !ci.DisableWriteA}.Pack(s.packed[cl.SizeBlendConfig:])
	return s, nil
}

// StencilOpState is one face's stencil test (PAL's DepthStencilOp).
type StencilOpState struct {
	FailOp, DepthFailOp, PassOp StencilOp
	Func                        CompareFunc
	CompareMask, WriteMask      uint8
}

// DepthStencilStateCreateInfo describes the depth and stencil tests.
type DepthStencilStateCreateInfo struct {
	DepthEnable, DepthWriteEnable bool
	DepthFunc                     CompareFunc
	StencilEnable                 bool
	Front, Back                   StencilOpState
}

// DepthStencilState is PAL's IDepthStencilState. Stencil reference values
// are dynamic (CmdSetStencilRef).
type DepthStencilState struct {
	dev *Device
	ci  DepthStencilStateCreateInfo
}

// CreateDepthStencilState creates a depth/stencil state object.
func (d *Device) CreateDepthStencilState(ci DepthStencilStateCreateInfo) (*DepthStencilState, error) {
	for _, f := range []StencilOpState{ci.Front, ci.Back} {
		sc := cl.StencilConfig{Func: f.Func, StencilFail: f.FailOp, DepthFail: f.DepthFailOp, DepthPass: f.PassOp}
		if err := sc.Check(); err != nil {
			return nil, fmt.Errorf("%w: DepthStencilState: %v", ErrInvalidArgument, err)
		}
	}
	if err := (cl.ConfigurationBits{DepthFunc: ci.DepthFunc}).Check(); err != nil {
		return nil, fmt.Errorf("%w: DepthStencilState: %v", ErrInvalidArgument, err)
	}
	return &DepthStencilState{dev: d, ci: ci}, nil
}

// MsaaStateCreateInfo describes multisampling.
type MsaaStateCreateInfo struct {
	Samples int // 0 or 1
}

// MsaaState is PAL's IMsaaState. The kernel's render-target description
// has no multisample mode yet, so only single-sampled state exists.
type MsaaState struct{ dev *Device }

// CreateMsaaState creates an MSAA state object.
func (d *Device) CreateMsaaState(ci MsaaStateCreateInfo) (*MsaaState, error) {
	if ci.Samples > 1 {
		return nil, fmt.Errorf("%w: %d samples: the kernel's render lists are single-sampled", ErrUnsupported, ci.Samples)
	}
	if ci.Samples < 0 {
		return nil, fmt.Errorf("%w: %d samples", ErrInvalidArgument, ci.Samples)
	}
	return &MsaaState{dev: d}, nil
}

// Viewport maps normalised device coordinates to the target, in pixels
// with y up (0 = the bottom row), as GL's glViewport and glDepthRangef.
type Viewport struct {
	OriginX, OriginY, Width, Height float32
	MinDepth, MaxDepth              float32
}

// ScissorRect limits rendering to a rectangle of the target (y up).
type ScissorRect struct {
	X, Y, Width, Height int
}
