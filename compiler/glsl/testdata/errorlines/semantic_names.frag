#version 100
precision mediump float;
uniform float u;
float x;
float x;
void f(float a);
void f(float b) {}
float g() { return 1.0; }
float g() { return 2.0; }
void main() {
    float y = z;
    float w = h(1.0);
    float v = g(1.0);
    float q;
    float q;
    f(1.0, 2.0);
    gl_FragColor = vec4(y + w + v);
}
