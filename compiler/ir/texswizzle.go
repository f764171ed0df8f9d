package ir

// Channel says where one channel of a texture fetch's result comes from.
type Channel uint8

// Channel sources. The zero value keeps the channel as fetched.
const (
	ChannelSame Channel = iota
	ChannelR
	ChannelG
	ChannelB
	ChannelA
	ChannelZero
	ChannelOne
)

// RemapTextureChannels rewrites the uses of every texture fetch's r, g, b, a
// (OpExtract of an OpTexture, scalar form) by the swizzle swz returns for the
// fetch's sampler storage slot: another channel or a constant 0 or 1. It is
// how a variant emulates formats (LUMINANCE, ALPHA, ...) whose channels the
// descriptor's swizzle cannot express alone. Run DCE afterwards: a fetch
// whose channels all became constants is then removed.
func RemapTextureChannels(f *Func, swz func(slot int) [4]Channel) {
	f.Walk(func(in *Instr) {
		if in.Op != OpExtract || in.Args[0].Op != OpTexture {
			return
		}
		s := swz(in.Args[0].Index)[in.Index&3]
		switch {
		case s >= ChannelR && s <= ChannelA:
			in.Index = int(s - ChannelR)
		case s == ChannelZero || s == ChannelOne:
			in.Op, in.Args, in.Index = OpConst, nil, 0
			in.Const[0] = FloatBits(float32(s - ChannelZero))
		}
	})
}
