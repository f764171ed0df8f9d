#version 100
precision mediump float;
uniform float u;
void main() {
    float a = u +;
    float b = undeclared_b;
    float c = (u * 2.0;
    float d = undeclared_d;
    float e = u u;
    int f = 1.0;
    gl_FragColor = vec4(a + b + c + d + e);
}
