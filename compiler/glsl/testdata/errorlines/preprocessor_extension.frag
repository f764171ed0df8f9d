#version 100
#extension GL_OES_unknown_extension : require
#extension GL_OES_standard_derivatives : bogus
#extension all : require
precision mediump float;
#pragma anything goes
void main() {
    gl_FragColor = vec4(1.0);
}
