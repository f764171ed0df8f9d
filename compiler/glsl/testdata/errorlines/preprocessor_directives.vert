#version 100
attribute vec4 pos;
#error this is an error directive
#define A 1
#define A 2
#foo
#undef __LINE__
#define GL_custom 1
#define __reserved 1
#undef GL_ES
#line 2x
void main() {
    gl_Position = pos * float(A + GL_custom);
}
