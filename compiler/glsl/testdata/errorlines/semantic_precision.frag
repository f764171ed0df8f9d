#version 100
uniform float nodefault;
precision mediump float;
precision highp bool;
lowp vec4 ok;
precision mediump vec4;
highp struct S { float x; } s;
void main() {
    gl_FragColor = ok;
}
