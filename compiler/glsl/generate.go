package glsl

// The error lines glslangValidator reports for the erroneous-shader corpus
// (testdata/glslang-error-lines.txt, read by TestErrorLinesMatchGlslang);
// needs glslangValidator (Debian: glslang-tools). See gen_glslang.go.
//go:generate go run gen_glslang.go
